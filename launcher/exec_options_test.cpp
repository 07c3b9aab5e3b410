#include "launcher/exec_options.hpp"

#include <gtest/gtest.h>

namespace psched::launcher {
namespace {

ParsedExec Parse(std::vector<const char*> args) {
  args.insert(args.begin(), "psched-exec");
  return ParseExecOptions(static_cast<int>(args.size()), args.data());
}

TEST(ExecOptions, MpiexecStyle) {
  auto p =
      Parse({"-n", "4", "-c", "2", "--label", "-x", "A=1", "--time", "1:30", "hostname", "-f"});
  ASSERT_FALSE(p.exit);
  EXPECT_EQ(p.options.ranks, 4);
  EXPECT_EQ(p.options.cpus_per_rank, 2);
  EXPECT_TRUE(p.options.label);
  EXPECT_EQ(p.options.exports, std::vector<std::string>{"A=1"});
  EXPECT_DOUBLE_EQ(p.options.time_s, 90);
  EXPECT_EQ(p.options.command, (std::vector<std::string>{"hostname", "-f"}));
}

// mpirun -np 4: CLI11 read "-np" as "-n p" and refused it. The command's own -np is its own.
TEST(ExecOptions, MpiexecNpIsRanks) {
  auto p = Parse({"-np", "4", "prog", "-np", "2"});
  ASSERT_FALSE(p.exit);
  EXPECT_EQ(p.options.ranks, 4);
  EXPECT_EQ(p.options.command, (std::vector<std::string>{"prog", "-np", "2"}));
  auto after_values = Parse({"-x", "A=1", "--chdir", "/tmp", "-v", "-np", "3", "prog"});
  ASSERT_FALSE(after_values.exit);
  EXPECT_EQ(after_values.options.chdir, "/tmp");
  EXPECT_EQ(after_values.options.ranks, 3);
  auto own_only = Parse({"prog", "-np", "2"});
  ASSERT_FALSE(own_only.exit);
  EXPECT_EQ(own_only.options.ranks, 1);
  EXPECT_EQ(own_only.options.command, (std::vector<std::string>{"prog", "-np", "2"}));
  EXPECT_EQ(Parse({"-np", "0", "true"}).exit_code, 2);
}

TEST(ExecOptions, DoubleDashSeparatesTheCommand) {
  auto p = Parse({"-n", "2", "--", "prog", "--bogus"});
  ASSERT_FALSE(p.exit);
  EXPECT_EQ(p.options.command, (std::vector<std::string>{"prog", "--bogus"}));
  EXPECT_EQ(Parse({"-n", "2", "--"}).exit_code, 2);
}

TEST(ExecOptions, BadInputExitsNonZero) {
  EXPECT_EQ(Parse({"-n", "0", "true"}).exit_code, 2);
  EXPECT_EQ(Parse({"-c", "0", "true"}).exit_code, 2);
  EXPECT_EQ(Parse({"--bogus", "true"}).exit_code, 2);
  EXPECT_EQ(Parse({"-n", "2"}).exit_code, 2);
  EXPECT_EQ(Parse({"-n", "x", "true"}).exit_code, 2);
  EXPECT_EQ(Parse({"--time", "soon", "true"}).exit_code, 2);
  EXPECT_EQ(Parse({"-N", "3", "-n", "2", "true"}).exit_code, 2);
}

TEST(ExecOptions, MpiNamesTheWireUp) {
  EXPECT_EQ(Parse({"true"}).options.mpi, "");
  auto p = Parse({"--mpi", "pmi1", "true"});
  EXPECT_FALSE(p.exit);
  EXPECT_EQ(p.options.mpi, "pmi1");
  for (const char* name : {"auto", "pmix", "pmi2", "none"})
    EXPECT_FALSE(Parse({"--mpi", name, "true"}).exit);
  EXPECT_EQ(Parse({"--mpi", "pmi3", "true"}).exit_code, 2);
}

// CLI11 said "Could not convert: --np = abc"; -N and --ppn took 0 and negatives.
TEST(ExecOptions, CountsThatAreNotPositiveIntegersSaySo) {
  EXPECT_EQ(*ParseCount("-n", "12"), 12);
  for (const char* text : {"abc", "0", "-3", "1.5", "4x", "", "99999999999"}) {
    auto count = ParseCount("-n", text);
    ASSERT_FALSE(count) << text;
    EXPECT_EQ(count.error().message(),
              std::string("-n needs a positive integer, got '") + text + "'");
  }
  for (const char* flag : {"-n", "-c", "-N", "--ppn", "--np", "--nodes", "--cpus-per-rank"}) {
    auto p = Parse({flag, "abc", "true"});
    EXPECT_TRUE(p.exit) << flag;
    EXPECT_EQ(p.exit_code, 2) << flag;
  }
  auto p = Parse({"-N", "2", "--ppn", "1", "-n", "2", "-c", "3", "true"});
  ASSERT_FALSE(p.exit);
  EXPECT_EQ(p.options.nodes, 2);
  EXPECT_EQ(p.options.ppn, 1);
  EXPECT_EQ(p.options.cpus_per_rank, 3);
}

TEST(ExecOptions, HelpExitsZero) {
  auto p = Parse({"--help"});
  EXPECT_TRUE(p.exit);
  EXPECT_EQ(p.exit_code, 0);
}

TEST(ExecOptions, Durations) {
  EXPECT_DOUBLE_EQ(*ParseDuration("45"), 45);
  EXPECT_DOUBLE_EQ(*ParseDuration("1:00:00"), 3600);
  EXPECT_FALSE(ParseDuration("1:2:3:4"));
  EXPECT_FALSE(ParseDuration("-5"));
}

// strtod reads "nan" and "inf": a NaN estimate made psp+aging priorities NaN and broke
// the queue's order.
TEST(ExecOptions, DurationsMustBeFinite) {
  for (const char* text : {"nan", "inf", "-inf", "NAN", "infinity", "1:nan", "inf:00", "1e400"}) {
    auto d = ParseDuration(text);
    ASSERT_FALSE(d) << text;
    EXPECT_NE(d.error().message().find("is not a duration"), std::string::npos) << text;
  }
  EXPECT_FALSE(ParseDuration("1e308:1e308:1e308")) << "finite parts, infinite total";
  EXPECT_EQ(Parse({"--time", "nan", "true"}).exit_code, 2);
}

TEST(ExecOptions, KillWaitIsSecondsUpToAnHour) {
  EXPECT_EQ(Parse({"true"}).options.kill_wait_s, -1);  // the admin's default
  EXPECT_EQ(Parse({"--kill-wait", "2.5", "true"}).options.kill_wait_s, 2.5);
  EXPECT_EQ(Parse({"--kill-wait", "0", "true"}).options.kill_wait_s, 0);
  for (const char* text : {"-1", "3601", "nan", "inf", "1s", ""}) {
    auto w = ParseKillWait(text);
    ASSERT_FALSE(w) << text;
    EXPECT_NE(w.error().message().find("--kill-wait needs seconds between 0 and 3600"),
              std::string::npos)
        << text;
  }
  EXPECT_EQ(Parse({"--kill-wait", "soon", "true"}).exit_code, 2);
}

TEST(ExecOptions, ExportsOverrideAndRequireSetVars) {
  char a[] = "A=old", b[] = "B=2";
  char* env[] = {a, b, nullptr};
  auto e = RankEnvironment({"A=new"}, env);
  ASSERT_TRUE(e);
  EXPECT_EQ(*e, (std::vector<std::string>{"B=2", "A=new"}));
  EXPECT_FALSE(RankEnvironment({"PSCHED_SURELY_UNSET_VAR"}, env));
}

TEST(ExecOptions, ResolvesExecutablesOnTheRanksPath) {
  const std::vector<std::string> env = {"PATH=/usr/bin:/bin"};
  EXPECT_TRUE(ResolveExecutable("true", "", env));
  EXPECT_TRUE(ResolveExecutable("/bin/true", "", env));
  auto missing = ResolveExecutable("no-such-program-psched", "", env);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message().find("not found in PATH"), std::string::npos);
  // -x PATH=... gives the ranks another PATH: the check follows it, not ours.
  auto dir = ResolveExecutable("/tmp", "", env);
  ASSERT_FALSE(dir);
  EXPECT_EQ(dir.error().message(), "'/tmp' is a directory, not a program");
  auto relative_dir = ResolveExecutable("./tmp", "/", env);  // from the ranks' directory
  ASSERT_FALSE(relative_dir);
  EXPECT_NE(relative_dir.error().message().find("is a directory"), std::string::npos);
  auto not_executable = ResolveExecutable("/etc/passwd", "", env);
  ASSERT_FALSE(not_executable);
  EXPECT_NE(not_executable.error().message().find("not an executable file"), std::string::npos);
  auto elsewhere = ResolveExecutable("true", "", {"PATH=/nonexistent"});
  ASSERT_FALSE(elsewhere);
  EXPECT_NE(elsewhere.error().message().find("/nonexistent"), std::string::npos);
}

}  // namespace
}  // namespace psched::launcher
