// auction: AUCSCHED (Soner & Özturan), a window of waiting sessions bidding for nodes.
//
// Bids come from bids.hpp. The winner determination is the paper's integer program,
// solved with CBC under an elapsed-time limit from a greedy warm start:
//   max  sum_j sum_{c in B_j} (P_j + alpha F_jc) b_jc,  alpha = P_min / (|B| + 1)   (1)(10)
//   (2) sum_c b_jc <= 1
//   (3) the selected class c of job j gets exactly R_jc^node of its nodes N_c:
//       sum_{n in N_c} u_jn >= R_jc^node b_jc, sum_n u_jn = sum_c R_jc^node b_jc and
//       u_jn <= sum_{c in C_jn} b_jc. (The paper writes one equality per class; with
//       overlapping classes of one job, as A and B windows are, that literal form would
//       bar job j from every node of every class it did not select. This is the
//       equality for the selected class, which is what the paper means.)
//   (4) sum_n (u_jn + r_jn) = sum_c b_jc R_j^cpu
//   (5) sum_j T_j (u_jn + r_jn) <= A_n^cpu      (T_j = slots per rank; 1 in the paper)
//   (6) sum_j u_jn R_j^gpu <= A_n^gpu
//   (7) 0 <= r_jn <= u_jn min(A_n^cpu / T_j - 1, R_j^cpu - 1)   (and --ppn - 1)
//   (8) u_jn + r_jn = R_j^cpn u_jn for type-3 jobs (for the nodes the job gets).
// When the solver finds nothing beyond the warm start in time, the greedy solution is
// used and the bid cap is cut by 1.5x for the next round (restored after a round the
// solver proves optimal).
#pragma once

#include <atomic>
#include <string>

#include "scheduler/allocator.hpp"
#include "scheduler/allocators/auction/bids.hpp"
#include "scheduler/allocators/mip.hpp"
#include "scheduler/config.hpp"

namespace psched::sched::auction {

// Per job: the bid it won, and ranks per node index.
struct Award {
  int job = 0;
  int bid = 0;
  std::vector<std::pair<int, int>> shares;  // (node index, ranks)
};

struct Outcome {
  std::vector<Bid> bids;
  std::vector<Award> awards;  // the decision (solver's, or greedy on fallback)
  std::vector<Award> greedy;  // the warm start
  mip::Status status = mip::Status::kNoSolution;
  double objective = 0;  // of the decision, equation (1)
  double greedy_objective = 0;
  double alpha = 0;
  bool fell_back = false;  // the greedy solution was used
  bool solved = false;     // CBC ran (there were bids)
  bool timed_out = false;  // CBC stopped at its time limit (with or without a better solution)
  int next_bid_cap = 0;    // bids per job for the next round
};

// One auction round over `free` nodes (in the 1-D order) for `jobs` (window order),
// with at most `bid_cap` bids per job.
Outcome RunAuction(std::span<const Job> jobs, std::span<const NodeFree> free,
                   const AuctionConfig& config, int bid_cap);

class AuctionAllocator : public Allocator {
 public:
  explicit AuctionAllocator(const AuctionConfig& config)
      : config_(config), bid_cap_(config.max_bids_per_job) {}
  std::string_view name() const override { return "auction"; }
  bool decides_window() const override { return true; }
  // Decides over the first config.window sessions of `window` at once.
  std::vector<Assignment> Allocate(const Snapshot& snapshot,
                                   std::span<const SessionRequest> window) const override;
  int bid_cap() const { return bid_cap_.load(); }
  // Rounds in which CBC ran, and those in which it hit its time limit (for psched-sim's
  // summaries: a timed-out round decides on an unproven, often greedy, solution).
  long solver_rounds() const { return solver_rounds_.load(); }
  long solver_timeouts() const { return solver_timeouts_.load(); }

 private:
  AuctionConfig config_;
  // The one piece of state the paper carries between rounds: the bid cap after a
  // time-out. Allocate() is otherwise a function of its inputs.
  mutable std::atomic<int> bid_cap_;
  mutable std::atomic<long> solver_rounds_{0}, solver_timeouts_{0};
};

// The free slots/GPUs of a snapshot's nodes, in node order.
std::vector<NodeFree> FreeOf(const std::vector<Node>& nodes);

}  // namespace psched::sched::auction
