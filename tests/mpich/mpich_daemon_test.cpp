// MPICH programs started by psched-exec in emulated allocations (psched-alloc): every
// pschedd serves PMI-1 on a socket pair per rank, barriers cross nodes through the
// daemon tree, PMI_process_mapping follows psched's placement.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/allocation.hpp"
#include "tests/support/process.hpp"
#include "tests/support/text.hpp"

namespace {

using psched::testing::InAllocation;

int Count(const std::string& hay, const std::string& needle) {
  return psched::testing::CountOccurrences(hay, needle);
}

const std::vector<std::string> kTwoNodes = {"-N", "2", "--topology", "pack:1 core:4 pu:1"};
const std::vector<std::string> kFourNodes = {"-N", "4", "--topology", "pack:1 core:4 pu:1"};

// One 4-rank job over 2 emulated nodes, with no option: MPICH's node map comes from
// PMI_process_mapping, so each rank sees the 2 ranks of its own node as its shared
// memory peers (from the host names it would see all 4 on one node).
TEST(MpichDaemon, HelloAllreduceOverTwoNodes) {
  auto o = InAllocation(kTwoNodes, "psched-exec -n 4 --ppn 2 mpich_hello_allreduce");
  EXPECT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_EQ(Count(o.out, "of 4: allreduce 6 node_size 2 ok"), 4) << o.out << o.err;
}

// The wire protocol itself over 4 nodes: each rank puts a key, a barrier crosses the
// daemon tree, every rank gets every key; a malformed line is answered with the reason.
TEST(MpichDaemon, PutBarrierGetAcrossFourNodes) {
  auto o = InAllocation(kFourNodes, "psched-exec -n 8 --ppn 2 --mpi pmi1 pmi_exchange");
  EXPECT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_EQ(Count(o.out, "got 8 of 8 keys: exchange ok"), 8) << o.out << o.err;
  EXPECT_EQ(Count(o.out, "mapping (vector,(0,4,2))"), 8) << o.out;
  EXPECT_EQ(Count(o.out, "malformed reply: cmd=error rc=-1 msg=malformed_command"), 8) << o.out;
}

// hydra's node-local variables, which PSM2/PSM3 and Intel MPI read before MPI_Init: the
// session's ranks on the rank's node and its place among them, as psched placed them.
TEST(MpichDaemon, RanksGetHydrasNodeLocalRankAndCount) {
  auto o = InAllocation(kTwoNodes,
                        "psched-exec -n 4 --ppn 2 --mpi pmi1 sh -c "
                        "'echo rank $PMI_RANK local $MPI_LOCALRANKID of $MPI_LOCALNRANKS'");
  EXPECT_EQ(o.code, 0) << o.out << o.err;
  for (const char* line :
       {"rank 0 local 0 of 2", "rank 1 local 1 of 2", "rank 2 local 0 of 2", "rank 3 local 1 of 2"})
    EXPECT_EQ(Count(o.out, line), 1) << line << "\n" << o.out << o.err;
}

// MPI_Abort in one rank ends the session on both nodes with its status and reason,
// as under mpiexec.hydra; the daemons serve the next session.
TEST(MpichDaemon, AbortEndsTheSessionWithItsStatus) {
  auto o = InAllocation(kTwoNodes,
                        "psched-exec -n 4 --ppn 2 mpich_abort; echo first=$?; "
                        "psched-exec -n 2 --ppn 1 mpich_hello_allreduce");
  EXPECT_NE(o.out.find("first=7"), std::string::npos) << o.out << o.err;
  EXPECT_NE(o.err.find("called MPI_Abort (PMI abort) with status 7"), std::string::npos) << o.err;
  EXPECT_EQ(Count(o.out, "passed the barrier"), 0) << o.out;
  EXPECT_EQ(Count(o.out, "of 2: allreduce 1 node_size 1 ok"), 2) << o.out << o.err;
}

// An MPICH and an Open MPI session side by side in one allocation, both with no
// option (auto serves PMI-1 and PMIx to every rank).
TEST(MpichDaemon, MpichAndOpenMpiSessionsTogether) {
  auto o = InAllocation(kTwoNodes,
                        "psched-exec -n 4 --ppn 2 mpich_hello_allreduce & "
                        "psched-exec -n 4 --ppn 2 mpi_hello_allreduce 2; b=$?; "
                        "wait $!; a=$?; echo codes=$a,$b");
  EXPECT_NE(o.out.find("codes=0,0"), std::string::npos) << o.out << o.err;
  EXPECT_EQ(Count(o.out, "mpich rank"), 4) << o.out << o.err;
  EXPECT_EQ(Count(o.out, "of 4: allreduce 6 node_size 2 ok"), 8) << o.out << o.err;
}

// MPI_UNIVERSE_SIZE is what the allocation can run (its 8 slots), as hydra answers with
// the slots of its hosts, not the session's own size: a program sizes MPI_Comm_spawn by
// it. Under overbook a session wider than the allocation is its own universe. Open MPI
// (PMIX_UNIV_SIZE) gets the same as MPICH (PMI-1's get_universe_size); it got the
// session's size.
TEST(MpichDaemon, UniverseSizeIsTheAllocationsSlots) {
  auto o = InAllocation(kTwoNodes,
                        "psched-exec -n 2 --ppn 1 mpich_universe; "
                        "psched-exec -n 12 --policy overbook mpich_universe; "
                        "psched-exec -n 2 --ppn 1 mpi_universe; "
                        "psched-exec -n 12 --policy overbook mpi_universe");
  EXPECT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_EQ(Count(o.out, "mpich rank"), 14) << o.out << o.err;
  EXPECT_EQ(Count(o.out, "ompi rank"), 14) << o.out << o.err;
  EXPECT_EQ(Count(o.out, "of 2: universe 8"), 4) << o.out << o.err;
  EXPECT_EQ(Count(o.out, "of 12: universe 12"), 24) << o.out << o.err;
}

// MPI_Comm_spawn over PMI-1 goes the leader's way for PMIx spawns: the children are a
// session of their own (PMI_SPAWNED=1) with the parent's preput pairs in their key-value
// space, their output labelled in the parent's launcher; the parent reads one
// spawn_result. Children the allocation can never hold are refused with the reason, and
// the parent's session goes on. A bare client asks, as Debian's MPICH refuses
// MPI_Comm_spawn before it speaks PMI (ch4:ucx, see pmi/README.md).
TEST(MpichDaemon, SpawnOverPmi1StartsChildrenThroughTheLeader) {
  auto o = InAllocation(kTwoNodes,
                        "d=$(mktemp -d); "
                        "psched-exec -n 2 --ppn 1 --mpi pmi1 pmi_spawn 3 $d; echo first=$?; "
                        "psched-exec -n 1 pmi_spawn 40 $d; echo second=$?; rm -rf $d");
  EXPECT_NE(o.out.find("first=0"), std::string::npos) << o.out << o.err;
  EXPECT_EQ(Count(o.out, "parent rank 0: cmd=spawn_result rc=0"), 1) << o.out << o.err;
  EXPECT_EQ(Count(o.out, "of 3 (child, app 0): parent port port-of-psched."), 3) << o.out << o.err;
  EXPECT_EQ(Count(o.out, "[spawned "), 3) << o.out;
  EXPECT_NE(o.out.find("second=0"), std::string::npos) << o.out << o.err;
  EXPECT_NE(o.out.find("parent rank 0: cmd=spawn_result rc=-1 msg=MPI_Comm_spawn_of_40"),
            std::string::npos)
      << o.out << o.err;
  EXPECT_NE(o.err.find("MPI_Comm_spawn of 40 process(es) from session"), std::string::npos)
      << o.err;
}

// MPI_Comm_spawn_multiple over PMI-1 (two mcmd=spawn blocks, one spawn_result): both
// commands' children are one session, numbered command after command, each knowing its
// command by get_appnum, as PMIx's spawn_multiple (proto/comm_spawn). It was refused.
TEST(MpichDaemon, SpawnMultipleOverPmi1IsOneSessionOfEveryCommand) {
  auto o = InAllocation(kTwoNodes,
                        "d=$(mktemp -d); "
                        "psched-exec -n 1 --mpi pmi1 pmi_spawn 2 $d 1; echo code=$?; rm -rf $d");
  EXPECT_NE(o.out.find("code=0"), std::string::npos) << o.out << o.err;
  EXPECT_EQ(Count(o.out, "parent rank 0: cmd=spawn_result rc=0"), 1) << o.out << o.err;
  EXPECT_EQ(Count(o.out, "of 3 (child, app 0): parent port port-of-psched."), 2) << o.out << o.err;
  EXPECT_EQ(Count(o.out, "child rank 2 of 3 (second, app 1): parent port port-of-psched."), 1)
      << o.out << o.err;
}

// Each rank discovered the topology itself in MPI_Init (hwloc reading every PCI device's
// config space: half of a 2-rank hello's MPI_Init here); the daemon now discovers it once
// and PMI ranks load it as XML (HWLOC_XMLFILE on an inherited sealed memfd,
// HWLOC_THISSYSTEM=1): the same PUs as the host's own discovery. From that XML a rank's
// hwloc loads none of its plugins (each discovery plugin is excluded when the topology
// comes from XML; the libxml2 importer is not needed for XML hwloc wrote): an MPICH
// rank's MPI_Init says so when asked. A user's HWLOC_ setting stays; a session without
// PMI gets nothing.
TEST(MpichDaemon, RanksGetTheHostTopologyDiscoveredOnce) {
  auto o = InAllocation(
      kTwoNodes,
      "echo host=$(hwloc-calc --number-of pu all); "
      "psched-exec -n 2 --ppn 1 sh -c 'echo xml=$HWLOC_XMLFILE this=$HWLOC_THISSYSTEM "
      "pus=$(hwloc-calc --number-of pu all) head=$(head -c 5 $HWLOC_XMLFILE)'; "
      "psched-exec -n 2 sh -c 'HWLOC_PLUGINS_VERBOSE=1 exec mpich_hello_allreduce'; "
      "psched-exec -n 1 -x HWLOC_XMLFILE=/nonexistent sh -c 'echo user=$HWLOC_XMLFILE'; "
      "psched-exec -n 1 --mpi pmix sh -c 'echo pmix=${HWLOC_XMLFILE:-none}'");
  const size_t at = o.out.find("host=");
  ASSERT_NE(at, std::string::npos) << o.out << o.err;
  const std::string pus = o.out.substr(at + 5, o.out.find('\n', at) - at - 5);
  EXPECT_EQ(Count(o.out, "xml=/proc/self/fd/"), 2) << o.out << o.err;
  EXPECT_EQ(Count(o.out, "this=1 pus=" + pus + " head=<?xml"), 2) << o.out << o.err;
  EXPECT_EQ(Count(o.out, "of 2: allreduce 1 node_size 2 ok"), 2) << o.out << o.err;
  // hwloc says "Plugin descriptor `NAME' ready" for each plugin it loads.
  EXPECT_EQ(o.err.find("' ready"), std::string::npos) << o.err;
  EXPECT_NE(o.out.find("user=/nonexistent"), std::string::npos) << o.out << o.err;
  EXPECT_NE(o.out.find("pmix=none"), std::string::npos) << o.out << o.err;
}

// --mpi none: no PMI for the ranks, so MPICH starts each as a singleton (the old
// behaviour, now only on request); an unknown wire-up is a usage error.
TEST(MpichDaemon, WireUpChoice) {
  auto o = InAllocation(kTwoNodes,
                        "psched-exec -n 2 --ppn 1 --mpi none mpich_hello_allreduce; "
                        "psched-exec -n 2 --mpi pmi3 true; echo bad=$?");
  EXPECT_EQ(Count(o.out, "of 1: allreduce 0 node_size 1 ok"), 2) << o.out << o.err;
  EXPECT_NE(o.out.find("bad=2"), std::string::npos) << o.out;
  EXPECT_NE(o.err.find("unknown MPI wire-up 'pmi3'"), std::string::npos) << o.err;
}

}  // namespace
