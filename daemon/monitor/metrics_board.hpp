// The leader's record of what the nodes' monitors reported: metrics per node,
// measured links, and the directory of link-probe addresses it hands back to the
// nodes. Copies the measurements into the snapshot the allocators decide on, and
// into `psched-ctl status`. Pure.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "proto/messages.hpp"
#include "scheduler/model.hpp"

namespace psched::daemon::monitor {

class MetricsBoard {
 public:
  // Records a report; true when the probe directory changed (tell the nodes).
  bool Update(const proto::MonitorReport& report);
  proto::MonitorPeers Peers() const;
  // Sets Node::metrics of the snapshot's nodes and Snapshot::links (links of
  // nodes no longer in the snapshot are left out).
  void ApplyTo(sched::Snapshot& snapshot) const;
  // Adds "metrics" to each node object of status["nodes"] and a "links" list.
  void AddToStatus(proto::Json& status) const;

 private:
  std::map<int, sched::NodeMetrics> metrics_;
  std::map<int, std::string> probes_;
  std::vector<sched::LinkMetrics> links_;
};

}  // namespace psched::daemon::monitor
