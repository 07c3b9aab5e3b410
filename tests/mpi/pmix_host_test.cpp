// Real Open MPI programs started through psched's PMIx server host (pmix-test-host):
// wire-up without mpirun, shared-memory locality, abort, and ranks that fail
// during or after MPI_Init. Each case must end with a clean verdict, never hang.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Outcome {
  int exit_code = -1;
  std::string out;  // stdout of the host and its ranks
  std::string err;  // stderr of the host and its ranks
};

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Bin(const std::string& name) {
  return std::string(PSCHED_BIN_DIR) + "/" + name;
}

// Runs pmix-test-host with `args`; output goes to files so a chatty child cannot block.
Outcome RunHost(std::vector<std::string> args) {
  char out_path[] = "/tmp/pmix-host-out-XXXXXX";
  char err_path[] = "/tmp/pmix-host-err-XXXXXX";
  int out_fd = mkstemp(out_path);
  int err_fd = mkstemp(err_path);
  args.insert(args.begin(), Bin("pmix-test-host"));
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(out_fd);
  close(err_fd);
  int status = 0;
  waitpid(pid, &status, 0);
  Outcome o;
  o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  o.out = Slurp(out_path);
  o.err = Slurp(err_path);
  unlink(out_path);
  unlink(err_path);
  return o;
}

int Count(const std::string& hay, const std::string& needle) {
  int n = 0;
  for (size_t pos = hay.find(needle); pos != std::string::npos; pos = hay.find(needle, pos + 1))
    ++n;
  return n;
}

// Open MPI direct-launched by a host whose keys are wrong degrades to singletons
// (size 1) or loses shared memory: each rank checks size, sum and node size.
void ExpectHelloOk(const Outcome& o, int nranks, int sessions = 1) {
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(Count(o.out, "of " + std::to_string(nranks) + ": allreduce"), nranks * sessions)
      << o.out;
  EXPECT_EQ(Count(o.out, " ok\n"), nranks * sessions) << o.out << o.err;
  EXPECT_EQ(Count(o.out, "WRONG"), 0) << o.out;
  EXPECT_NE(o.err.find("node ranks after deregistration: 0"), std::string::npos) << o.err;
}

TEST(PmixHost, HelloAllreduceTwoRanks) {
  ExpectHelloOk(RunHost({"-n", "2", "--", Bin("mpi_hello_allreduce")}), 2);
}

TEST(PmixHost, HelloAllreduceFourRanks) {
  ExpectHelloOk(RunHost({"-n", "4", "--", Bin("mpi_hello_allreduce")}), 4);
}

// Only self and shared memory: without LOCAL_PEERS / LOCAL_SIZE / maps the ranks
// cannot reach each other and MPI_Init or the allreduce fails loudly.
TEST(PmixHost, SharedMemoryOnlyNeedsLocalityKeys) {
  ExpectHelloOk(
      RunHost({"-n", "3", "--setenv", "OMPI_MCA_btl=self,vader", "--", Bin("mpi_hello_allreduce")}),
      3);
}

// Two sessions registered at once on one server: distinct namespaces and node
// ranks; both complete and every node rank is released afterwards.
TEST(PmixHost, TwoConcurrentSessions) {
  auto o = RunHost({"-n", "2", "--sessions", "2", "--setenv", "OMPI_MCA_btl=self,vader", "--",
                    Bin("mpi_hello_allreduce")});
  ExpectHelloOk(o, 2, 2);
  EXPECT_NE(o.err.find("node ranks still held: 4"), std::string::npos) << o.err;
}

// MPI_Publish_name / MPI_Lookup_name (waits for the key) / MPI_Comm_accept /
// MPI_Comm_connect between two sessions registered separately on one server.
TEST(PmixHost, ConnectAcceptBetweenTwoSessions) {
  auto o = RunHost({"-n", "2", "--sessions", "2", "--", Bin("mpi_connect_accept")});
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(Count(o.out, "accept rank"), 2) << o.out;
  EXPECT_EQ(Count(o.out, "connect rank"), 2) << o.out;
  EXPECT_EQ(Count(o.out, "remote size 2, told 2"), 4) << o.out;
}

// The spawn upcall registers a child namespace (PMIX_SPAWNED, PMIX_PARENT_ID) in
// free slots of the universe and the children connect back to their parent.
TEST(PmixHost, SpawnIntoFreeSlots) {
  auto o = RunHost({"-n", "1", "--universe", "3", "--", Bin("mpi_spawn")});
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("parent rank 0: spawned 2 children"), std::string::npos) << o.out << o.err;
  EXPECT_EQ(Count(o.out, "child rank"), 2) << o.out;
}

TEST(PmixHost, SpawnWithoutFreeSlotsFailsClearly) {
  auto o = RunHost({"-n", "1", "--universe", "2", "--", Bin("mpi_spawn")});
  EXPECT_EQ(o.exit_code, 0) << o.err;  // the parent handles the error and finalizes
  EXPECT_NE(o.out.find("parent rank 0: spawn failed"), std::string::npos) << o.out;
  EXPECT_NE(o.err.find("spawn of 2 process(es): only 1 free slot(s) in a universe of 2"),
            std::string::npos)
      << o.err;
  EXPECT_EQ(Count(o.out, "child rank"), 0) << o.out;
}

TEST(PmixHost, AbortReachesHostAndKillsSession) {
  auto o = RunHost({"-n", "3", "--", Bin("mpi_abort")});
  EXPECT_EQ(o.exit_code, 7) << o.err;
  EXPECT_NE(o.err.find("rank 1 called abort with status 7"), std::string::npos) << o.err;
  EXPECT_EQ(Count(o.out, "should never pass"), 0) << o.out;
  EXPECT_NE(o.err.find("rank 0: killed by signal"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("rank 2: killed by signal"), std::string::npos) << o.err;
}

TEST(PmixHost, RankExitingBeforeFinalizeFailsSession) {
  auto o = RunHost({"-n", "3", "--", Bin("mpi_exit_early")});
  EXPECT_EQ(o.exit_code, 1) << o.err;
  EXPECT_NE(o.err.find("rank 1 exited with code 0 before MPI_Finalize; killing the session"),
            std::string::npos)
      << o.err;
  EXPECT_EQ(Count(o.out, "should never pass"), 0) << o.out;
}

TEST(PmixHost, RankKilledDuringInitFailsSessionWithoutHanging) {
  auto o = RunHost({"-n", "3", "--kill-on-connect", "1", "--", Bin("mpi_hello_allreduce")});
  EXPECT_EQ(o.exit_code, 1) << o.err;
  EXPECT_NE(o.err.find("killing rank 1 inside MPI_Init"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("rank 1 killed by signal"), std::string::npos) << o.err;
  EXPECT_EQ(o.err.find("timed out"), std::string::npos) << o.err;
}

TEST(PmixHost, TimeoutKillsHungRanks) {
  auto o = RunHost({"-n", "1", "--timeout", "0.5", "--", "/bin/sleep", "600"});
  EXPECT_EQ(o.exit_code, 124) << o.err;
  EXPECT_NE(o.err.find("timed out"), std::string::npos);
}

TEST(PmixHost, BadInputsAreRefusedClearly) {
  auto missing = RunHost({"-n", "2", "--", "/nonexistent/prog"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("cannot execute '/nonexistent/prog'"), std::string::npos)
      << missing.err;
  auto zero = RunHost({"-n", "0", "--", Bin("mpi_hello_allreduce")});
  EXPECT_EQ(zero.exit_code, 2);
  EXPECT_NE(zero.err.find("--ranks"), std::string::npos) << zero.err;
  auto no_cmd = RunHost({"-n", "2"});
  EXPECT_EQ(no_cmd.exit_code, 2);
  EXPECT_NE(no_cmd.err.find("command is required"), std::string::npos) << no_cmd.err;
  auto small = RunHost({"-n", "2", "--universe", "1", "--", Bin("mpi_hello_allreduce")});
  EXPECT_EQ(small.exit_code, 2);
  EXPECT_NE(small.err.find("--universe 1 is smaller than 2 ranks"), std::string::npos) << small.err;
  auto bad_env = RunHost({"--setenv", "NOVALUE", "--", Bin("mpi_hello_allreduce")});
  EXPECT_EQ(bad_env.exit_code, 2);
  EXPECT_NE(bad_env.err.find("expected NAME=VALUE"), std::string::npos) << bad_env.err;
}

}  // namespace
