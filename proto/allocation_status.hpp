// psched-ctl status: the allocation's status report, the leader's answer to ctl.status
// (CtlReply::status). The leader fills it (daemon/leader/leader_control.cpp, the monitors'
// figures from daemon/monitor/metrics_board.cpp); psched-ctl status (text and --json), and
// psched-ctl top read it (launcher/status_format.cpp, top_view.cpp).
//
// One codec: the ctl.reply frame's MessagePack map, every field read as its type
// (proto/checked_fields.hpp), with a version of its own: a report without one is version 1,
// the format the report had before it was typed. `psched-ctl status --json` prints this map
// as it is, so its field names are what users' scripts read: add, never rename.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "proto/messages.hpp"

namespace psched::proto {

inline constexpr int kAllocationStatusVersion = 1;

struct NodeStatus {
  int id = 0;
  std::string hostname;
  std::string state = "up";  // "up", or "lost" (then only id, hostname, cause, metrics)
  // An up node's topology and slots.
  std::optional<uint32_t> pus, cores, packages;
  std::optional<uint32_t> free;               // slots nobody is pinned to
  std::optional<std::vector<uint32_t>> uses;  // per logical PU: ranks pinned there
  std::optional<std::string> cause;           // a lost node's: how it was lost
  NodeMetricsReport metrics;                  // what its monitor measured (zero: not yet)
};
PSCHED_WIRE_STRUCT(NodeStatus, id, hostname, state, pus, cores, packages, free, uses, cause,
                   metrics)

struct RankPlacement {
  int rank = 0;
  int node = 0;
  std::vector<int> pus;  // logical PUs on its node
};
PSCHED_WIRE_STRUCT(RankPlacement, rank, node, pus)

struct SessionStatus {
  int64_t id = 0;
  std::string state;  // sched::SessionStateName, "ending", or "suspended" (by its user)
  // Why it is in that state, for people: "suspended by 3", "queued at position 2".
  std::string state_detail;
  std::string policy;
  bool spread = false;
  int64_t displaced_by = -1;  // the session that displaced it; -1: none
  bool floating = false;
  bool exclusive = false;
  bool stopped_by_user = false;
  std::vector<RankPlacement> placement;  // where its ranks are pinned now
  std::string owner;
  std::string command;
  uint32_t ranks = 0;
  uint32_t threads_per_rank = 1;
  std::vector<int> nodes;
  double start = 0;  // wall-clock seconds since the epoch
  double elapsed_s = 0;
  // A queued session's only: the priority module's value that orders the queue
  // (squeue's PRIORITY), and the policy's reason when it queued the session.
  std::optional<double> priority;
  std::optional<std::string> wait_reason;
};
PSCHED_WIRE_STRUCT(SessionStatus, id, state, state_detail, policy, spread, displaced_by, floating,
                   exclusive, stopped_by_user, placement, owner, command, ranks, threads_per_rank,
                   nodes, start, elapsed_s, priority, wait_reason)

// A measured link between two nodes.
struct LinkStatus {
  int a = 0, b = 0;
  double latency_us = 0;
  double bandwidth_mbps = 0;
};
PSCHED_WIRE_STRUCT(LinkStatus, a, b, latency_us, bandwidth_mbps)

// A plan the leader carried out on the nodes: how long it took, for how many ranks.
struct PlanTime {
  std::string kind;  // "suspend", "resume+repin", ...
  uint64_t ranks = 0;
  bool ok = false;
  double ms = 0;
};
PSCHED_WIRE_STRUCT(PlanTime, kind, ranks, ok, ms)

struct AllocationStatus {
  int version = kAllocationStatusVersion;
  uint32_t expected_nodes = 0;
  uint32_t free = 0;  // slots nobody is pinned to, on the nodes that are up
  uint32_t total = 0;
  std::vector<NodeStatus> nodes;  // up ones, then lost ones
  std::vector<SessionStatus> sessions;
  std::vector<LinkStatus> links;
  std::vector<PlanTime> plans;  // the last 64
  // One per session not yet ended: more means a leak.
  uint64_t submission_histories = 0;
};
PSCHED_WIRE_STRUCT(AllocationStatus, version, expected_nodes, free, total, nodes, sessions, links,
                   plans, submission_histories)

// leader -> psched-ctl: what it asked for was done (ok) or not (message says why); the
// status for ctl.status.
struct CtlReply {
  bool ok = true;
  std::string message;
  std::optional<AllocationStatus> status;
};
PSCHED_WIRE_STRUCT(CtlReply, ok, message, status)

// Decode<CtlReply>, then the status's version: one this program reads, or a protocol
// error that says which.
Result<CtlReply> DecodeCtlReply(const Frame& frame);

}  // namespace psched::proto
