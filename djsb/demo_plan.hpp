// The README's main job sized from the machine: an emulated allocation whose every
// emulated PU has a real core of its own, the simulation on every slot, the analysis on
// the paper's share of them. Pure: a core count in, a plan out (the caller counts the
// cores with hwloc).
#pragma once

#include <string>

#include "djsb/config.hpp"

namespace psched::djsb {

struct DemoPlan {
  int real_cores = 0;
  int nodes = 0;         // emulated nodes (psched-alloc -N)
  int pus_per_node = 0;  // one PU per real core
  AppConfig simulation;  // every slot: a rank per node, a thread per PU
  AppConfig analysis;    // a fifth of the slots, at least one
  double sim_target_s = 0;
  // Why a policy is left out on this machine, or empty.
  std::string note;

  // psched-alloc --topology for every node.
  std::string Topology() const;
};

// Up to four nodes (the paper's 4 x 40 on 160 cores, 4 x 4 on 16, 2 x 1 on 2). STREAM
// arrays of kDoublesPerSlot doubles per slot (far beyond a core's share of the last-level
// cache). The simulation takes about 20 s alone from 16 cores up; below, 6 s, so that
// the interleaved repeats of five scenarios and their references end within four minutes
// on 2 cores.
DemoPlan PlanDemo(int real_cores);

// The plan's applications and target time, over `config`; drops sidestep from the
// policies when the plan's nodes have a single PU (the note says why).
void ApplyDemoPlan(const DemoPlan& plan, DjsbConfig* config);

}  // namespace psched::djsb
