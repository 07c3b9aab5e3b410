// PMI-2 clients (Slurm's libpmi2, the library Intel MPI and MPICH builds
// --with-pmi=slurm/pmi2 load) started by psched-exec in emulated allocations: the
// same PMI_FD as PMI-1, the client's init decides which protocol the connection speaks,
// kvs-fence is PMI-1's barrier over the daemon tree.
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

const std::vector<std::string> kFourNodes = {"-N", "4", "--topology", "pack:1 core:4 pu:1"};

// 8 ranks over 4 nodes, under --mpi pmi2 and under auto (no option): PMI2_Init,
// Job_GetId, KVS_Put (a value with ';'), a node attribute put by each node's first rank
// and waited for by the other, KVS_Fence across the nodes, KVS_Get of every rank's key,
// the process mapping as a job attribute, Finalize. Under --mpi pmi1 the PMI-2 client is
// refused at its init; under none it has no PMI_FD, so libpmi2 makes it a singleton
// without a job id.
TEST(Pmi2Daemon, PutFenceGetAcrossFourNodes) {
  auto o = InAllocation(kFourNodes,
                        "psched-exec -n 8 --ppn 2 --mpi pmi2 pmi2_exchange; echo pmi2=$?; "
                        "psched-exec -n 8 --ppn 2 pmi2_exchange; echo auto=$?; "
                        "psched-exec -n 1 --mpi pmi1 pmi2_exchange; echo pmi1=$?; "
                        "psched-exec -n 1 --mpi none pmi2_exchange; echo none=$?");
  EXPECT_NE(o.out.find("pmi2=0"), std::string::npos) << o.out << o.err;
  EXPECT_NE(o.out.find("auto=0"), std::string::npos) << o.out << o.err;
  EXPECT_EQ(Count(o.out, "of 8: got 8 of 8 keys: pmi2 exchange ok"), 16) << o.out << o.err;
  EXPECT_EQ(Count(o.out, "mapping (vector,(0,4,2)) node leader rank"), 16) << o.out;
  for (int rank = 0; rank < 8; ++rank) {
    const std::string leader = "rank" + std::to_string(rank - rank % 2);
    EXPECT_EQ(Count(o.out, "rank " + std::to_string(rank) + " job psched."), 2) << o.out;
    const size_t at = o.out.find("rank " + std::to_string(rank) + " job ");
    ASSERT_NE(at, std::string::npos);
    EXPECT_EQ(o.out.substr(o.out.find("node leader ", at) + 12, leader.size()), leader) << o.out;
  }
  EXPECT_EQ(o.out.find("rank 0: get"), std::string::npos) << o.out;
  EXPECT_EQ(o.err.find("a missing key was found"), std::string::npos) << o.err;
  EXPECT_NE(o.out.find("pmi1=2"), std::string::npos) << o.out << o.err;
  EXPECT_NE(o.err.find("PMI2_Init failed"), std::string::npos) << o.err;
  EXPECT_NE(o.out.find("none=3"), std::string::npos) << o.out << o.err;
}

// PMI2_Abort in one rank ends the session on every node with its message and status 1,
// while the other ranks wait in a fence; the daemons serve the next session.
TEST(Pmi2Daemon, AbortEndsTheSessionWithItsMessage) {
  auto o = InAllocation(kFourNodes,
                        "psched-exec -n 4 --ppn 1 pmi2_exchange abort; echo first=$?; "
                        "psched-exec -n 2 --ppn 1 --mpi pmi2 pmi2_exchange");
  EXPECT_NE(o.out.find("first=1"), std::string::npos) << o.out << o.err;
  EXPECT_NE(o.err.find("called MPI_Abort (PMI-2 abort) with status 1: rank 1 gave up on its input"),
            std::string::npos)
      << o.err;
  EXPECT_EQ(Count(o.out, "passed the fence"), 0) << o.out;
  EXPECT_EQ(Count(o.out, "of 2: got 2 of 2 keys: pmi2 exchange ok"), 2) << o.out << o.err;
}

}  // namespace
