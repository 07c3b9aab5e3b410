#include "scheduler/sim/generators.hpp"

#include <gtest/gtest.h>

namespace psched::sim {
namespace {

AuctionWorkloadSpec Spec(int kind, int version, uint64_t seed = 1) {
  AuctionWorkloadSpec s;
  s.kind = kind;
  s.version = version;
  s.seed = seed;
  return s;
}

TEST(AuctionGeneratorTest, SeededAndReproducible) {
  auto a = MakeAuctionWorkload(Spec(5, 2, 7));
  auto b = MakeAuctionWorkload(Spec(5, 2, 7));
  auto c = MakeAuctionWorkload(Spec(5, 2, 8));
  ASSERT_TRUE(a && b && c);
  ASSERT_EQ(a->jobs.size(), b->jobs.size());
  for (size_t i = 0; i < a->jobs.size(); ++i) {
    EXPECT_EQ(a->jobs[i].runtime_s, b->jobs[i].runtime_s);
    EXPECT_EQ(a->jobs[i].request.ranks, b->jobs[i].request.ranks);
  }
  EXPECT_NE(TotalWork(*a), TotalWork(*c));
  EXPECT_EQ(a->name, "V.2");
}

TEST(AuctionGeneratorTest, PaperParameters) {
  for (int kind = 1; kind <= 5; ++kind) {
    for (int version = 1; version <= 3; ++version) {
      auto w = MakeAuctionWorkload(Spec(kind, version));
      ASSERT_TRUE(w);
      // Theoretical runtime just past 4 h on 128 x 8 cores.
      const double theo = TotalWork(*w) / w->machine.TotalCores();
      EXPECT_GE(theo, 4 * 3600.0);
      EXPECT_LT(theo, 4 * 3600.0 + 600 * 16 * 8 / 1024.0 + 1);
      int contiguous = 0, gpu1 = 0, gpu2 = 0, nodes = 0;
      for (const SimJob& j : w->jobs) {
        EXPECT_GE(j.runtime_s, 60);
        EXPECT_LE(j.runtime_s, 600);
        EXPECT_EQ(j.request.submit_time, 0);
        contiguous += j.request.contiguous;
        gpu1 += j.request.gpus_per_node == 1;
        gpu2 += j.request.gpus_per_node == 2;
        nodes += j.request.nodes > 0 && j.request.gpus_per_node == 0;
        if (j.request.nodes == 0) {
          EXPECT_EQ(j.request.ranks % 8, 0);  // multiples of a node
        }
      }
      const double n = w->jobs.size();
      if (version == 1) {
        EXPECT_EQ(contiguous, 0);
      }
      if (version == 2) {
        EXPECT_NEAR(contiguous / n, 0.5, 0.08);
      }
      if (version == 3) {
        EXPECT_EQ(contiguous, n);
      }
      if (kind == 1) {
        EXPECT_EQ(nodes + gpu1 + gpu2, 0);
      }
      if (kind == 2) {
        EXPECT_EQ(nodes, n);
      }
      if (kind == 4) {
        EXPECT_NEAR(gpu1 / n, 0.2, 0.06);
        EXPECT_EQ(gpu2, 0);
      }
      if (kind == 5) {
        EXPECT_NEAR(gpu2 / n, 1.0 / 6, 0.06);
      }
    }
  }
}

// "The number of CPUs a job requests is multiples of the CPUs per node": GPU and node jobs
// spread k x 8 cores at their per-node count, so GPU jobs need 2-8x more GPUs than nodes'
// worth of cores, which is what makes workload V GPU-bound (docs/sim/README.md).
TEST(AuctionGeneratorTest, EveryJobAsksForWholeNodesOfCores) {
  auto w = MakeAuctionWorkload(Spec(5, 1, 3));
  ASSERT_TRUE(w);
  int wide_gpu_jobs = 0;
  for (const SimJob& j : w->jobs) {
    const sched::SessionRequest& r = j.request;
    EXPECT_EQ(r.ranks % 8, 0) << "job " << r.id;
    EXPECT_LE(r.ranks, 16 * 8);
    if (r.gpus_per_node > 0) {
      EXPECT_EQ(r.ranks, r.nodes * r.ppn);
      EXPECT_TRUE(r.ppn == r.gpus_per_node || r.ppn == 2 * r.gpus_per_node) << "job " << r.id;
      wide_gpu_jobs += r.nodes > 16;
    }
  }
  EXPECT_GT(wide_gpu_jobs, 0);  // e.g. 128 cores at 1 core per node: 128 nodes

  AuctionWorkloadSpec by_nodes = Spec(5, 1, 3);
  by_nodes.sizing = AuctionJobSizing::kByNodes;
  auto old = MakeAuctionWorkload(by_nodes);
  ASSERT_TRUE(old);
  for (const SimJob& j : old->jobs) EXPECT_LE(j.request.nodes, 16);
}

TEST(AuctionGeneratorTest, BadSpecs) {
  EXPECT_FALSE(MakeAuctionWorkload(Spec(6, 1)));
  EXPECT_FALSE(MakeAuctionWorkload(Spec(1, 4)));
  EXPECT_FALSE(AuctionMachine('X'));
  EXPECT_EQ(AuctionMachine('L')->nodes, 1024);
}

TEST(EspGeneratorTest, TableFourDuplicated) {
  auto w = MakeEspWorkload({});
  ASSERT_TRUE(w);
  // 228 A..M jobs twice plus 2 Z jobs (the paper's 458), 6.06 h of theoretical runtime.
  EXPECT_EQ(w->jobs.size(), 458u);
  const double theo = TotalWork(*w) / w->machine.TotalCores();
  EXPECT_NEAR(theo, 21822, 40);
  int gpu = 0, at_zero = 0, z = 0;
  for (const SimJob& j : w->jobs) {
    gpu += j.request.gpus_per_node == 2;
    at_zero += j.request.submit_time == 0;
    if (j.request.ranks == 8192) {
      ++z;
      EXPECT_GE(j.request.submit_time, 80 * 60);
    }
    EXPECT_EQ(j.request.ranks % 8 == 0, true);  // unmodified sizes are whole nodes
  }
  EXPECT_EQ(gpu, 228);
  EXPECT_EQ(at_zero, 100);
  EXPECT_EQ(z, 2);
}

TEST(EspGeneratorTest, ModifiedSizesJitterByAtMostFour) {
  auto plain = MakeEspWorkload({});
  EspWorkloadSpec spec;
  spec.modified_sizes = true;
  auto mod = MakeEspWorkload(spec);
  ASSERT_TRUE(plain && mod);
  int not_multiple = 0;
  for (const SimJob& j : mod->jobs) {
    not_multiple += j.request.ranks % 8 != 0;
    EXPECT_LE(j.request.ranks, 8192);
  }
  EXPECT_GT(not_multiple, 300);
  EXPECT_NEAR(TotalWork(*mod) / TotalWork(*plain), 1.0, 0.01);
}

}  // namespace
}  // namespace psched::sim
