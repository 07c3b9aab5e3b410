// Bid generation of AUCSCHED (sections 4 and 5).
//
// For each job, over the nodesets of its GPU level: type A bids (contiguous, as few
// nodes as possible, aligned to a nodeset's start or end), type B (contiguous, inside
// a nodeset, the least-contended windows first), type C (unions of neighbouring
// nodesets; only for jobs that did not ask for contiguity), and the paper's "SLURM
// bid": where a one-at-a-time best fit would put the job, given that the jobs ahead of
// it in the window got their best fit. Per job: A, baseline, B, C, capped at
// `max_per_job` (the baseline is always kept); generation stops when `max_total` bids
// exist.
// Preference F (equation 12) with Table 3's constants; baseline bids get F = 1.
#pragma once

#include <span>
#include <vector>

#include "scheduler/allocators/auction/job.hpp"
#include "scheduler/allocators/auction/nodesets.hpp"

namespace psched::sched::auction {

enum class BidType { kA, kB, kC, kBaseline };
const char* BidTypeName(BidType type);

struct Bid {
  int job = 0;  // index into the jobs
  BidType type = BidType::kA;
  std::vector<int> nodes;  // N_c, ascending node indices
  int node_count = 0;      // R_jc^node: how many of N_c the job gets
  int nodesets = 1;        // |S_c|
  double preference = 1;   // F_jc
};

struct BidLimits {
  int max_per_job = 15;
  int max_total = 250;
  bool baseline = true;
  // The paper's "contigonly" runs (Table 8): only contiguous bids (A, B, and a baseline
  // bid only where best fit finds one run), as if every job had asked for contiguity.
  bool contiguous_only = false;
};

// Equation (12): F = 1 - k1 - k2 |N_c| / (|N| + 1) - k3 |S_c| / (|S| + 1), Table 3.
double Preference(JobType job, BidType bid, int bid_nodes, int all_nodes, int bid_nodesets,
                  int all_nodesets);

// One-at-a-time best fit of `job` on `free` (SLURM's linear selection: the smallest
// run of eligible nodes that holds it, from its start; else the largest runs
// combined). Returns ranks per node index (empty when it does not fit).
std::vector<std::pair<int, int>> BestFit(const Job& job, std::span<const NodeFree> free);

// Takes a best-fit result off `free` (slots and GPUs).
void Take(const Job& job, const std::vector<std::pair<int, int>>& shares,
          std::vector<NodeFree>& free);

std::vector<Bid> GenerateBids(std::span<const Job> jobs, std::span<const NodeFree> free,
                              const BidLimits& limits);

}  // namespace psched::sched::auction
