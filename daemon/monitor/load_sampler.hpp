// Samples this node's CPU load and utilisation (/proc/stat over the daemon's own
// CPUs) and memory (/proc/meminfo), keeping 1/5/15-minute averages. One read of
// three small files per sample: negligible next to a sample interval of seconds.
#pragma once

#include <vector>

#include "common/error.hpp"
#include "daemon/monitor/averages.hpp"
#include "daemon/monitor/proc_parse.hpp"

namespace psched::daemon::monitor {

class LoadSampler {
 public:
  // `cpus`: OS indices of the node's CPUs (the daemon's affinity).
  explicit LoadSampler(std::vector<int> cpus);

  // Takes one sample at monotonic time `now_s`. The first call only primes the CPU
  // counters (utilisation needs two readings) and reads memory.
  Result<void> Sample(double now_s);

  const Averages& load() const { return load_; }  // busy PUs
  const Averages& utilisation() const { return utilisation_; }
  const MemInfo& memory() const { return memory_; }
  double clock_mhz() const { return clock_mhz_; }

 private:
  std::vector<int> cpus_;
  bool have_times_ = false;
  CpuTimes times_;
  double last_s_ = 0;
  Averages load_, utilisation_;
  MemInfo memory_;
  double clock_mhz_ = 0;
};

}  // namespace psched::daemon::monitor
