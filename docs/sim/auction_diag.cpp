// Scratch diagnostic behind docs/sim/README.md "Why the auction trails EASY": runs the
// auction (or EASY) on a Table 5 workload and, after every auction round, tries best fit
// on what the auction left free for each queued job (window and beyond), counts the
// winning bid types and the window's composition. Not part of the build; compile against
// a configured build tree, e.g.:
//   B=build-sim-rel L=/usr/lib/x86_64-linux-gnu
//   c++ -O2 -std=c++23 -I. docs/sim/auction_diag.cpp -o /tmp/auction_diag \
//     $B/scheduler/sim/libpsched_sim.a $B/scheduler/libpsched_scheduler.a $L/libCbcSolver.so \
//     $L/libCbc.so $L/libCgl.so $L/libOsiClp.so $L/libClpSolver.so $L/libClp.so $L/libOsi.so \
//     $L/libCoinUtils.so -lz -lpthread $B/common/libpsched_common.a
// Usage: auction_diag KIND VERSION SEED [hours] [bids per job] [queue shown to the allocator]
//   (I.3 seed 2: auction_diag 1 3 2). Environment: EASY=1 runs EASY instead (EASY_DEPTH=N:
//   --queue-depth); PRIO_SIZE=W uses P = 1 + PRIO_AGE x age in minutes + W x cores / machine
//   cores instead of fcfs; AUC_WINDOW=N the auction's window; DIAG_VERBOSE=1 lists the jobs.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "scheduler/allocators/auction/auction.hpp"
#include "scheduler/allocators/rank_layout.hpp"
#include "scheduler/sim/best_fit.hpp"
#include "scheduler/sim/generators.hpp"
#include "scheduler/sim/scheduler_spec.hpp"
#include "scheduler/sim/simulator.hpp"

using namespace psched;
using namespace psched::sim;

struct Stats {
  long rounds = 0, rounds_started = 0, started = 0;
  long rounds_left_in_window = 0, left_in_window = 0, left_cores_in_window = 0;
  long rounds_left_beyond = 0, left_beyond = 0;
  long head_left = 0;  // head of queue could start but was not started
  long free_after_sum = 0;
  long window_jobs = 0, window_cores = 0, with_bids = 0, bids = 0, bid_cap_full = 0;
  long won[4] = {0, 0, 0, 0};
};

class Diag : public sched::Allocator {
 public:
  Diag(const sched::AuctionConfig& c, int window)
      : inner_(c), window_(window), cfg_(c), cap_(c.max_bids_per_job) {}
  sched::AuctionConfig cfg_;
  mutable int cap_;
  mutable std::vector<sched::auction::Bid> last_bids_;
  std::string_view name() const override { return "diag"; }
  std::vector<sched::Assignment> Allocate(const sched::Snapshot& snapshot,
                                          std::span<const sched::SessionRequest> q) const override {
    // As AuctionAllocator::Allocate, with statistics.
    const size_t size = std::min(q.size(), static_cast<size_t>(cfg_.window));
    auto part = q.first(size);
    std::vector<sched::auction::Job> jobs = sched::auction::JobsOf(part);
    std::vector<sched::Node> nodes = snapshot.nodes;
    auto o = sched::auction::RunAuction(jobs, sched::auction::FreeOf(nodes), cfg_, cap_);
    cap_ = o.next_bid_cap;
    last_bids_ = o.bids;
    std::vector<sched::Assignment> out;
    std::vector<bool> has_bid(jobs.size(), false);
    for (auto& b : o.bids) has_bid[b.job] = true;
    long wcores = 0;
    for (auto& r : part) wcores += r.SlotsNeeded();
    s.window_jobs += part.size();
    s.window_cores += wcores;
    for (size_t j = 0; j < jobs.size(); ++j) s.with_bids += has_bid[j];
    s.bids += o.bids.size();
    if (o.bids.size() >= 250) ++s.bid_cap_full;
    for (const auto& a : o.awards) {
      ++s.won[static_cast<int>(o.bids[a.bid].type)];
      std::vector<sched::NodeShare> shares;
      for (const auto& [n, ranks] : a.shares) shares.push_back(sched::NodeShare{n, ranks});
      if (auto p = sched::LayRanks(nodes, part[a.job], shares))
        out.push_back(sched::Assignment{part[a.job].id, std::move(*p)});
    }
    ++s.rounds;
    if (!out.empty()) ++s.rounds_started;
    s.started += out.size();
    sched::Snapshot copy = snapshot;
    std::vector<bool> started(q.size(), false);
    for (auto& a : out) {
      for (size_t k = 0; k < q.size(); ++k)
        if (q[k].id == a.session) {
          started[k] = true;
          sched::Plan p;
          p.actions.push_back(sched::StartRanksAction{a.session, a.placement, false});
          sched::ApplyPlan(copy, p, &q[k]);
        }
    }
    bool any_in = false, any_beyond = false;
    for (size_t k = 0; k < q.size(); ++k) {
      if (started[k]) continue;
      auto pl = sched::PlaceBestFit(copy.nodes, q[k]);
      if (!pl) continue;
      if (k == 0 || (k < q.size() && [&] {
            for (size_t i = 0; i < k; ++i)
              if (!started[i]) return false;
            return true;
          }()))
        ++s.head_left;
      if (static_cast<int>(k) < window_) {
        any_in = true;
        ++s.left_in_window;
        s.left_cores_in_window += q[k].SlotsNeeded();
        if (getenv("DIAG_VERBOSE")) {
          int nb = 0;
          for (auto& b : last_bids_) nb += b.job == static_cast<int>(k);
          fprintf(stderr,
                  "t=%.0f round %ld: window job #%zu (id %ld, %d slots, nodes %d, ppn %d, gpus %d, "
                  "contig %d) fits after auction (%zu started); it had %d bids of %zu\n",
                  snapshot.now, s.rounds, k, (long)q[k].id, q[k].SlotsNeeded(), q[k].nodes,
                  q[k].ppn, q[k].gpus_per_node, (int)q[k].contiguous, out.size(), nb,
                  last_bids_.size());
        }
      } else {
        any_beyond = true;
        ++s.left_beyond;
      }
      sched::Plan p;
      p.actions.push_back(sched::StartRanksAction{q[k].id, *pl, false});
      sched::ApplyPlan(copy, p, &q[k]);
    }
    if (any_in) ++s.rounds_left_in_window;
    if (any_beyond) ++s.rounds_left_beyond;
    s.free_after_sum += copy.FreePus();
    return out;
  }
  sched::auction::AuctionAllocator inner_;
  int window_;
  mutable Stats s;
};

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: diag KIND VERSION SEED [hours] [bids] [simwindow]\n");
    return 2;
  }
  AuctionWorkloadSpec spec;
  spec.kind = atoi(argv[1]);
  spec.version = atoi(argv[2]);
  spec.seed = atoi(argv[3]);
  spec.theoretical_runtime_s = (argc > 4 ? atof(argv[4]) : 4) * 3600;
  auto w = MakeAuctionWorkload(spec);
  if (!w) return 1;
  sched::AuctionConfig c;
  c.max_bids_per_job = argc > 5 ? atoi(argv[5]) : 5;
  c.time_limit_s = 5;
  c.cpu_time_limit = true;
  c.window = getenv("AUC_WINDOW") ? atoi(getenv("AUC_WINDOW")) : 100;
  const int simwindow = argc > 6 ? atoi(argv[6]) : 1000;
  Diag d(c, 100);
  const bool easy = getenv("EASY") != nullptr;
  auto spec2 = ParseSchedulerSpec(easy ? "easy" : "auction");
  sched::AllocatorConfig ac;
  sched::PriorityConfig pc;
  auto parts = BuildScheduler(*spec2, ac, pc);
  SimSetup setup = (*parts)->setup;
  if (!easy) setup.allocator = &d;
  if (easy && getenv("EASY_DEPTH")) setup.queue_depth = atoi(getenv("EASY_DEPTH"));
  if (const char* ps = getenv("PRIO_SIZE")) {
    const double size_w = atof(ps);
    const double age_w = getenv("PRIO_AGE") ? atof(getenv("PRIO_AGE")) : 1.0;
    const double total = w->machine.nodes * w->machine.cores_per_node;
    setup.priority = [=](const sched::SessionRequest& r, std::span<const OwnerJob>, double now) {
      return 1.0 + age_w * (now - r.submit_time) / 60.0 + size_w * r.SlotsNeeded() / total;
    };
  }
  setup.window = simwindow;
  auto r = Simulate(*w, setup);
  if (!r) {
    fprintf(stderr, "fail\n");
    return 1;
  }
  auto& st = d.s;
  printf("jobs %zu util %.4f makespan %.0f rounds %ld (with starts %ld) started %ld\n",
         w->jobs.size(), r->summary.utilisation, r->summary.makespan_s, st.rounds,
         st.rounds_started, st.started);
  printf(
      "rounds leaving a window job best fit could start: %ld (jobs %ld, slots %ld); head left "
      "%ld\n",
      st.rounds_left_in_window, st.left_in_window, st.left_cores_in_window, st.head_left);
  printf(
      "rounds leaving a job beyond the window: %ld (jobs %ld); mean free slots after auction+bf "
      "%.1f\n",
      st.rounds_left_beyond, st.left_beyond, double(st.free_after_sum) / st.rounds);
  printf(
      "window: mean jobs %.1f, mean slots/job %.1f, jobs with bids %.1f, bids %.1f, rounds at 250 "
      "bids %ld; won A %ld B %ld C %ld baseline %ld\n",
      double(st.window_jobs) / st.rounds, double(st.window_cores) / st.window_jobs,
      double(st.with_bids) / st.rounds, double(st.bids) / st.rounds, st.bid_cap_full, st.won[0],
      st.won[1], st.won[2], st.won[3]);
  return 0;
}
