#include "common/exec_args.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

namespace psched {
namespace {

TEST(ExecArray, PointsAtEachStringAndEndsWithNull) {
  std::vector<std::string> strings = {"/bin/echo", "", "two words"};
  std::vector<char*> array = ExecArray(strings);
  ASSERT_EQ(array.size(), 4U);
  for (std::size_t i = 0; i < strings.size(); ++i) EXPECT_EQ(array[i], strings[i].c_str());
  EXPECT_EQ(array.back(), nullptr);
  EXPECT_EQ(ExecArray({}), std::vector<char*>{nullptr});
}

TEST(ExecArray, ExecsARealProgramWithItsArgumentsAndEnvironment) {
  std::vector<std::string> argv = {"/bin/sh", "-c", "test \"$1:$PSCHED_X\" = \"a b:1\"", "sh",
                                   "a b"};
  std::vector<std::string> env = {"PSCHED_X=1"};
  std::vector<char*> args = ExecArray(argv), envp = ExecArray(env);
  pid_t pid = fork();
  ASSERT_GE(pid, 0) << std::strerror(errno);
  if (pid == 0) {
    execve(args[0], args.data(), envp.data());
    _exit(127);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the child saw other arguments or environment";
}

TEST(EnvironmentWith, OverridesReplaceSameNameAndNewOnesAreAppended) {
  const char* base[] = {"PATH=/bin", "HOME=/root", "HOMEDIR=/x", "EMPTY=", nullptr};
  EXPECT_EQ(EnvironmentWith(base, {"HOME=/tmp", "NEW=1"}),
            (std::vector<std::string>{"PATH=/bin", "HOMEDIR=/x", "EMPTY=", "HOME=/tmp", "NEW=1"}));
  EXPECT_EQ(EnvironmentWith(base, {}),
            (std::vector<std::string>{"PATH=/bin", "HOME=/root", "HOMEDIR=/x", "EMPTY="}));
}

TEST(EnvironmentWith, NoBaseGivesOnlyTheOverrides) {
  EXPECT_EQ(EnvironmentWith(nullptr, {"A=1"}), std::vector<std::string>{"A=1"});
}

TEST(CommandLine, WordsJoinedBySpaces) {
  EXPECT_EQ(CommandLine({"mpi_app", "-x", "1"}), "mpi_app -x 1");
  EXPECT_EQ(CommandLine({"one"}), "one");
  EXPECT_EQ(CommandLine({}), "");
}

}  // namespace
}  // namespace psched
