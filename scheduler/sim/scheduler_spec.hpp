// Names of simulated schedulers: "DISCIPLINE[/PRIORITY]".
//   DISCIPLINE: fcfs | easy (queue disciplines, best-fit nodes) or any allocator of
//               scheduler/allocator_registry.hpp (compact, spread, auction, ipwindow, ...),
//               which then decides over a window of the queue each round;
//   PRIORITY:   the queue order (fcfs when left out).
// Builds what Simulate() needs: the allocator and priority objects live in SchedulerParts.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "scheduler/allocator.hpp"
#include "scheduler/config.hpp"
#include "scheduler/sim/simulator.hpp"

namespace psched::sim {

struct SchedulerSpec {
  std::string name;  // as given
  Discipline discipline = Discipline::kEasy;
  std::string allocator;  // kAllocator only
  std::string priority = "fcfs";
};

// Valid disciplines and priorities, for --help and errors.
std::vector<std::string> DisciplineNames();
std::vector<std::string> PriorityNamesForSim();

Result<SchedulerSpec> ParseSchedulerSpec(const std::string& name);

// Owns what a SimSetup points to; one per simulation (nothing shared between threads).
struct SchedulerParts {
  std::unique_ptr<sched::Allocator> allocator;
  std::shared_ptr<void> priority_module;  // keeps the priority module alive
  SimSetup setup;
};

// Copies the solver counters of the parts' allocator (auction, ipwindow) into `summary`;
// leaves them at -1 for schedulers that solve no integer program.
void AddSolverCounts(const SchedulerParts& parts, Summary& summary);

Result<std::unique_ptr<SchedulerParts>> BuildScheduler(const SchedulerSpec& spec,
                                                       const sched::AllocatorConfig& allocators,
                                                       const sched::PriorityConfig& priorities);

}  // namespace psched::sim
