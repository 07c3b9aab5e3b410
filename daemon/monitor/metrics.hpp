// Measurements -> model: what a node reports (proto::MonitorReport) from its
// sampled averages and probes, and what the leader makes of reports in the
// snapshot (sched::NodeMetrics, sched::LinkMetrics) and in `psched-ctl status`.
// Pure.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "daemon/monitor/averages.hpp"
#include "daemon/monitor/proc_parse.hpp"
#include "proto/messages.hpp"
#include "scheduler/model.hpp"

namespace psched::daemon::monitor {

// A probe of one peer: the smallest ping-pong round trip, then `bytes` sent and
// acknowledged in `transfer_s` seconds. The acknowledgement costs one round trip,
// which is taken off before dividing (a transfer faster than a round trip, as on
// loopback with a small probe, is bounded by bytes over half a round trip).
proto::LinkReport LinkFromProbe(int peer, double min_rtt_s, uint64_t bytes, double transfer_s);

// What a node reports: load in busy PUs and utilisation as 1-minute averages (the
// allocators read the 1-minute values), memory as sampled, and the node's
// bandwidth as the mean over its measured links (0 when none yet).
proto::NodeMetricsReport MakeNodeReport(const Averages& load, const Averages& utilisation,
                                        const MemInfo& memory, double clock_mhz,
                                        const std::vector<proto::LinkReport>& links);

sched::NodeMetrics ToNodeMetrics(const proto::NodeMetricsReport& report);
// And back, as psched-ctl status shows a node's metrics.
proto::NodeMetricsReport ToReport(const sched::NodeMetrics& metrics);

// One entry per unordered pair (a < b): O(log L) per measurement, so thousands
// of nodes reporting stay cheap for the leader.
using LinkMap = std::map<std::pair<int, int>, sched::LinkMetrics>;

// Folds the links `node` measured into `links`; the latest measurement from either
// end wins. Returns how many entries changed.
int MergeLinks(LinkMap& links, int node, const std::vector<proto::LinkReport>& measured);

}  // namespace psched::daemon::monitor
