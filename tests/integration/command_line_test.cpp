// What every psched command does with its command line, as HPC users expect of mpiexec
// and srun: --help prints the usage and exits 0; a bad option or value exits 2 (not
// CLI11's 105-109) with one line naming the command and what is wrong.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/process.hpp"

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
      {{"psched-exec", "--np", "abc", "true"}, "--np"},
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
  // A run that could not be done (not a usage error) is 1.
  auto missing = RunCmd({Bin("psched-sim"), "--swf", "/nonexistent/x.swf.gz", "--quiet"});
  EXPECT_EQ(missing.code, 1) << missing.err;
}

}  // namespace
}  // namespace psched::testing
