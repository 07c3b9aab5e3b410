#include "scheduler/sim/scheduler_spec.hpp"

#include "scheduler/allocator_registry.hpp"
#include "scheduler/allocators/auction/auction.hpp"
#include "scheduler/allocators/ipwindow.hpp"
#include "scheduler/priorities/priority_registry.hpp"
#include "scheduler/sim/best_fit.hpp"

#include <algorithm>

namespace psched::sim {

namespace {

std::string Join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

std::vector<std::string> DisciplineNames() {
  std::vector<std::string> names = {"fcfs", "easy"};
  for (const std::string& a : sched::AllocatorNames()) names.push_back(a);
  return names;
}

std::vector<std::string> PriorityNamesForSim() {
  return sched::prio::PriorityNames();
}

Result<SchedulerSpec> ParseSchedulerSpec(const std::string& name) {
  SchedulerSpec spec;
  spec.name = name;
  const size_t slash = name.find('/');
  const std::string discipline = name.substr(0, slash);
  if (slash != std::string::npos) spec.priority = name.substr(slash + 1);
  if (discipline == "fcfs") {
    spec.discipline = Discipline::kFcfs;
  } else if (discipline == "easy") {
    spec.discipline = Discipline::kEasy;
  } else {
    const auto& allocators = sched::AllocatorNames();
    if (std::find(allocators.begin(), allocators.end(), discipline) == allocators.end()) {
      return Fail(ErrorCode::kInvalidArgument, "unknown scheduler '" + name +
                                                   "' (valid: " + Join(DisciplineNames()) +
                                                   ", optionally /PRIORITY)");
    }
    spec.discipline = Discipline::kAllocator;
    spec.allocator = discipline;
  }
  const std::vector<std::string> priorities = PriorityNamesForSim();
  if (std::find(priorities.begin(), priorities.end(), spec.priority) == priorities.end()) {
    return Fail(ErrorCode::kInvalidArgument, "unknown priority '" + spec.priority +
                                                 "' in scheduler '" + name +
                                                 "' (valid: " + Join(priorities) + ")");
  }
  return spec;
}

void AddSolverCounts(const SchedulerParts& parts, Summary& summary) {
  if (auto* a = dynamic_cast<const sched::auction::AuctionAllocator*>(parts.allocator.get())) {
    summary.solver_rounds = a->solver_rounds();
    summary.solver_timeouts = a->solver_timeouts();
  } else if (auto* w =
                 dynamic_cast<const sched::ipwindow::IpWindowAllocator*>(parts.allocator.get())) {
    summary.solver_rounds = w->solver_rounds();
    summary.solver_timeouts = w->solver_timeouts();
  }
}

Result<std::unique_ptr<SchedulerParts>> BuildScheduler(const SchedulerSpec& spec,
                                                       const sched::AllocatorConfig& allocators,
                                                       const sched::PriorityConfig& priorities) {
  auto parts = std::make_unique<SchedulerParts>();
  SimSetup& setup = parts->setup;
  setup.name = spec.name;
  setup.discipline = spec.discipline;
  setup.history_length = priorities.history_length;
  if (spec.discipline == Discipline::kAllocator) {
    Result<std::unique_ptr<sched::Allocator>> a = sched::MakeAllocator(spec.allocator, allocators);
    if (!a) return Fail(a.error());
    parts->allocator = std::move(*a);
    setup.allocator = parts->allocator.get();
  } else {
    // The scratch belongs to this simulation's selector: one per thread, never shared.
    auto scratch = std::make_shared<sched::BestFitScratch>();
    setup.select = [scratch](std::span<const sched::Node> nodes, const sched::SessionRequest& r) {
      return sched::PlaceBestFit(nodes, r, scratch.get());
    };
    setup.best_fit = true;
    setup.fits = [scratch](std::span<const sched::Node> nodes, int free_slots,
                           const sched::SessionRequest& r) {
      return sched::BestFitFits(nodes, free_slots, r, scratch.get());
    };
  }
  // fcfs in front of a queue discipline is arrival order: no need to compute it. Window
  // allocators weigh jobs by request.priority, so they always get the module's values.
  if (spec.priority != "fcfs" || spec.discipline == Discipline::kAllocator) {
    auto module = sched::prio::MakePriority(spec.priority, priorities);
    if (!module) return Fail(module.error());
    std::shared_ptr<sched::prio::PriorityModule> shared = std::move(*module);
    parts->priority_module = shared;
    setup.priority_ages = shared->Ages();
    setup.priority = [shared](const sched::SessionRequest& r, std::span<const OwnerJob> history,
                              double now) { return shared->Priority(r, history, now); };
  }
  return parts;
}

}  // namespace psched::sim
