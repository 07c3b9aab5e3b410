// ipwindow: IPSCHED (Soner & Özturan), a window of waiting sessions placed at once by
// the paper's integer program, solved with CBC (a true integer program: the authors'
// CPLEX path only ever solved the LP relaxation):
//   max  sum_j p_j (s_j - c_j)
//   (1) sum_j T_j x_ij <= R_i          x_ij ranks of j on node i, T_j slots per rank
//   (2) sum_i x_ij = r_j s_j
//   (3) sum_j g_j t_ij <= G_i          g_j GPUs per node
//   (4) c_j = sum_i t_ij / (2N)        node packing
//   (5) N_min,j s_j <= 2N c_j <= N_max,j s_j   (the paper's bounds, applied to
//       selected jobs: an unselected job has no nodes)
//   (6) t_ij = 1 iff x_ij > 0:  t_ij <= x_ij <= min(R_i / T_j, r_j, ppn) t_ij
// N_min = N_max = -N when given, else 1 and N. A greedy best fit is the warm start.
// When the time limit passes without a proven optimum, the window is halved for the
// next round (the paper's rule); a round solved to optimality doubles it back, up to
// the configured size. Unlike the paper, which starts nothing in a round that timed
// out, the best solution known is started: at the paper's own scale (1024 nodes) the
// packing term c_j keeps CBC from proving optimality within seconds, and starting
// nothing would leave the machine idle round after round. The IP knows no contiguity
// (IPSCHED has none): a session asking for one block of neighbouring nodes that the IP
// put on nodes apart gets compact's block on what is left, or waits.
#pragma once

#include <atomic>

#include "scheduler/allocator.hpp"
#include "scheduler/allocators/mip.hpp"
#include "scheduler/config.hpp"

namespace psched::sched::ipwindow {

struct Outcome {
  std::vector<std::vector<std::pair<int, int>>> shares;  // per window job: (node index, ranks)
  std::vector<bool> selected;                            // s_j
  mip::Status status = mip::Status::kNoSolution;
  double objective = 0;
  bool timed_out = false;  // no proven optimum in time: the window halves
  bool solved = false;     // CBC ran (the window had work for it)
};

// One round over the first `window_size` sessions of `window` (priority order;
// priorities <= 0 are replaced by window order).
Outcome Solve(const std::vector<Node>& nodes, std::span<const SessionRequest> window,
              double time_limit_s, bool cpu_time_limit = false);

class IpWindowAllocator : public Allocator {
 public:
  explicit IpWindowAllocator(const IpWindowConfig& config)
      : config_(config), window_(config.window) {}
  std::string_view name() const override { return "ipwindow"; }
  bool decides_window() const override { return true; }
  std::vector<Assignment> Allocate(const Snapshot& snapshot,
                                   std::span<const SessionRequest> window) const override;
  int window_size() const { return window_.load(); }
  // Rounds in which CBC ran, and those that hit its time limit (psched-sim reports them).
  long solver_rounds() const { return solver_rounds_.load(); }
  long solver_timeouts() const { return solver_timeouts_.load(); }

 private:
  IpWindowConfig config_;
  // The window size the paper carries between rounds (halved after a time-out).
  mutable std::atomic<int> window_;
  mutable std::atomic<long> solver_rounds_{0}, solver_timeouts_{0};
};

}  // namespace psched::sched::ipwindow
