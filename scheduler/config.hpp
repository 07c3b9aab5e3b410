// Tunables of the allocators and priority modules, as plain values.
// Filled from the admin's TOML config by config/ (the loader); defaults are the papers'.
#pragma once

#include <string>

namespace psched::sched {

struct NetloadConfig {
  // Compute-load weights over normalised node attributes: the paper's "Weights for
  // miniMD" table (CPU load .3, utilisation .2, node bandwidth .2, used memory .1,
  // logical cores .1, clock speed .05, total memory .05).
  double w_cpu_load = 0.3;
  double w_cpu_utilisation = 0.2;
  double w_node_bandwidth = 0.2;
  double w_used_memory = 0.1;
  double w_logical_cores = 0.1;
  double w_clock_speed = 0.05;
  double w_total_memory = 0.05;
  // Network-load weights.
  double w_latency = 0.25;
  double w_bandwidth = 0.75;
  // Addition cost alpha*CL(u) + beta*NL(v,u).
  double alpha = 0.3;
  double beta = 0.7;
};

// AUCSCHED's defaults (the authors' plug-in: window 100, 15 bids per job, 250 in all).
struct AuctionConfig {
  int window = 100;  // waiting sessions considered per round
  int max_bids_per_job = 15;
  int max_bids_total = 250;
  double time_limit_s = 1.0;          // CBC time limit per round
  bool cpu_time_limit = false;        // the limit counts CPU, not wall, time (psched-sim)
  bool baseline_bids = true;          // the paper's "SLURM bids": one best-fit bid per job
  bool contiguous_bids_only = false;  // bid as if every job asked for contiguity (Table 8)
  double bid_cap_cut = 1.5;           // after a round without a solver solution, cap /= this
};

// IPSCHED: window of jobs (MAX_JOB_COUNT), halved for the next round after a time-out.
struct IpWindowConfig {
  int window = 50;
  double time_limit_s = 1.0;
  bool cpu_time_limit = false;  // as AuctionConfig's
};

struct AllocatorConfig {
  NetloadConfig netload;
  AuctionConfig auction;
  IpWindowConfig ipwindow;
};

struct PriorityConfig {
  std::string name = "fcfs";  // fcfs | psp | psp+aging | multifactor
  double aging_step_s = 150;
  int history_length = 10;
  // multifactor (SLURM-like age + job size): weight per waiting minute, weight of a
  // whole-machine job, age cap (0: none; SLURM's PriorityMaxAge) and the machine's
  // cores, which the size factor divides by (set by whoever knows the machine).
  double multifactor_age_weight = 1;
  double multifactor_size_weight = 10080;
  double multifactor_max_age_s = 0;
  int machine_cores = 0;
};

}  // namespace psched::sched
