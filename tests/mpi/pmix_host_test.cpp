// Real Open MPI programs started through psched's PMIx server host (pmix-test-host):
// wire-up without mpirun, shared-memory locality, abort, and ranks that fail
// during or after MPI_Init. Each case must end with a clean verdict, never hang.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/process.hpp"
#include "tests/support/text.hpp"

namespace {

using psched::testing::Bin;
using psched::testing::RunResult;

// Runs pmix-test-host with `args`.
RunResult RunHost(std::vector<std::string> args) {
  args.insert(args.begin(), Bin("pmix-test-host"));
  return psched::testing::RunCmd(args, {}, "", 120);
}

int Count(const std::string& hay, const std::string& needle) {
  return psched::testing::CountOccurrences(hay, needle);
}

// Open MPI direct-launched by a host whose keys are wrong degrades to singletons
// (size 1) or loses shared memory: each rank checks size, sum and node size.
void ExpectHelloOk(const RunResult& o, int nranks, int sessions = 1) {
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(Count(o.out, "of " + std::to_string(nranks) + ": allreduce"), nranks * sessions)
      << o.out;
  EXPECT_EQ(Count(o.out, " ok\n"), nranks * sessions) << o.out << o.err;
  EXPECT_EQ(Count(o.out, "WRONG"), 0) << o.out;
  EXPECT_NE(o.err.find("node ranks after deregistration: 0"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("namespaces quarantined: 0"), std::string::npos) << o.err;
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
// A session of two apps (2 + 1 ranks, as MPI_Comm_spawn_multiple makes): each rank's
// MPI_APPNUM is its app, in one MPI_COMM_WORLD.
TEST(PmixHost, AppsGiveEachRankItsMpiAppnum) {
  auto r = RunHost({"-n", "3", "--apps", "2,1", "--", Bin("mpi_appnum")});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("rank 0 of 3: appnum 0 (allreduce 3)"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find("rank 1 of 3: appnum 0 (allreduce 3)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rank 2 of 3: appnum 1 (allreduce 3)"), std::string::npos) << r.out;
}

// Without apps a session is one app: MPI_APPNUM is 0 everywhere.
TEST(PmixHost, OneAppByDefault) {
  auto r = RunHost({"-n", "2", "--", Bin("mpi_appnum")});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("rank 1 of 2: appnum 0 (allreduce 1)"), std::string::npos) << r.out << r.err;
}

// Apps that do not add up to the job: the registration is refused with the reason.
TEST(PmixHost, AppsNotCoveringTheJobAreRefused) {
  auto r = RunHost({"-n", "3", "--apps", "1,1", "--", Bin("mpi_appnum")});
  EXPECT_NE(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("apps hold 2 ranks, the job has 3"), std::string::npos) << r.err;
}

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
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(Count(o.out, "accept rank"), 2) << o.out;
  EXPECT_EQ(Count(o.out, "connect rank"), 2) << o.out;
  EXPECT_EQ(Count(o.out, "remote size 2, told 2"), 4) << o.out;
}

// The spawn upcall registers a child namespace (PMIX_SPAWNED, PMIX_PARENT_ID) in
// free slots of the universe and the children connect back to their parent.
TEST(PmixHost, SpawnIntoFreeSlots) {
  auto o = RunHost({"-n", "1", "--universe", "3", "--", Bin("mpi_spawn")});
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("parent rank 0: spawned 2 children"), std::string::npos) << o.out << o.err;
  EXPECT_EQ(Count(o.out, "child rank"), 2) << o.out;
}

TEST(PmixHost, SpawnWithoutFreeSlotsFailsClearly) {
  auto o = RunHost({"-n", "1", "--universe", "2", "--", Bin("mpi_spawn")});
  EXPECT_EQ(o.code, 0) << o.err;  // the parent handles the error and finalizes
  EXPECT_NE(o.out.find("parent rank 0: spawn failed"), std::string::npos) << o.out;
  EXPECT_NE(o.err.find("spawn of 2 process(es): only 1 free slot(s) in a universe of 2"),
            std::string::npos)
      << o.err;
  EXPECT_EQ(Count(o.out, "child rank"), 0) << o.out;
}

TEST(PmixHost, AbortReachesHostAndKillsSession) {
  auto o = RunHost({"-n", "3", "--", Bin("mpi_abort")});
  EXPECT_EQ(o.code, 7) << o.err;
  EXPECT_NE(o.err.find("rank 1 called abort with status 7"), std::string::npos) << o.err;
  EXPECT_EQ(Count(o.out, "should never pass"), 0) << o.out;
  EXPECT_NE(o.err.find("rank 0: killed by signal"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("rank 2: killed by signal"), std::string::npos) << o.err;
  // Every rank had connected (MPI_Abort comes after MPI_Init): killed, but not inside
  // PMIx's handshake, so the namespace is purged as usual.
  EXPECT_NE(o.err.find("namespaces quarantined: 0"), std::string::npos) << o.err;
}

TEST(PmixHost, RankExitingBeforeFinalizeFailsSession) {
  auto o = RunHost({"-n", "3", "--", Bin("mpi_exit_early")});
  EXPECT_EQ(o.code, 1) << o.err;
  EXPECT_NE(o.err.find("rank 1 exited with code 0 before MPI_Finalize; killing the session"),
            std::string::npos)
      << o.err;
  EXPECT_EQ(Count(o.out, "should never pass"), 0) << o.out;
}

TEST(PmixHost, RankKilledDuringInitFailsSessionWithoutHanging) {
  auto o = RunHost({"-n", "3", "--kill-on-connect", "1", "--", Bin("mpi_hello_allreduce")});
  EXPECT_EQ(o.code, 1) << o.err;
  EXPECT_NE(o.err.find("killing rank 1 inside MPI_Init"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("rank 1 killed by signal"), std::string::npos) << o.err;
  EXPECT_EQ(o.err.find("timed out"), std::string::npos) << o.err;
}

// The rank is SIGKILLed without ever having connected: for all the server knows it
// died inside PMIx's handshake, where libpmix 4.2.2 double-releases the rank's record,
// so its namespace stays registered (quarantined) instead of being purged.
TEST(PmixHost, TimeoutKillsHungRanks) {
  auto o = RunHost({"-n", "1", "--timeout", "0.5", "--", "/bin/sleep", "600"});
  EXPECT_EQ(o.code, 124) << o.err;
  EXPECT_NE(o.err.find("timed out"), std::string::npos);
  EXPECT_NE(o.err.find("rank 0 was killed before its PMIx handshake completed; namespace"),
            std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find("namespaces quarantined: 1"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("node ranks after deregistration: 0"), std::string::npos) << o.err;
}

// Every rank of session 1 dies (LD_PRELOAD shim) right after sending its connection
// request. When PMIx's handshake writes then fail (usually: "UNREACHABLE ...
// ptl_base_connection_hdlr.c"), libpmix 4.2.2 has double-released the rank's record
// and the namespace must be quarantined; either way session 2 runs and the host ends
// instead of hanging in PMIx (purge or finalize over the freed record).
TEST(PmixHost, ClientDyingInsideHandshakeIsQuarantinedAndHostEnds) {
  auto o =
      RunHost({"-n", "2", "--sessions", "2", "--setenv", "LD_PRELOAD=" + Bin("die_in_handshake.so"),
               "--setenv", "PSCHED_DIE_IN_HANDSHAKE_SESSION=1", "--", Bin("mpi_hello_allreduce")});
  EXPECT_EQ(o.code, 1) << o.err;
  if (o.err.find("ptl_base_connection_hdlr.c") != std::string::npos) {
    EXPECT_NE(o.err.find("namespaces quarantined: 1"), std::string::npos) << o.err;
  }
  EXPECT_NE(o.err.find("session 1 rank 0: killed by signal"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("session 2 rank 0: exited with code 0 (finalized)"), std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find("session 2 rank 1: exited with code 0 (finalized)"), std::string::npos)
      << o.err;
}

// Registration is asynchronous: with PMIx's progress thread blocked while session 2
// registers, the host's loop keeps turning, session 2 alone fails once the
// registration timeout passes, and sessions 1 and 3 run to the end.
TEST(PmixHost, RegistrationPmixNeverAnswersFailsThatSessionOnly) {
  auto o = RunHost({"-n", "2", "--sessions", "3", "--stall-pmix-session", "2", "--register-timeout",
                    "300", "--", Bin("mpi_hello_allreduce")});
  EXPECT_EQ(o.code, 1) << o.err;
  EXPECT_NE(o.err.find("session 2: node 0, session 2: registering PMIx namespace"),
            std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find("no callback from PMIx within 300 ms"), std::string::npos) << o.err;
  EXPECT_EQ(o.err.find("loop turns while PMIx was stalled: 0\n"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("loop turns while PMIx was stalled: "), std::string::npos) << o.err;
  EXPECT_EQ(Count(o.out, "of 2: allreduce 1 node_size 2 ok"), 4) << o.out << o.err;
  EXPECT_NE(o.err.find("session 1 rank 1: exited with code 0 (finalized)"), std::string::npos);
  EXPECT_NE(o.err.find("session 3 rank 1: exited with code 0 (finalized)"), std::string::npos);
  EXPECT_EQ(o.err.find("session 2 rank"), std::string::npos) << o.err;  // never forked
  EXPECT_NE(o.err.find("node ranks after deregistration: 0"), std::string::npos) << o.err;
}

TEST(PmixHost, BadInputsAreRefusedClearly) {
  auto missing = RunHost({"-n", "2", "--", "/nonexistent/prog"});
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("cannot execute '/nonexistent/prog'"), std::string::npos)
      << missing.err;
  auto zero = RunHost({"-n", "0", "--", Bin("mpi_hello_allreduce")});
  EXPECT_EQ(zero.code, 2);
  EXPECT_NE(zero.err.find("--ranks"), std::string::npos) << zero.err;
  auto no_cmd = RunHost({"-n", "2"});
  EXPECT_EQ(no_cmd.code, 2);
  EXPECT_NE(no_cmd.err.find("command is required"), std::string::npos) << no_cmd.err;
  auto small = RunHost({"-n", "2", "--universe", "1", "--", Bin("mpi_hello_allreduce")});
  EXPECT_EQ(small.code, 2);
  EXPECT_NE(small.err.find("--universe 1 is smaller than 2 ranks"), std::string::npos) << small.err;
  auto bad_env = RunHost({"--setenv", "NOVALUE", "--", Bin("mpi_hello_allreduce")});
  EXPECT_EQ(bad_env.code, 2);
  EXPECT_NE(bad_env.err.find("expected NAME=VALUE"), std::string::npos) << bad_env.err;
  auto stall =
      RunHost({"--sessions", "2", "--stall-pmix-session", "3", "--", Bin("mpi_hello_allreduce")});
  EXPECT_EQ(stall.code, 2);
  EXPECT_NE(stall.err.find("--stall-pmix-session 3: there are only 2 sessions"), std::string::npos)
      << stall.err;
  auto timeout = RunHost({"--register-timeout", "0", "--", Bin("mpi_hello_allreduce")});
  EXPECT_EQ(timeout.code, 2);
  EXPECT_NE(timeout.err.find("--register-timeout"), std::string::npos) << timeout.err;
}

}  // namespace
