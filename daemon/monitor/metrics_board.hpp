// The leader's record of what the nodes' monitors reported: metrics per node,
// measured links, and the directory of link-probe addresses it hands back to the
// nodes. Copies the measurements into the snapshot the allocators decide on, and
// into `psched-ctl status`. Pure.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "daemon/monitor/metrics.hpp"
#include "proto/allocation_status.hpp"
#include "proto/messages.hpp"
#include "scheduler/model.hpp"

namespace psched::daemon::monitor {

class MetricsBoard {
 public:
  // Records a report; true when the probe directory changed (tell the nodes).
  bool Update(const proto::MonitorReport& report);
  proto::MonitorPeers Peers() const;
  // A lost node: its metrics, probe address and links go (the directory changes).
  void Forget(int node);
  int ReportedCount() const { return static_cast<int>(metrics_.size()); }  // nodes heard from
  // True once when the directory should go out: `expected` nodes have reported and
  // it changed since last sent. Once, not per joining node: that would be
  // O(nodes^2) on a large allocation.
  bool TakeDirectory(int expected);
  // Sets Node::metrics of the snapshot's nodes; with `links`, also Snapshot::links
  // (without links of nodes no longer in the snapshot). Copying the links is
  // O(links): the leader does it before decisions, not on every report.
  void ApplyTo(sched::Snapshot& snapshot, bool links) const;
  // Sets the metrics of each of the status's nodes (zero: none reported) and its links.
  void AddToStatus(proto::AllocationStatus& status) const;

 private:
  std::map<int, sched::NodeMetrics> metrics_;
  std::map<int, std::string> probes_;
  LinkMap links_;
  bool directory_changed_ = false;
};

}  // namespace psched::daemon::monitor
