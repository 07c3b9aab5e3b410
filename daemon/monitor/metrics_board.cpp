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

void MetricsBoard::AddToStatus(proto::Json& status) const {
  if (status.contains("nodes") && status["nodes"].is_array()) {
    for (proto::Json& node : status["nodes"]) {
      if (!node.contains("id") || !node["id"].is_number_integer()) continue;
      auto it = metrics_.find(node["id"].get<int>());
      node["metrics"] = MetricsJson(it == metrics_.end() ? sched::NodeMetrics{} : it->second);
    }
  }
  std::vector<sched::LinkMetrics> all;
  all.reserve(links_.size());
  for (const auto& [pair, l] : links_) all.push_back(l);
  status["links"] = LinksJson(all);
}

}  // namespace psched::daemon::monitor
