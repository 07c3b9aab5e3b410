// What every psched command does with its command line, as HPC users expect of mpiexec
// and srun: --help prints the usage and exits 0; a bad option or value exits 2 (not
// CLI11's 105-109) with one line naming the command and what is wrong.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace psched::testing {
namespace {

const char* const kCommands[] = {"psched-exec",   "psched-ctl",   "psched-alloc", "pschedd",
                                 "psched-config", "psched-place", "psched-sim",   "psched-djsb"};

TEST(CommandLine, HelpExitsZeroWithTheUsage) {
  for (const char* command : kCommands) {
    auto r = RunCmd({Bin(command), "--help"});
    EXPECT_EQ(r.code, 0) << command << ": " << r.err;
    EXPECT_NE(r.out.find("Usage:"), std::string::npos) << command << ": " << r.out;
  }
}

// The last line of a --help ran into the next prompt.
TEST(CommandLine, HelpEndsWithANewline) {
  for (const char* command : kCommands) {
    auto r = RunCmd({Bin(command), "--help"});
    EXPECT_TRUE(r.out.ends_with("\n")) << command << ": " << r.out;
  }
}

// What a user who knows mpiexec and srun needs from psched-exec --help alone: the
// COMMAND it takes, the policies with their meanings and the admin's default, the
// allocators, where the session runs and what the ranks get.
TEST(CommandLine, ExecHelpSaysWhatAUserNeeds) {
  TempDir conf;
  const std::string toml = conf / "psched.toml";
  std::ofstream(toml) << "[policy]\ndefault = \"overbook\"\n";
  auto r = RunCmd({Bin("psched-exec"), "--help"}, {"PSCHED_CONF=" + toml});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("Usage: psched-exec [OPTIONS] COMMAND [ARGS...]\n"), std::string::npos)
      << r.out;
  for (const char* text : {"  wait      queue until enough slots are free", "  surpass   suspend",
                           "  overbook  share the least-used slots", "  sidestep  move the ranks",
                           "Default here: overbook",
                           "compact, spread, netload, auction, ipwindow; default here: compact",
                           "$PSCHED_ALLOCATION", "$SLURM_JOB_ID", "started on first use",
                           "PSCHED_RANK", "PSCHED_LOCAL_RANK", "OMP_NUM_THREADS"})
    EXPECT_NE(r.out.find(text), std::string::npos) << text << " in\n" << r.out;
  // Without a config of the user's, the built-in default (no /etc/psched on test machines).
  auto plain = RunCmd({Bin("psched-exec"), "--help"}, {"PSCHED_CONF="});
  EXPECT_NE(plain.out.find("Default here: wait"), std::string::npos) << plain.out;
}

TEST(CommandLine, AllocAndCtlHelpSayWhatAUserNeeds) {
  auto alloc = RunCmd({Bin("psched-alloc"), "--help"});
  EXPECT_NE(alloc.out.find("Usage: psched-alloc [OPTIONS] CMD [ARGS...]\n"), std::string::npos)
      << alloc.out;
  for (const char* text : {"PSCHED_ALLOCATION", "  overbook  share",
                           "Default here:", "compact, spread, netload, auction, ipwindow"})
    EXPECT_NE(alloc.out.find(text), std::string::npos) << text << " in\n" << alloc.out;
  auto ctl = RunCmd({Bin("psched-ctl"), "--help"});
  for (const char* text : {"status", "suspend", "resume", "the first\npsched-exec starts one"})
    EXPECT_NE(ctl.out.find(text), std::string::npos) << text << " in\n" << ctl.out;
}

// The benchmark, simulator and admin tools: the usage line named "./psched-sim" (argv[0]),
// and nothing said how to start or what the exit status means.
TEST(CommandLine, ToolsHelpNamesTheProgramAnExampleAndTheExitStatus) {
  const std::pair<const char*, const char*> kExamples[] = {
      {"psched-djsb", "psched-alloc -N NODES --topology TOPOLOGY psched-djsb -c djsb/demo.toml"},
      {"psched-sim", "psched-sim --swf data/traces/KTH-SP2-1996-2.1-cln.swf.gz --scheduler"},
      {"psched-place", "psched-place -a netload tests/golden/netload/two_groups.json"},
      {"psched-config", "psched-config check /etc/psched/psched.toml"}};
  for (auto [command, example] : kExamples) {
    auto r = RunCmd({Bin(command), "--help"});
    EXPECT_NE(r.out.find(std::string("Usage: ") + command + " [OPTIONS]"), std::string::npos)
        << command << ": " << r.out;
    EXPECT_NE(r.out.find(example), std::string::npos) << command << ": " << r.out;
    EXPECT_NE(r.out.find("Exit status: 0 "), std::string::npos) << command << ": " << r.out;
  }
  // The exit codes the help promises for a bad option.
  for (auto [command, example] : kExamples)
    EXPECT_EQ(RunCmd({Bin(command), "--no-such-option"}).code, 2) << command;
}

// Before the first psched-exec, psched-ctl printed a bare "connect: No such file or
// directory" on the socket's path.
TEST(CommandLine, CtlWithNoDaemonSaysNoneRunsAndWhere) {
  TempDir xdg;
  auto r = RunCmd({Bin("psched-ctl"), "status"},
                  {"XDG_RUNTIME_DIR=" + xdg.path(), "PSCHED_ALLOCATION="});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(r.err,
            "psched-ctl: no psched daemon runs for this user on this machine (looked for "
            "its socket at " +
                (xdg / "psched/pschedd.sock") + "); the first psched-exec starts one\n");
  EXPECT_FALSE(std::filesystem::exists(xdg / "psched")) << "psched-ctl started nothing";
  TempDir gone;
  auto alloc = RunCmd({Bin("psched-ctl"), "status"}, {"PSCHED_ALLOCATION=" + gone.path()});
  EXPECT_EQ(alloc.code, 1);
  EXPECT_NE(alloc.err.find("no psched daemon answers for the psched-alloc allocation"),
            std::string::npos)
      << alloc.err;
}

TEST(CommandLine, AnUnknownOptionExitsTwoNamingTheCommand) {
  for (const char* command : kCommands) {
    std::vector<std::string> argv = {Bin(command), "--no-such-option-psched", "x"};
    // Commands with subcommands: the option after one (before it, CLI11 asks for one).
    if (argv[0].ends_with("psched-ctl")) argv.insert(argv.begin() + 1, "status");
    if (argv[0].ends_with("psched-config")) argv.insert(argv.begin() + 1, "check");
    auto r = RunCmd(argv);
    EXPECT_EQ(r.code, 2) << command << ": " << r.err;
    EXPECT_EQ(r.err.rfind(std::string(command) + ": ", 0), 0u) << command << ": " << r.err;
    EXPECT_NE(r.err.find("--no-such-option-psched"), std::string::npos) << command << ": " << r.err;
  }
}

TEST(CommandLine, BadValuesExitTwoAndSayWhatIsWrong) {
  struct Case {
    std::vector<std::string> argv;
    std::string says;
  } cases[] = {
      {{"psched-exec", "--np", "abc", "true"}, "-n needs a positive integer, got 'abc'"},
      {{"psched-exec", "-c", "two", "true"}, "-c needs a positive integer, got 'two'"},
      {{"psched-exec", "-N", "x", "true"}, "-N needs a positive integer, got 'x'"},
      {{"psched-exec", "--ppn", "-1", "true"}, "--ppn needs a positive integer, got '-1'"},
      {{"psched-ctl", "kill", "abc"}, "a session id is a positive integer"},
      {{"psched-ctl", "kill", "0"}, "got '0'"},
      {{"psched-ctl", "bogus"}, "unknown command 'bogus'"},
      {{"psched-alloc", "-N", "0", "true"}, "--nodes"},
      {{"pschedd", "--nodes", "x"}, "--nodes"},
      {{"psched-sim", "--jobs", "0", "--auction", "I.1"}, "--jobs must be >= 1"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> argv = c.argv;
    argv[0] = Bin(argv[0]);
    auto r = RunCmd(argv);
    EXPECT_EQ(r.code, 2) << c.argv[0] << ": " << r.err;
    EXPECT_EQ(r.err.rfind(c.argv[0] + ": ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_LT(r.err.size(), 300u) << "one short message: " << r.err;
  }
  // A trace that cannot be read is bad input like every other (issue #22: every input
  // error exits 2).
  auto missing = RunCmd({Bin("psched-sim"), "--swf", "/nonexistent/x.swf.gz", "--quiet"});
  EXPECT_EQ(missing.code, 2) << missing.err;
}

}  // namespace
}  // namespace psched::testing
