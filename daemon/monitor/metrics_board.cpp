#include "daemon/monitor/metrics_board.hpp"

#include <algorithm>
#include <set>

#include "daemon/monitor/metrics.hpp"

namespace psched::daemon::monitor {

bool MetricsBoard::Update(const proto::MonitorReport& report) {
  metrics_[report.node] = ToNodeMetrics(report.metrics);
  MergeLinks(links_, report.node, report.links);
  auto it = probes_.find(report.node);
  if (it != probes_.end() && it->second == report.probe) return false;
  if (report.probe.empty() && it == probes_.end()) return false;
  probes_[report.node] = report.probe;
  directory_changed_ = true;
  return true;
}

void MetricsBoard::Forget(int node) {
  metrics_.erase(node);
  if (probes_.erase(node)) directory_changed_ = true;
  std::erase_if(
      links_, [node](const auto& kv) { return kv.first.first == node || kv.first.second == node; });
}

bool MetricsBoard::TakeDirectory(int expected) {
  if (!directory_changed_ || ReportedCount() < expected) return false;
  directory_changed_ = false;
  return true;
}

proto::MonitorPeers MetricsBoard::Peers() const {
  proto::MonitorPeers peers;
  for (const auto& [node, address] : probes_)
    if (!address.empty()) peers.probes.push_back({node, address});
  return peers;
}

void MetricsBoard::ApplyTo(sched::Snapshot& snapshot, bool links) const {
  std::set<int> present;
  for (sched::Node& n : snapshot.nodes) {
    present.insert(n.id);
    if (auto it = metrics_.find(n.id); it != metrics_.end()) n.metrics = it->second;
  }
  if (!links) return;
  snapshot.links.clear();
  for (const auto& [pair, l] : links_)
    if (present.contains(l.a) && present.contains(l.b)) snapshot.links.push_back(l);
}

void MetricsBoard::AddToStatus(proto::AllocationStatus& status) const {
  for (proto::NodeStatus& node : status.nodes) {
    auto it = metrics_.find(node.id);
    node.metrics = ToReport(it == metrics_.end() ? sched::NodeMetrics{} : it->second);
  }
  status.links.clear();
  status.links.reserve(links_.size());
  for (const auto& [pair, l] : links_)
    status.links.push_back({l.a, l.b, l.latency_us, l.bandwidth_mbps});
}

}  // namespace psched::daemon::monitor
