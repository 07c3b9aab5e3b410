// Parsers of the /proc files the load sampler reads. Pure: text in, numbers out,
// so they are tested on fixed texts.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "common/error.hpp"

namespace psched::daemon::monitor {

// Jiffies of one CPU line of /proc/stat: busy = everything but idle and iowait.
struct CpuTimes {
  uint64_t busy = 0, total = 0;
};

// Sums the "cpuN" lines of /proc/stat for the CPUs in `cpus` (OS indices); the
// node's CPUs are its daemon's affinity, so emulated nodes sharing a host each
// see their own CPUs. Fails when a listed CPU has no line.
Result<CpuTimes> ParseProcStat(std::string_view text, const std::vector<int>& cpus);

// Busy fraction (0..1) between two readings; 0 when no time passed.
double Utilisation(const CpuTimes& before, const CpuTimes& after);

struct MemInfo {
  double total_mb = 0, available_mb = 0;
};
// MemTotal and MemAvailable of /proc/meminfo (kB in the file).
Result<MemInfo> ParseMeminfo(std::string_view text);

// The first "cpu MHz" of /proc/cpuinfo; 0 when the kernel does not say (e.g. arm64).
double ParseCpuMhz(std::string_view text);

}  // namespace psched::daemon::monitor
