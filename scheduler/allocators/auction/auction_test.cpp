#include "scheduler/allocators/auction/auction.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "scheduler/allocator_registry.hpp"
#include "scheduler/allocators/auction/nodesets.hpp"

namespace psched::sched::auction {
namespace {

// Figure 1: 12 nodes with free cores/GPUs 4/1 8/2 2/2 4/0 0/0 4/2 1/2 2/1 2/1 2/0 0/0 4/1,
// and the eight nodesets (1-based in the paper).
TEST(Nodesets, FigureOneAllEightTuples) {
  const std::vector<NodeFree> nodes = {{4, 1}, {8, 2}, {2, 2}, {4, 0}, {0, 0}, {4, 2},
                                       {1, 2}, {2, 1}, {2, 1}, {2, 0}, {0, 0}, {4, 1}};
  std::vector<Nodeset> sets = MakeNodesets(nodes);
  std::vector<Nodeset> one_based;
  one_based.reserve(sets.size());
  for (Nodeset s : sets) one_based.push_back(Nodeset{s.first + 1, s.last + 1, s.cores, s.gpus});
  const std::vector<Nodeset> paper = {
      {1, 4, 18, 0}, {6, 10, 11, 0}, {12, 12, 4, 0},  // 0 GPUs
      {1, 3, 14, 1}, {6, 9, 9, 1},   {12, 12, 4, 1},  // 1 GPU
      {2, 3, 10, 2}, {6, 7, 5, 2},                    // 2 GPUs
  };
  EXPECT_EQ(one_based, paper);
}

TEST(Bids, PreferenceEquationTwelveAndTableThree) {
  // Job type 1: A = 1 - .25 |N_c|/(|N|+1); B = A - .25; C adds k3 = .25 on |S_c|.
  EXPECT_DOUBLE_EQ(Preference(JobType::kCores, BidType::kA, 9, 99, 1, 9), 1 - 0.25 * 9 / 100.0);
  EXPECT_DOUBLE_EQ(Preference(JobType::kCores, BidType::kB, 9, 99, 1, 9),
                   1 - 0.25 - 0.25 * 9 / 100.0);
  EXPECT_DOUBLE_EQ(Preference(JobType::kCores, BidType::kC, 9, 99, 2, 9),
                   1 - 0.5 - 0.25 * 9 / 100.0 - 0.25 * 2 / 10.0);
  // Job types 2 and 3: A = 1, B = .5, C = .5 - .5 |S_c|/(|S|+1).
  for (JobType t : {JobType::kNodesCores, JobType::kNodesPerNode}) {
    EXPECT_DOUBLE_EQ(Preference(t, BidType::kA, 9, 99, 1, 9), 1.0);
    EXPECT_DOUBLE_EQ(Preference(t, BidType::kB, 9, 99, 1, 9), 0.5);
    EXPECT_DOUBLE_EQ(Preference(t, BidType::kC, 9, 99, 3, 9), 0.5 - 0.5 * 3 / 10.0);
  }
  // Baseline ("SLURM") bids: k1 = k2 = k3 = 0.
  EXPECT_DOUBLE_EQ(Preference(JobType::kCores, BidType::kBaseline, 50, 99, 3, 9), 1.0);
  // Equation (11): the ranges A in (3/4, 1), B in (1/2, 3/4), C in (0, 1/2) for type 1.
  for (int nodes = 1; nodes <= 99; nodes += 7) {
    EXPECT_GT(Preference(JobType::kCores, BidType::kA, nodes, 99, 1, 9), 0.75);
    double b = Preference(JobType::kCores, BidType::kB, nodes, 99, 1, 9);
    EXPECT_GT(b, 0.5);
    EXPECT_LT(b, 0.75);
    double c = Preference(JobType::kCores, BidType::kC, nodes, 99, 9, 9);
    EXPECT_GT(c, 0);
    EXPECT_LT(c, 0.5);
  }
}

// The 144-node system of Figure 3: 8 cores and 2 GPUs per node, nodes 65-80 busy.
std::vector<NodeFree> Figure3Nodes() {
  std::vector<NodeFree> nodes(144, NodeFree{8, 2});
  for (int n = 64; n < 80; ++n) nodes[n] = NodeFree{0, 0};
  return nodes;
}

std::vector<Job> Figure3Jobs() {
  std::vector<SessionRequest> r(4);
  for (int i = 0; i < 4; ++i) {
    r[i].id = i + 1;
    r[i].priority = 100 - i;
  }
  r[0].ranks = 512;  // J1: 512 cores
  r[1].nodes = 64;   // J2: 64 nodes x 2 cores, 1 GPU per node
  r[1].ppn = 2;
  r[1].ranks = 128;
  r[1].gpus_per_node = 1;
  r[2].nodes = 64;  // J3: 64 nodes x 4 cores, 2 GPUs per node
  r[2].ppn = 4;
  r[2].ranks = 256;
  r[2].gpus_per_node = 2;
  r[3].nodes = 128;  // J4: 128 nodes x 1 core
  r[3].ppn = 1;
  r[3].ranks = 128;
  return JobsOf(r);
}

std::vector<int> NodesOf(const Award& a) {
  std::vector<int> out;
  out.reserve(a.shares.size());
  for (const auto& s : a.shares) out.push_back(s.first + 1);  // 1-based as the paper
  return out;
}

std::vector<int> Block(int first, int last) {
  std::vector<int> v;
  for (int n = first; n <= last; ++n) v.push_back(n);
  return v;
}

// Section 5's example: all four jobs are allocated, as Figure 4 shows:
// J1 on {1-64, 81-144}, J2 on {1-64}, J3 on {81-144}, J4 on {1-64, 81-144}.
TEST(Auction, Figure3AllFourJobsAllocated) {
  std::vector<Job> jobs = Figure3Jobs();
  EXPECT_EQ(jobs[0].type, JobType::kCores);
  EXPECT_EQ(jobs[1].type, JobType::kNodesPerNode);
  EXPECT_EQ(jobs[3].type, JobType::kNodesPerNode);
  std::vector<NodeFree> free = Figure3Nodes();
  // The paper's nodesets: (1, 64, 512, g) and (81, 144, 512, g) for g = 0, 1, 2.
  std::vector<Nodeset> sets = MakeNodesets(free);
  ASSERT_EQ(sets.size(), 6u);
  for (int g = 0; g < 3; ++g) {
    EXPECT_EQ(sets[2 * static_cast<size_t>(g)], (Nodeset{0, 63, 512, g}));
    EXPECT_EQ(sets[2 * g + 1], (Nodeset{80, 143, 512, g}));
  }
  AuctionConfig config;
  config.time_limit_s = 20;  // a generous bound; it is solved in a fraction of a second
  Outcome o = RunAuction(jobs, free, config, config.max_bids_per_job);
  ASSERT_EQ(o.status, mip::Status::kOptimal);
  ASSERT_EQ(o.awards.size(), 4u);
  const std::vector<int> both = [] {
    auto v = Block(1, 64);
    auto w = Block(81, 144);
    v.insert(v.end(), w.begin(), w.end());
    return v;
  }();
  EXPECT_EQ(NodesOf(o.awards[0]), both);
  EXPECT_EQ(NodesOf(o.awards[1]), Block(1, 64));
  EXPECT_EQ(NodesOf(o.awards[2]), Block(81, 144));
  EXPECT_EQ(NodesOf(o.awards[3]), both);
  for (const auto& [n, ranks] : o.awards[1].shares) EXPECT_EQ(ranks, 2);
  for (const auto& [n, ranks] : o.awards[2].shares) EXPECT_EQ(ranks, 4);
  // J1 takes what is left: 8 - 2 - 1 = 5 cores on 1-64, 8 - 4 - 1 = 3 on 81-144,
  // 512 in all.
  int j1_total = 0;
  for (const auto& [n, ranks] : o.awards[0].shares) {
    EXPECT_EQ(ranks, n < 64 ? 5 : 3) << n;
    j1_total += ranks;
  }
  EXPECT_EQ(j1_total, 512);
  for (const auto& [n, ranks] : o.awards[3].shares) EXPECT_EQ(ranks, 1);
  // J1 won a type C (non-contiguous) bid, J2 and J3 aligned type A (or baseline) bids.
  EXPECT_EQ(o.bids[o.awards[0].bid].type, BidType::kC);
  // One at a time, as SLURM's best fit (the paper's Figure 5), only J1 and J2 start:
  // those are the only jobs with a baseline ("SLURM") bid.
  std::vector<int> baseline_jobs;
  for (const Bid& b : o.bids)
    if (b.type == BidType::kBaseline) baseline_jobs.push_back(b.job);
  EXPECT_EQ(baseline_jobs, (std::vector<int>{0, 1}));
  EXPECT_GE(o.objective, o.greedy_objective - 1e-9);
  // alpha = P_min / (|B| + 1)
  EXPECT_DOUBLE_EQ(o.alpha, 97.0 / (o.bids.size() + 1));
}

// psp+aging saturates at +inf after a long wait; the IP needs finite weights, so the
// window's order stands in for all of them (an inf weight made the objective NaN).
TEST(Auction, SaturatedPrioritiesBecomeWindowOrder) {
  std::vector<SessionRequest> r(3);
  for (int i = 0; i < 3; ++i) {
    r[i].id = i + 1;
    r[i].ranks = 4;
  }
  r[0].priority = HUGE_VAL;
  r[1].priority = 49;
  r[2].priority = 10;
  std::vector<Job> jobs = JobsOf(r);
  EXPECT_EQ(jobs[0].priority, 3);
  EXPECT_EQ(jobs[1].priority, 2);
  EXPECT_EQ(jobs[2].priority, 1);
  std::vector<NodeFree> free(2, NodeFree{4, 0});
  Outcome out = RunAuction(jobs, free, AuctionConfig{}, 15);
  EXPECT_TRUE(std::isfinite(out.greedy_objective));
  EXPECT_TRUE(std::isfinite(out.alpha));
  EXPECT_TRUE(std::isfinite(out.objective));
  EXPECT_EQ(out.awards.size(), 2u);
}

TEST(Auction, BidCapsPerJobAndInTotal) {
  std::vector<NodeFree> free(64, NodeFree{4, 0});
  std::vector<SessionRequest> r(6);
  for (int i = 0; i < 6; ++i) {
    r[i].id = i;
    r[i].ranks = 8;
  }
  std::vector<Job> jobs = JobsOf(r);
  auto bids = GenerateBids(jobs, free, BidLimits{3, 100, true});
  std::vector<int> per_job(6, 0);
  for (const Bid& b : bids) ++per_job[b.job];
  for (int n : per_job) EXPECT_EQ(n, 3);
  for (int j = 0; j < 6; ++j) {  // the cap keeps every job's best-fit bid
    EXPECT_EQ(
        std::count_if(bids.begin(), bids.end(),
                      [&](const Bid& b) { return b.job == j && b.type == BidType::kBaseline; }),
        1)
        << j;
  }
  bids = GenerateBids(jobs, free, BidLimits{15, 20, true});
  EXPECT_EQ(bids.size(), 20u);
}

TEST(Auction, ContiguousJobsGetNoTypeCBids) {
  std::vector<NodeFree> free = {{4, 0}, {0, 0}, {4, 0}, {0, 0}, {4, 0}};
  SessionRequest r;
  r.ranks = 8;
  r.contiguous = true;
  auto bids = GenerateBids(JobsOf(std::span(&r, 1)), free, BidLimits{15, 250, false});
  EXPECT_TRUE(bids.empty());  // no block of 8 free cores exists
  r.contiguous = false;
  bids = GenerateBids(JobsOf(std::span(&r, 1)), free, BidLimits{15, 250, false});
  ASSERT_FALSE(bids.empty());
  for (const Bid& b : bids) EXPECT_EQ(b.type, BidType::kC);
}

TEST(Auction, ContiguousJobsGetNoFragmentedBestFitBid) {
  std::vector<NodeFree> free = {{4, 0}, {0, 0}, {4, 0}, {0, 0}, {4, 0}};
  SessionRequest r;
  r.ranks = 8;
  r.contiguous = true;
  // With baseline (best-fit) bids on, the best fit must not join separate free runs.
  EXPECT_TRUE(GenerateBids(JobsOf(std::span(&r, 1)), free, BidLimits{15, 250, true}).empty());
  r.contiguous = false;
  auto bids = GenerateBids(JobsOf(std::span(&r, 1)), free, BidLimits{15, 250, true});
  EXPECT_TRUE(std::any_of(bids.begin(), bids.end(),
                          [](const Bid& b) { return b.type == BidType::kBaseline; }));
}

// psched's fcfs priorities are ~1e9 (a base minus the submit time). A round CBC solves
// well inside its limit is optimal, not a time-out that cuts the bid cap, although the
// root LP's bound can exceed the optimum by ~1e-6 relative at that scale.
TEST(Auction, FcfsScalePrioritiesSolveToProvenOptimum) {
  std::vector<Job> jobs = Figure3Jobs();
  for (size_t j = 0; j < jobs.size(); ++j) jobs[j].priority = 1e9 - static_cast<double>(j);
  AuctionConfig config;
  config.time_limit_s = 20;
  Outcome o = RunAuction(jobs, Figure3Nodes(), config, config.max_bids_per_job);
  EXPECT_EQ(o.status, mip::Status::kOptimal);
  EXPECT_FALSE(o.timed_out);
  EXPECT_EQ(o.next_bid_cap, config.max_bids_per_job);
  EXPECT_EQ(o.awards.size(), 4u);
}

// Table 8's "contigonly": a job that did not ask for contiguity still gets only
// contiguous bids, and no best-fit bid that joins separate free runs.
TEST(Auction, ContiguousOnlyBidsForJobsThatAllowFragments) {
  std::vector<NodeFree> free = {{4, 0}, {0, 0}, {4, 0}, {0, 0}, {4, 0}, {4, 0}, {4, 0}};
  SessionRequest r;
  r.ranks = 8;
  r.contiguous = false;
  BidLimits limits{15, 250, true, /*contiguous_only=*/true};
  auto bids = GenerateBids(JobsOf(std::span(&r, 1)), free, limits);
  ASSERT_FALSE(bids.empty());
  for (const Bid& b : bids) {
    EXPECT_NE(b.type, BidType::kC);
    for (size_t i = 1; i < b.nodes.size(); ++i) EXPECT_EQ(b.nodes[i], b.nodes[i - 1] + 1);
    EXPECT_GE(b.nodes.front(), 4);  // only nodes 4-6 form a run of 8 free cores
  }
  // Without a contiguous run no bid at all, where the normal mode bids type C.
  free = {{4, 0}, {0, 0}, {4, 0}, {0, 0}, {4, 0}};
  EXPECT_TRUE(GenerateBids(JobsOf(std::span(&r, 1)), free, limits).empty());
  limits.contiguous_only = false;
  EXPECT_FALSE(GenerateBids(JobsOf(std::span(&r, 1)), free, limits).empty());
  // Through the allocator's config: the awarded nodes are one run.
  AuctionConfig config;
  config.contiguous_bids_only = true;
  config.time_limit_s = 20;
  std::vector<NodeFree> two_runs = {{4, 0}, {4, 0}, {0, 0}, {4, 0}, {4, 0}, {4, 0}};
  std::vector<Job> jobs = JobsOf(std::span(&r, 1));
  Outcome o = RunAuction(jobs, two_runs, config, config.max_bids_per_job);
  ASSERT_EQ(o.awards.size(), 1u);
  for (const auto& [n, ranks] : o.awards[0].shares) EXPECT_TRUE(n <= 1 || n >= 3) << n;
  std::vector<int> nodes;
  for (const auto& [n, ranks] : o.awards[0].shares) nodes.push_back(n);
  EXPECT_EQ(nodes.back() - nodes.front() + 1, static_cast<int>(nodes.size()));
}

// Time-out path: a limit too short for the solver to better the warm start. The greedy
// solution is used and the bid cap is cut by 1.5x for the next round.
TEST(Auction, SolverTimeOutFallsBackToGreedyAndCutsBidCap) {
  AuctionConfig config;
  config.time_limit_s = 1e-9;
  Outcome o = RunAuction(Figure3Jobs(), Figure3Nodes(), config, 15);
  EXPECT_EQ(o.status, mip::Status::kNoSolution);
  EXPECT_TRUE(o.fell_back);
  EXPECT_EQ(o.next_bid_cap, 10);  // 15 / 1.5
  ASSERT_EQ(o.awards.size(), o.greedy.size());
  for (size_t i = 0; i < o.awards.size(); ++i) EXPECT_EQ(o.awards[i].shares, o.greedy[i].shares);

  // Through the allocator: the cap it carries to the next round shrinks.
  AuctionAllocator alloc(config);
  Snapshot s;
  for (int i = 0; i < 144; ++i)
    s.nodes.push_back(Node::Make(i, "n", NodeTopology::Uniform(1, 8, 1, 2)));
  for (int n = 64; n < 80; ++n) s.nodes[n].uses.assign(8, 1), s.nodes[n].gpus_used = 2;
  std::vector<SessionRequest> window(4);
  window[0].ranks = 512;
  window[1] = SessionRequest{.id = 2, .ranks = 128, .nodes = 64, .ppn = 2, .gpus_per_node = 1};
  window[2] = SessionRequest{.id = 3, .ranks = 256, .nodes = 64, .ppn = 4, .gpus_per_node = 2};
  window[3] = SessionRequest{.id = 4, .ranks = 128, .nodes = 128, .ppn = 1};
  window[0].id = 1;
  auto a = alloc.Allocate(s, window);
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(alloc.bid_cap(), 10);
  alloc.Allocate(s, window);
  EXPECT_EQ(alloc.bid_cap(), 6);
  // psched-sim reports these: both rounds ran CBC and both hit the limit.
  EXPECT_EQ(alloc.solver_rounds(), 2);
  EXPECT_EQ(alloc.solver_timeouts(), 2);
}

// The allocator turns awards into real slot placements, never double-booking a slot
// or a GPU, with threads_per_rank slots per rank on one node.
TEST(Auction, AllocatorPlacementsAreConsistent) {
  Snapshot s;
  for (int i = 0; i < 6; ++i)
    s.nodes.push_back(Node::Make(i, "n", NodeTopology::Uniform(1, 4, 1, 1)));
  std::vector<SessionRequest> w(3);
  w[0] = SessionRequest{.id = 10, .ranks = 4, .threads_per_rank = 2};
  w[1] = SessionRequest{.id = 11, .ranks = 2, .nodes = 2, .ppn = 1, .gpus_per_node = 1};
  w[2] = SessionRequest{.id = 12, .ranks = 6};
  auto made = MakeAllocator("auction");
  ASSERT_TRUE(made);
  auto a = (*made)->Allocate(s, w);
  ASSERT_EQ(a.size(), 3u);
  // A round CBC solves within its (default, 1 s) limit is counted, but not as a time-out.
  const auto* auction = dynamic_cast<const AuctionAllocator*>(made->get());
  ASSERT_NE(auction, nullptr);
  EXPECT_EQ(auction->solver_rounds(), 1);
  EXPECT_EQ(auction->solver_timeouts(), 0);
  std::vector<std::vector<int>> used(6, std::vector<int>(4, 0));
  std::vector<int> gpus(6, 0);
  for (const Assignment& as : a) {
    const SessionRequest& req =
        *std::find_if(w.begin(), w.end(), [&](auto& r) { return r.id == as.session; });
    EXPECT_EQ(static_cast<int>(as.placement.ranks.size()), req.ranks);
    for (const RankSlots& r : as.placement.ranks) {
      EXPECT_EQ(static_cast<int>(r.pus.size()), req.threads_per_rank);
      for (int pu : r.pus) EXPECT_EQ(++used[r.node][pu], 1);
    }
    for (NodeId n : as.placement.Nodes()) gpus[n] += req.gpus_per_node;
  }
  for (int g : gpus) EXPECT_LE(g, 1);
}

}  // namespace
}  // namespace psched::sched::auction
