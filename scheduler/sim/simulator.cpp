#include "scheduler/sim/simulator.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <unordered_map>

#include "scheduler/backfill_rule.hpp"
#include "scheduler/placement.hpp"
#include "scheduler/priorities/owner_histories.hpp"
#include "scheduler/sim/best_fit.hpp"
#include "scheduler/sim/slot_map.hpp"

namespace psched::sim {

namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();
constexpr int kProgressEvery = 20000;

struct End {
  double time;
  int job;
  bool operator>(const End& o) const { return time > o.time || (time == o.time && job > o.job); }
};

// ShapeOf(runs.Nodes()), without listing the nodes.
NodeShape ShapeOf(const SlotRuns& runs) {
  NodeShape shape;
  for (size_t k = 0; k < runs.runs.size(); ++k) {
    shape.nodes += runs.runs[k].end - runs.runs[k].begin;
    if (k == 0 || runs.runs[k].begin != runs.runs[k - 1].end) ++shape.blocks;
  }
  if (shape.nodes > 0) {
    shape.spread =
        static_cast<double>(runs.runs.back().end - runs.runs.front().begin) / shape.nodes;
  }
  return shape;
}

// A job holding slots on the slot counts: its estimated end (start + estimate, never
// without one) and its start's number, the order ScheduleQueue releases holders in.
struct Holder {
  double end;
  long seq;
  int job;
  SlotRuns slots;
};

// ScheduleQueue's rule on the slot counts with best fit (backfill_rule.hpp's QueueState).
// Its starts stay added to `map`.
class SlotQueueState {
 public:
  using Alloc = SlotRuns;
  SlotQueueState(SlotMap& map, const std::vector<Holder>& holders, sched::BestFitScratch& scratch)
      : map_(map), holders_(holders), scratch_(scratch) {}

  int FreeSlots() const { return map_.FreeSlots(); }
  bool HasFits() const { return true; }
  bool Fits(int free, const sched::SessionRequest& r) const {
    return sched::BestFitFits(map_, free, r, &scratch_);
  }
  std::optional<SlotRuns> Place(const sched::SessionRequest& r) const {
    return sched::PlaceBestFit(map_, r, &scratch_);
  }
  int Add(const SlotRuns& a, int delta) { return map_.Add(a, delta); }
  int Slots(const SlotRuns& a) const { return a.slots; }
  int FreeUnder(const SlotRuns& a) const { return map_.FreeUnder(a); }
  // BestFitFits answers these from the free count (ranks <= free slots).
  bool CountsSuffice(const sched::SessionRequest& r) const {
    return r.threads_per_rank <= 1 && r.ppn == 0 && r.gpus_per_node == 0 && r.nodes == 0 &&
           !r.contiguous;
  }
  bool AnySuspended() const { return false; }
  void Holders(double now, sched::HoldersByEnd<SlotRuns>& out) const {
    for (const Holder& h : holders_) out.emplace_back(std::max(h.end, now), &h.slots);
  }

 private:
  SlotMap& map_;
  const std::vector<Holder>& holders_;  // by (end, seq)
  sched::BestFitScratch& scratch_;
};

class Simulation {
 public:
  Simulation(const Workload& w, const SimSetup& setup)
      : w_(w), setup_(setup), histories_(static_cast<size_t>(std::max(setup.history_length, 0))) {}

  Result<SimResult> Run() {
    if (auto ok = Check(); !ok) return Fail(ok.error());
    if (SlotMap::Models(w_.machine.cores_per_node)) {
      empty_slots_.emplace(w_.machine.nodes, w_.machine.cores_per_node, w_.machine.gpus_per_node);
      all_nodes_.resize(w_.machine.nodes);
      for (int i = 0; i < w_.machine.nodes; ++i) all_nodes_[i] = i;
      if (setup_.best_fit && setup_.discipline != Discipline::kAllocator) slots_ = empty_slots_;
    }
    if (!slots_) snapshot_.nodes = MakeNodes(w_.machine);
    if (!empty_slots_) empty_nodes_ = MakeNodes(w_.machine);
    const int n = static_cast<int>(w_.jobs.size());
    records_.resize(n);
    for (int j = 0; j < n; ++j) index_of_[w_.jobs[j].request.id] = j;
    size_t next_arrival = 0;
    double next_round = kNever;
    while (next_arrival < w_.jobs.size() || !ends_.empty() || next_round < kNever) {
      double t = next_round;
      if (next_arrival < w_.jobs.size()) t = std::min(t, w_.jobs[next_arrival].request.submit_time);
      if (!ends_.empty()) t = std::min(t, ends_.top().time);
      snapshot_.now = t;
      bool changed = false;
      while (!ends_.empty() && ends_.top().time <= t) {
        Finish(ends_.top().job);
        ends_.pop();
        changed = true;
      }
      while (next_arrival < w_.jobs.size() && w_.jobs[next_arrival].request.submit_time <= t) {
        Arrive(static_cast<int>(next_arrival++));
        changed = true;
      }
      if (changed && !queue_.empty()) next_round = std::min(next_round, RoundTime(t));
      if (next_round <= t) {
        next_round = kNever;
        if (auto ok = Round(); !ok) return Fail(ok.error());
        // Aging can reorder the queue before the next event: a job may overtake the head.
        // (While something runs: a queue nothing can start would otherwise never end.)
        if (setup_.priority_ages && setup_.interval_s > 0 && !queue_.empty() && !ends_.empty())
          next_round = t + setup_.interval_s;
      }
    }
    if (!queue_.empty()) {
      return Fail(ErrorCode::kInternal, std::to_string(queue_.size()) +
                                            " jobs still queued with nothing running (" +
                                            setup_.name + ")");
    }
    SimResult result;
    result.summary = Summarise(records_, w_.machine);
    result.summary.workload = w_.name;
    result.summary.scheduler = setup_.name;
    result.summary.rounds = rounds_;
    result.records = std::move(records_);
    return result;
  }

 private:
  Result<void> Check() const {
    if (w_.machine.nodes <= 0 || w_.machine.cores_per_node <= 0) {
      return Fail(ErrorCode::kInvalidArgument,
                  "machine has " + std::to_string(w_.machine.nodes) + " nodes of " +
                      std::to_string(w_.machine.cores_per_node) + " cores: both must be > 0");
    }
    if (setup_.discipline == Discipline::kAllocator && setup_.allocator == nullptr)
      return Fail(ErrorCode::kInvalidArgument, setup_.name + ": no allocator given");
    if (setup_.discipline != Discipline::kAllocator && !setup_.select)
      return Fail(ErrorCode::kInvalidArgument, setup_.name + ": no node selection given");
    if (setup_.interval_s < 0)
      return Fail(ErrorCode::kInvalidArgument, "scheduling interval must be >= 0");
    if (setup_.queue_depth < 0) {
      return Fail(ErrorCode::kInvalidArgument,
                  "queue depth must be >= 0 (0: the whole queue), got " +
                      std::to_string(setup_.queue_depth));
    }
    for (size_t j = 1; j < w_.jobs.size(); ++j) {
      if (w_.jobs[j].request.submit_time < w_.jobs[j - 1].request.submit_time)
        return Fail(ErrorCode::kInvalidArgument, "workload jobs are not in submit order");
    }
    return {};
  }

  double RoundTime(double t) const {
    if (setup_.interval_s <= 0) return t;
    return std::ceil(t / setup_.interval_s) * setup_.interval_s;
  }

  void Arrive(int j) {
    const SimJob& job = w_.jobs[j];
    JobRecord& r = records_[j];
    r.id = job.request.id;
    r.user = job.user;
    r.cores = job.request.SlotsNeeded();
    r.gpus_per_node = job.request.gpus_per_node;
    r.requested_nodes = job.request.nodes;
    r.contiguous = job.request.contiguous;
    r.submit = job.request.submit_time;
    r.runtime = job.runtime_s;
    r.estimate = job.request.estimate_s;
    r.logged_wait = job.logged_wait_s;
    // A job that does not fit the empty machine would block the queue forever: reject it.
    if (!FitsEmptyMachine(job.request)) return;
    queue_.push_back(j);
    requests_.push_back(job.request);
    // PSP fixes a job's accuracy group at submission (OwnerHistories keeps that view).
    if (setup_.priority) histories_.Submitted(job.request.id, std::to_string(job.user));
  }

  // Whether `request` fits the empty machine, asked once per request shape on slot counts
  // (the empty machine never changes; a placement costs as many steps as the job's nodes).
  bool FitsEmptyMachine(const sched::SessionRequest& request) {
    if (!empty_slots_) return sched::PlaceRanks(empty_nodes_, request).has_value();
    const sched::backfill_rule::Shape shape(request);
    auto it = fits_empty_.find(shape);
    if (it == fits_empty_.end()) {
      it = fits_empty_.emplace(shape, PlaceRanks(*empty_slots_, all_nodes_, request).has_value())
               .first;
    }
    return it->second;
  }

  void Finish(int j) {
    const SimJob& job = w_.jobs[j];
    if (slots_) {
      auto it = std::find_if(holders_.begin(), holders_.end(),
                             [j](const Holder& h) { return h.job == j; });
      slots_->Add(it->slots, -1);
      holders_.erase(it);
    } else {
      sched::RemoveSession(snapshot_, job.request.id);
    }
    records_[j].end = snapshot_.now;
    ++finished_;
    if (setup_.priority) {
      histories_.Finished(job.request.id, std::to_string(job.user), job.request.estimate_s,
                          job.runtime_s);
    }
    if (setup_.progress && finished_ % kProgressEvery == 0)
      setup_.progress(finished_, static_cast<int>(w_.jobs.size()));
  }

  // The queue in priority order: FCFS keeps arrival order; a module reorders (stably).
  void OrderQueue() {
    if (!setup_.priority) return;
    priority_.resize(records_.size());
    for (int j : queue_) {
      priority_[j] = setup_.priority(w_.jobs[j].request,
                                     histories_.AtSubmission(w_.jobs[j].request.id), snapshot_.now);
    }
    std::stable_sort(queue_.begin(), queue_.end(),
                     [&](int a, int b) { return priority_[a] > priority_[b]; });
    for (size_t k = 0; k < queue_.size(); ++k) {
      requests_[k] = w_.jobs[queue_[k]].request;
      requests_[k].priority = priority_[queue_[k]];
    }
  }

  // Records that `session` starts now on nodes of this shape; its job's index.
  Result<int> Started(sched::SessionId session, const NodeShape& shape) {
    auto it = index_of_.find(session);
    if (it == index_of_.end() || records_[it->second].Ran()) {
      return Fail(ErrorCode::kInternal,
                  setup_.name + " started unknown or running session " + std::to_string(session));
    }
    const int j = it->second;
    JobRecord& r = records_[j];
    r.start = snapshot_.now;
    r.nodes_used = shape.nodes;
    r.fragmentation = shape.blocks;
    r.spread = shape.spread;
    const int min_nodes = r.requested_nodes > 0 ? r.requested_nodes
                                                : (r.cores + w_.machine.cores_per_node - 1) /
                                                      w_.machine.cores_per_node;
    r.packing = static_cast<double>(shape.nodes) / std::max(1, min_nodes);
    ends_.push(End{snapshot_.now + w_.jobs[j].runtime_s, j});
    started_.push_back(j);
    return j;
  }

  Result<void> Round() {
    ++rounds_;
    OrderQueue();
    size_t depth = queue_.size();
    if (setup_.discipline == Discipline::kAllocator) {
      depth = std::min<size_t>(depth, std::max(1, setup_.window));
    } else if (setup_.queue_depth > 0) {
      depth = std::min<size_t>(depth, setup_.queue_depth);
    }
    const std::span<const sched::SessionRequest> window(requests_.data(), depth);
    const sched::Backfill backfill =
        setup_.discipline == Discipline::kEasy ? sched::Backfill::kEasy : sched::Backfill::kNone;
    if (slots_) {
      SlotQueueState state(*slots_, holders_, fit_scratch_);
      sched::QueueDecisionOf<SlotRuns> d =
          sched::ScheduleQueueOn(state, snapshot_.now, window, backfill, by_end_);
      for (sched::StartOf<SlotRuns>& a : d.starts) {
        auto started = Started(a.session, ShapeOf(a.alloc));
        if (!started) return Fail(started.error());
        const int j = *started;
        const double est = w_.jobs[j].request.estimate_s;
        Holder h{est > 0 ? snapshot_.now + est : kNever, next_seq_++, j, std::move(a.alloc)};
        auto at = std::upper_bound(holders_.begin(), holders_.end(), h,
                                   [](const Holder& a, const Holder& b) { return a.end < b.end; });
        holders_.insert(at, std::move(h));
      }
    } else {
      std::vector<sched::Assignment> starts;
      if (setup_.discipline == Discipline::kAllocator) {
        starts = setup_.allocator->Allocate(snapshot_, window);
      } else {
        starts = sched::ScheduleQueue(snapshot_, window, backfill, setup_.select, &queue_scratch_,
                                      setup_.fits)
                     .starts;
      }
      for (sched::Assignment& a : starts) {
        auto started = Started(a.session, sim::ShapeOf(a.placement.Nodes()));
        if (!started) return Fail(started.error());
        sched::Plan plan;
        plan.actions.push_back(sched::StartRanksAction{a.session, std::move(a.placement), false});
        sched::ApplyPlan(snapshot_, plan, &w_.jobs[*started].request);
      }
    }
    if (started_.empty()) return {};
    // Drop the started jobs from the queue (and its requests), keeping the order.
    std::sort(started_.begin(), started_.end());
    size_t kept = 0;
    for (size_t k = 0; k < queue_.size(); ++k) {
      if (std::binary_search(started_.begin(), started_.end(), queue_[k])) continue;
      if (kept != k) {
        queue_[kept] = queue_[k];
        requests_[kept] = std::move(requests_[k]);
      }
      ++kept;
    }
    queue_.resize(kept);
    requests_.resize(kept);
    started_.clear();
    return {};
  }

  const Workload& w_;
  const SimSetup& setup_;
  sched::Snapshot snapshot_;
  std::vector<sched::Node> empty_nodes_;  // without slot counts: the empty machine
  std::optional<SlotMap> slots_;          // best fit on slot counts: the machine now
  std::optional<SlotMap> empty_slots_;    // the empty machine, when slot counts model it
  std::vector<int> all_nodes_;            // 0 .. nodes-1
  std::unordered_map<sched::backfill_rule::Shape, bool, sched::backfill_rule::ShapeHash>
      fits_empty_;               // FitsEmptyMachine's answers
  std::vector<Holder> holders_;  // slot counts: running jobs by (end, seq)
  long next_seq_ = 0;
  sched::HoldersByEnd<SlotRuns> by_end_;
  sched::BestFitScratch fit_scratch_;
  std::vector<JobRecord> records_;
  std::unordered_map<sched::SessionId, int> index_of_;
  sched::prio::OwnerHistories histories_;  // owners' finished jobs, each job's view at submission
  std::vector<double> priority_;
  std::vector<int> queue_;  // job indexes, priority order
  std::vector<int> started_;
  sched::QueueScratch queue_scratch_;
  std::vector<sched::SessionRequest> requests_;  // queue_'s requests, same order
  std::priority_queue<End, std::vector<End>, std::greater<End>> ends_;
  long rounds_ = 0;
  int finished_ = 0;
};

}  // namespace

Result<SimResult> Simulate(const Workload& workload, const SimSetup& setup) {
  return Simulation(workload, setup).Run();
}

}  // namespace psched::sim
