#include "scheduler/allocators/ipwindow.hpp"

#include <gtest/gtest.h>

#include "scheduler/allocator_registry.hpp"

namespace psched::sched::ipwindow {
namespace {

std::vector<Node> Machine(int count, int cores, int gpus) {
  std::vector<Node> nodes;
  nodes.reserve(count);
  for (int i = 0; i < count; ++i) {
    nodes.push_back(
        Node::Make(i, "n" + std::to_string(i), NodeTopology::Uniform(1, cores, 1, gpus)));
  }
  return nodes;
}

// Table 1 of the IPSCHED paper: 1024 nodes with 8 cores and 2 GPUs; three 1000 s jobs.
//   J1: srun -n 4096;  J2, J3: srun -N 512 --gres=gpu:2 -n 2048.
std::vector<SessionRequest> TableOne() {
  std::vector<SessionRequest> w(3);
  w[0] = SessionRequest{.id = 1, .ranks = 4096};
  w[1] = SessionRequest{.id = 2, .ranks = 2048, .nodes = 512, .gpus_per_node = 2};
  w[2] = SessionRequest{.id = 3, .ranks = 2048, .nodes = 512, .gpus_per_node = 2};
  for (int j = 0; j < 3; ++j) {
    w[j].estimate_s = 1000;
    w[j].priority = 3 - j;
  }
  return w;
}

// Rounds of an allocator over jobs that each run 1000 s: the makespan.
double Makespan(const Allocator& alloc, Snapshot snapshot, std::vector<SessionRequest> queue) {
  double now = 0;
  while (!queue.empty()) {
    std::vector<Assignment> a = alloc.Allocate(snapshot, queue);
    if (a.empty()) return -1;  // stuck
    Plan plan;
    for (const Assignment& as : a)
      plan.actions.push_back(StartRanksAction{as.session, as.placement});
    for (const Assignment& as : a) {
      auto it = std::find_if(queue.begin(), queue.end(),
                             [&](const SessionRequest& r) { return r.id == as.session; });
      Plan one;
      one.actions.push_back(StartRanksAction{as.session, as.placement});
      ApplyPlan(snapshot, one, &*it);
      queue.erase(it);
    }
    now += 1000;  // every job lasts 1000 s: all end together, free everything
    for (const Assignment& as : a) RemoveSession(snapshot, as.session);
  }
  return now;
}

TEST(IpWindow, TableOneAllThreeTogetherIn1000s) {
  Snapshot s;
  s.nodes = Machine(1024, 8, 2);
  std::vector<SessionRequest> w = TableOne();
  Outcome o = Solve(s.nodes, w, 1);
  EXPECT_EQ(o.selected, (std::vector<bool>{true, true, true}));
  // J2 and J3 on 512 nodes each with their 2 GPUs: disjoint halves of the machine.
  std::vector<int> gpu_owner(1024, 0), cores(1024, 0);
  for (int j = 0; j < 3; ++j) {
    int total = 0;
    for (const auto& [i, ranks] : o.shares[j]) {
      total += ranks;
      cores[i] += ranks;
      if (j > 0) {
        EXPECT_EQ(gpu_owner[i]++, 0) << "node " << i;
      }
    }
    EXPECT_EQ(total, w[j].ranks);
    if (j > 0) {
      EXPECT_EQ(o.shares[j].size(), 512u);
    }
  }
  for (int c : cores) EXPECT_EQ(c, 8);  // the machine is exactly full

  IpWindowConfig config;
  config.time_limit_s = 1;
  IpWindowAllocator ip(config);
  EXPECT_EQ(Makespan(ip, s, w), 1000);
  // One at a time (compact best fit): J1 fills 512 nodes, J2 the other 512, J3 waits.
  auto compact = MakeAllocator("compact");
  ASSERT_TRUE(compact);
  EXPECT_EQ(Makespan(**compact, s, w), 2000);
}

// Node packing: a job that fits on one node is not spread over two.
TEST(IpWindow, PacksOntoFewestNodes) {
  std::vector<Node> nodes = Machine(4, 4, 0);
  nodes[0].uses[0] = 1;  // node 0 has 3 free
  std::vector<SessionRequest> w = {SessionRequest{.id = 1, .ranks = 4, .priority = 1}};
  Outcome o = Solve(nodes, w, 10);
  ASSERT_EQ(o.status, mip::Status::kOptimal);
  ASSERT_TRUE(o.selected[0]);
  ASSERT_EQ(o.shares[0].size(), 1u);
  EXPECT_EQ(o.shares[0][0].second, 4);
  EXPECT_NE(o.shares[0][0].first, 0);
}

// A session that asks for one block of neighbouring nodes gets one: three 4-slot nodes,
// the middle one busy, 8 ranks: nodes 0 and 2 hold them but are apart, so the session
// waits (the IP, which knows no contiguity, put it on 0 and 2); with nodes 2 and 3 free
// as well it goes on a block.
TEST(IpWindow, ContiguousSessionsGetNeighbouringNodesOrWait) {
  auto alloc = *MakeAllocator("ipwindow");
  Snapshot s;
  s.nodes = Machine(3, 4, 0);
  s.nodes[1].uses = {1, 1, 1, 1};
  SessionRequest r{.id = 1, .ranks = 8, .priority = 1};
  r.contiguous = true;
  EXPECT_TRUE(alloc->Allocate(s, std::vector<SessionRequest>{r}).empty());
  s.nodes = Machine(4, 4, 0);
  s.nodes[1].uses = {1, 1, 1, 1};
  auto a = alloc->Allocate(s, std::vector<SessionRequest>{r});
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].placement.Nodes(), (std::vector<NodeId>{2, 3}));
  // Without contiguity nodes 0 and 2 do.
  r.contiguous = false;
  s.nodes = Machine(3, 4, 0);
  s.nodes[1].uses = {1, 1, 1, 1};
  EXPECT_EQ(alloc->Allocate(s, std::vector<SessionRequest>{r}).size(), 1u);
}

TEST(IpWindow, HigherPriorityWinsWhenBothCannotFit) {
  std::vector<Node> nodes = Machine(2, 4, 0);
  std::vector<SessionRequest> w = {SessionRequest{.id = 1, .ranks = 6, .priority = 1},
                                   SessionRequest{.id = 2, .ranks = 6, .priority = 5}};
  Outcome o = Solve(nodes, w, 10);
  ASSERT_EQ(o.status, mip::Status::kOptimal);
  EXPECT_EQ(o.selected, (std::vector<bool>{false, true}));
}

// Time-out path: the window halves for the next round, and the best solution known
// (here the greedy start) is what starts.
TEST(IpWindow, TimeOutHalvesWindow) {
  Snapshot s;
  s.nodes = Machine(64, 8, 2);
  std::vector<SessionRequest> w(8);
  for (int j = 0; j < 8; ++j)
    w[j] = SessionRequest{.id = j + 1, .ranks = 37 + j, .priority = 8.0 - j};
  IpWindowConfig config;
  config.window = 8;
  config.time_limit_s = 1e-9;
  IpWindowAllocator ip(config);
  Outcome o = Solve(s.nodes, w, 1e-9);
  EXPECT_TRUE(o.timed_out);
  EXPECT_FALSE(ip.Allocate(s, w).empty());
  EXPECT_EQ(ip.window_size(), 4);
  ip.Allocate(s, w);
  EXPECT_EQ(ip.window_size(), 2);
  EXPECT_EQ(ip.solver_rounds(), 2);
  EXPECT_EQ(ip.solver_timeouts(), 2);
}

// The simulator's clock: a limit counted in CPU time stops the solver just the same.
TEST(IpWindow, CpuTimeLimitStopsTheSolverToo) {
  std::vector<Node> nodes = Machine(64, 8, 2);
  std::vector<SessionRequest> w(8);
  for (int j = 0; j < 8; ++j)
    w[j] = SessionRequest{.id = j + 1, .ranks = 37 + j, .priority = 8.0 - j};
  EXPECT_TRUE(Solve(nodes, w, 1e-9, /*cpu_time_limit=*/true).timed_out);
  // The other half on an instance CBC proves at once: the 64-node one above takes
  // 40 s of CPU to prove optimal (90 s under ASan), too close to any limit.
  std::vector<Node> small = Machine(2, 4, 0);
  std::vector<SessionRequest> two = {SessionRequest{.id = 1, .ranks = 6, .priority = 1},
                                     SessionRequest{.id = 2, .ranks = 6, .priority = 5}};
  Outcome o = Solve(small, two, 60, /*cpu_time_limit=*/true);
  EXPECT_FALSE(o.timed_out);
  EXPECT_EQ(o.status, mip::Status::kOptimal);
}

TEST(IpWindow, RegistryBuildsIt) {
  auto a = MakeAllocator("ipwindow");
  ASSERT_TRUE(a);
  EXPECT_EQ((*a)->name(), "ipwindow");
}

}  // namespace
}  // namespace psched::sched::ipwindow
