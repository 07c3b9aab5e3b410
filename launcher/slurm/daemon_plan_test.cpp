#include "launcher/slurm/daemon_plan.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace psched::slurm {
namespace {

std::vector<std::pair<int, int>> Ranges(const std::vector<TreeLevel>& levels) {
  std::vector<std::pair<int, int>> out;
  out.reserve(levels.size());
  for (const auto& l : levels) out.emplace_back(l.first, l.last);
  return out;
}

TEST(TreeLevels, BreadthFirstLevelsOfTheKaryTree) {
  using R = std::vector<std::pair<int, int>>;
  EXPECT_EQ(Ranges(TreeLevels(1, 8)), (R{{0, 0}}));
  EXPECT_EQ(Ranges(TreeLevels(4, 8)), (R{{0, 0}, {1, 3}}));
  EXPECT_EQ(Ranges(TreeLevels(4, 2)), (R{{0, 0}, {1, 2}, {3, 3}}));
  EXPECT_EQ(Ranges(TreeLevels(7, 2)), (R{{0, 0}, {1, 2}, {3, 6}}));
  EXPECT_EQ(Ranges(TreeLevels(64, 8)), (R{{0, 0}, {1, 8}, {9, 63}}));
  EXPECT_EQ(Ranges(TreeLevels(4, 1)), (R{{0, 0}, {1, 1}, {2, 2}, {3, 3}}));
  EXPECT_TRUE(TreeLevels(0, 8).empty());
  EXPECT_TRUE(TreeLevels(4, 0).empty());
}

TEST(TreeLevels, EveryParentIsInThePreviousLevel) {
  for (int fanout : {1, 2, 3, 8}) {
    auto levels = TreeLevels(50, fanout);
    int covered = 0;
    for (std::size_t k = 0; k < levels.size(); ++k) {
      EXPECT_EQ(levels[k].first, covered);
      covered = levels[k].last + 1;
      for (int node = levels[k].first; node <= levels[k].last && k > 0; ++node) {
        int parent = (node - 1) / fanout;
        EXPECT_GE(parent, levels[k - 1].first) << node;
        EXPECT_LE(parent, levels[k - 1].last) << node;
      }
    }
    EXPECT_EQ(covered, 50);
  }
}

TEST(ParseNodeAddresses, ReadsScontrolOneLinerOutput) {
  const char* text =
      "NodeName=n1 Arch=x86_64 CoresPerSocket=1  CPUAlloc=0 NodeAddr=127.0.0.1 NodeHostName=vm "
      "Port=17001\n"
      "NodeName=n2 Arch=x86_64 NodeAddr=10.0.0.2 NodeHostName=host2\n"
      "garbage line\n"
      "NodeName=n3 Arch=x86_64\n";
  auto addrs = ParseNodeAddresses(text);
  EXPECT_EQ(addrs.size(), 2u);
  EXPECT_EQ(addrs["n1"], "127.0.0.1");
  EXPECT_EQ(addrs["n2"], "10.0.0.2");
  EXPECT_TRUE(ParseNodeAddresses("").empty());
}

TEST(ParseLabelledLines, SplitsSrunLabelOutputByTask) {
  auto lines = ParseLabelledLines(
      "1: port 4001\n 0: port 4000\n10: port 4010\nsrun: warning\n0: ready\n2: port 40");
  EXPECT_EQ(lines[0], (std::vector<std::string>{"port 4000", "ready"}));
  EXPECT_EQ(lines[1], (std::vector<std::string>{"port 4001"}));
  EXPECT_EQ(lines[10], (std::vector<std::string>{"port 4010"}));
  EXPECT_EQ(lines.count(2), 0u) << "a line without its newline is still being written";
  EXPECT_EQ(ReportedPort(lines[0]), 4000);
  EXPECT_EQ(ReportedPort({}), -1);
  EXPECT_EQ(ReportedPort({"port x"}), -1);
  EXPECT_EQ(ReportedPort({"port 70000"}), -1);
  EXPECT_EQ(ReportedPort({"ready", "port 0"}), 0);
}

// Reads a pipe to its end.
std::string Drain(int fd) {
  std::string text;
  char buf[512];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) text.append(buf, static_cast<std::size_t>(n));
  close(fd);
  return text;
}

// Runs the wrapper the way srun would, with a fake pschedd that prints its arguments on
// the report fd (3) and a line on its stdout: what reaches the task's stdout is what
// pschedd would have been given; its own stdout must land on stderr.
std::string RunWrapper(const std::vector<std::pair<std::string, std::string>>& env) {
  int out[2], err[2];
  EXPECT_EQ(pipe(out), 0);
  EXPECT_EQ(pipe(err), 0);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], 1);
    dup2(err[1], 2);
    for (int fd : {out[0], out[1], err[0], err[1]}) close(fd);
    clearenv();
    setenv("PATH", "/usr/bin:/bin", 1);
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    execl("/bin/sh", "sh", "-c", DaemonWrapperScript().c_str(), "/bin/sh", "-c",
          "echo \"$*\" >&3; echo own-stdout", "pschedd", "--nodes", "8",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  std::string text = Drain(out[0]);
  EXPECT_EQ(Drain(err[0]), "own-stdout\n");
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  return text;
}

TEST(DaemonWrapperScript, PicksNodeIndexParentAndHostname) {
  EXPECT_EQ(RunWrapper({{"PSCHED_SLURM_FIRST", "3"},
                        {"PSCHED_SLURM_PARENTS", "10.0.0.1:4001 10.0.0.1:4001 10.0.0.2:4002"},
                        {"SLURM_NODEID", "2"},
                        {"SLURMD_NODENAME", "n6"}}),
            "--nodes 8 --parent 10.0.0.2:4002 --node 5 --hostname n6 --ready-fd 3\n");
}

TEST(DaemonWrapperScript, TheLeaderHasNoParent) {
  EXPECT_EQ(RunWrapper({{"PSCHED_SLURM_FIRST", "0"},
                        {"PSCHED_SLURM_PARENTS", ""},
                        {"SLURM_NODEID", "0"},
                        {"SLURMD_NODENAME", "n1"}}),
            "--nodes 8 --node 0 --hostname n1 --ready-fd 3\n");
}

}  // namespace
}  // namespace psched::slurm
