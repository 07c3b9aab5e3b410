// Turning periodic samples of sessions' processes into per-session state intervals.
//
// Pure: the orchestrator samples /proc (and psched-ctl when it is there) and hands the
// samples in; the report draws the intervals.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "djsb/metrics.hpp"
#include "djsb/results.hpp"

namespace psched::djsb {

// What one sample saw of one session.
struct StateSample {
  int procs = 0;          // psched-stream processes found
  int stopped = 0;        // of which in state T (stopped by a signal)
  std::string cpus;       // union of their Cpus_allowed_list, "0-3,8"
  std::string ctl_state;  // the session's state as psched-ctl reported it, if known
};

// One sampling instant: time relative to the run's start, one sample per session.
struct SampleTick {
  double t = 0;
  std::vector<StateSample> sessions;
};

// Parses a Linux cpu list ("0-3,8,10-11"); malformed pieces are skipped.
std::set<int> ParseCpuList(const std::string& list);

// For each session (times relative to the run's start): "waiting" from submit to begin,
// then from begin to end the sampled state: psched-ctl's when known, else "suspended"
// when every process is stopped, "sidestepped" when its cpus moved from where it sat once
// all its processes were up while another session runs, "overbooked" when it shares cpus
// with another running session, else "running".
// With no samples inside [begin, end] the whole stretch is "running".
std::vector<std::vector<StateInterval>> BuildTimelines(const std::vector<RunTimes>& relative,
                                                       const std::vector<SampleTick>& ticks);

}  // namespace psched::djsb
