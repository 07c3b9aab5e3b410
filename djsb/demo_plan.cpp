#include "djsb/demo_plan.hpp"

#include <algorithm>
#include <cstdint>

namespace psched::djsb {
namespace {

constexpr int kMaxNodes = 4;
constexpr int64_t kDoublesPerSlot = 4'000'000;  // 3 arrays x 32 MB per slot
constexpr int kAnalysisSlotDivisor = 5;         // the paper's 32 of 160 slots

}  // namespace

std::string DemoPlan::Topology() const {
  return "pack:1 core:" + std::to_string(pus_per_node) + " pu:1";
}

DemoPlan PlanDemo(int real_cores) {
  DemoPlan p;
  p.real_cores = std::max(1, real_cores);
  p.nodes = std::min(kMaxNodes, p.real_cores);
  p.pus_per_node = p.real_cores / p.nodes;
  const int slots = p.nodes * p.pus_per_node;
  p.simulation.ranks = p.nodes;
  p.simulation.threads = p.pus_per_node;
  p.simulation.array_size = kDoublesPerSlot * slots;
  const int ana_slots = std::max(1, slots / kAnalysisSlotDivisor);
  p.analysis.ranks = std::min(p.nodes, ana_slots);
  p.analysis.threads = ana_slots / p.analysis.ranks;
  p.analysis.array_size = kDoublesPerSlot * p.analysis.Slots();
  p.sim_target_s = p.real_cores >= 16 ? 20 : 6;
  if (p.pus_per_node < 2) {
    p.note =
        "sidestep is left out: on one-PU nodes the simulation's rank has no other PU of its node "
        "to move to, so psched-exec refuses the analysis under sidestep";
  }
  return p;
}

void ApplyDemoPlan(const DemoPlan& plan, DjsbConfig* config) {
  // Iterations come from the calibration run (sim_target_s); keep the configured ones
  // as the starting point.
  const int sim_iterations = config->simulation.iterations;
  const int ana_iterations = config->analysis.iterations;
  config->simulation = plan.simulation;
  config->analysis = plan.analysis;
  config->simulation.iterations = sim_iterations;
  config->analysis.iterations = ana_iterations;
  config->sim_target_s = plan.sim_target_s;
  if (plan.pus_per_node < 2) std::erase(config->policies, std::string("sidestep"));
}

}  // namespace psched::djsb
