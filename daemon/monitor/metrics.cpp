#include "daemon/monitor/metrics.hpp"

#include <algorithm>

namespace psched::daemon::monitor {

proto::LinkReport LinkFromProbe(int peer, double min_rtt_s, uint64_t bytes, double transfer_s) {
  proto::LinkReport link;
  link.peer = peer;
  link.latency_us = min_rtt_s > 0 ? min_rtt_s * 1e6 / 2 : 0;
  double wire_s = std::max(transfer_s - min_rtt_s, min_rtt_s / 2);
  if (bytes > 0 && wire_s > 0) link.bandwidth_mbps = static_cast<double>(bytes) * 8 / wire_s / 1e6;
  return link;
}

proto::NodeMetricsReport MakeNodeReport(const Averages& load, const Averages& utilisation,
                                        const MemInfo& memory, double clock_mhz,
                                        const std::vector<proto::LinkReport>& links) {
  proto::NodeMetricsReport r;
  r.cpu_load_1m = load.m1;
  r.cpu_load_5m = load.m5;
  r.cpu_load_15m = load.m15;
  r.cpu_utilisation = utilisation.m1;
  r.total_memory_mb = memory.total_mb;
  r.used_memory_mb = std::max(0.0, memory.total_mb - memory.available_mb);
  r.clock_mhz = clock_mhz;
  double sum = 0;
  int measured = 0;
  for (const proto::LinkReport& l : links) {
    if (l.bandwidth_mbps <= 0) continue;
    sum += l.bandwidth_mbps;
    ++measured;
  }
  r.bandwidth_mbps = measured ? sum / measured : 0;
  return r;
}

sched::NodeMetrics ToNodeMetrics(const proto::NodeMetricsReport& r) {
  sched::NodeMetrics m;
  m.cpu_load_1m = r.cpu_load_1m;
  m.cpu_load_5m = r.cpu_load_5m;
  m.cpu_load_15m = r.cpu_load_15m;
  m.cpu_utilisation = r.cpu_utilisation;
  m.bandwidth_mbps = r.bandwidth_mbps;
  m.used_memory_mb = r.used_memory_mb;
  m.total_memory_mb = r.total_memory_mb;
  m.clock_mhz = r.clock_mhz;
  return m;
}

proto::NodeMetricsReport ToReport(const sched::NodeMetrics& m) {
  return {m.cpu_load_1m,    m.cpu_load_5m,    m.cpu_load_15m,    m.cpu_utilisation,
          m.bandwidth_mbps, m.used_memory_mb, m.total_memory_mb, m.clock_mhz};
}

int MergeLinks(LinkMap& links, int node, const std::vector<proto::LinkReport>& measured) {
  int changed = 0;
  for (const proto::LinkReport& r : measured) {
    if (r.peer == node) continue;
    sched::LinkMetrics m{std::min(node, r.peer), std::max(node, r.peer), r.latency_us,
                         r.bandwidth_mbps};
    links[{m.a, m.b}] = m;
    ++changed;
  }
  return changed;
}

}  // namespace psched::daemon::monitor
