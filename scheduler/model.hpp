// The pure model of an allocation: nodes, their slots, sessions and plans.
//
// Everything in scheduler/ and policies/ works on these plain values. They never
// touch a socket, a process, the clock or a file: the daemon builds a Snapshot
// from what it knows, asks a policy or allocator for a Plan, and carries it out;
// the simulator applies the very same Plan to a virtual clock.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace psched::sched {

using SessionId = int64_t;
using NodeId = int;
inline constexpr SessionId kNoSession = -1;

// One hardware thread (hwloc PU). Its index in NodeTopology::pus is its logical
// index; PUs of one core, and cores of one package, are neighbours in that order.
struct Pu {
  int core = 0;     // node-wide core index
  int package = 0;  // node-wide package index
};

struct NodeTopology {
  std::vector<Pu> pus;
  int gpus = 0;

  // packages x cores per package x PUs per core, in logical order.
  static NodeTopology Uniform(int packages, int cores_per_package, int pus_per_core, int gpus = 0);
  int NumPus() const { return static_cast<int>(pus.size()); }
  int NumCores() const;
  int NumPackages() const;
};

// What the daemons' monitoring measured on a node (netload allocator input).
// All optional in spirit: zero means "not measured" and allocators must cope.
struct NodeMetrics {
  double cpu_load_1m = 0, cpu_load_5m = 0, cpu_load_15m = 0;  // run-queue load averages
  double cpu_utilisation = 0;                                 // 0..1, busy fraction of all PUs
  double bandwidth_mbps = 0;                                  // node's network bandwidth
  double used_memory_mb = 0;
  double total_memory_mb = 0;
  double clock_mhz = 0;
};

// A measured link between two nodes (netload allocator input).
struct LinkMetrics {
  NodeId a = 0, b = 0;
  double latency_us = 0;
  double bandwidth_mbps = 0;
};

struct Node {
  NodeId id = 0;
  std::string hostname;
  NodeTopology topology;
  std::vector<int> uses;  // per logical PU: ranks pinned there. 0 free, 1 exclusive, >1 overbooked
  int gpus_used = 0;
  NodeMetrics metrics;

  static Node Make(NodeId id, std::string hostname, NodeTopology topology);
  int FreePus() const;  // slots with uses == 0
  int FreeGpus() const { return topology.gpus - gpus_used; }
};

// The node with this id: O(1) when ids follow the indexes from the first node's id on
// (0..n-1, or a subspan of such nodes: the usual layout), else a scan. nullptr if none.
const Node* FindNode(std::span<const Node> nodes, NodeId id);
Node* FindNode(std::vector<Node>& nodes, NodeId id);
// Whether every node's id is the first node's id plus its index (FindNode is then O(1)).
bool IdsFollowIndexes(std::span<const Node> nodes);

// What a user asked for with psched-exec (or a simulated job).
struct SessionRequest {
  SessionId id = kNoSession;
  std::string owner;
  std::string command;
  int ranks = 1;
  int threads_per_rank = 1;  // -c: each rank occupies this many slots
  int nodes = 0;             // -N: exactly this many nodes; 0 = as many as needed
  int ppn = 0;               // --ppn: ranks per node; 0 = as many as fit
  int gpus_per_node = 0;
  bool spread = false;      // spread ranks over as many nodes as possible
  bool contiguous = false;  // wants a contiguous block of nodes (auction/sim workloads)
  double estimate_s = 0;    // --time, 0 = unknown
  double submit_time = 0;   // seconds, in the caller's clock
  std::string policy;       // empty: the configured default
  std::string allocator;    // empty: the configured default
  double priority = 0;      // set by the priority module; higher goes first

  int SlotsNeeded() const { return ranks * threads_per_rank; }
};

// Where one rank runs: its node and the logical PUs it is counted on.
struct RankSlots {
  int rank = 0;
  NodeId node = 0;
  std::vector<int> pus;
  bool operator==(const RankSlots&) const = default;
};

struct Placement {
  std::vector<RankSlots> ranks;       // indexed by rank
  int gpus_per_node = 0;              // GPUs held on every node the placement uses
  std::vector<NodeId> Nodes() const;  // distinct nodes, ascending
  bool operator==(const Placement&) const = default;
};

enum class SessionState { kQueued, kRunning, kSuspended, kSidestepped, kOverbooked };
const char* SessionStateName(SessionState state);

struct Session {
  SessionRequest request;
  SessionState state = SessionState::kQueued;
  Placement placement;                  // where its ranks are pinned now (uses are counted here)
  Placement original;                   // pinning at start, restored after a sidestep
  bool floating = false;                // overbook/float: bound to all of its nodes' slots
  bool exclusive = false;               // sidestep: its slots are reserved for it until it ends
  SessionId displaced_by = kNoSession;  // who suspended or sidestepped it
  double start_time = -1;
};

struct Snapshot {
  std::vector<Node> nodes;
  std::vector<LinkMetrics> links;
  std::vector<Session> sessions;  // queued, running, suspended; in arrival order
  double now = 0;

  const Session* Find(SessionId id) const;
  Session* Find(SessionId id);
  int FreePus() const;
  int TotalPus() const;
  // The same nodes with nothing on them (no slot or GPU in use, no session, no links),
  // at the same time: where "could it ever run here" is asked.
  Snapshot Emptied() const;
};

// ---- Plans: what a decision turns into. The daemon executes them; the simulator applies them.

struct StartRanksAction {
  SessionId session = kNoSession;
  Placement placement;
  bool floating = false;  // bind each rank to all of its node's slots (overbook float)
  // Shares slots with other sessions: the daemon sets OMPI_MCA_mpi_yield_when_idle=1
  // so busy-polling MPI ranks give way to the others.
  bool overbooked = false;
  // Sidestep: nobody else is re-pinned onto these slots while the session runs.
  bool exclusive = false;
};
struct SuspendAction {
  SessionId session = kNoSession;
  SessionId by = kNoSession;  // the session it makes room for
};
struct ResumeAction {
  SessionId session = kNoSession;
};
// Move a session's ranks to new slots (sidestep), or back (restore: by == kNoSession).
struct RepinAction {
  SessionId session = kNoSession;
  Placement placement;
  SessionId by = kNoSession;
};
struct EnqueueAction {
  SessionId session = kNoSession;
  std::string reason;  // "waits for 32 slots: 8 free, 2 sessions ahead, policy wait"
};
struct RejectAction {
  SessionId session = kNoSession;
  std::string reason;
};
struct KillAction {
  SessionId session = kNoSession;
};

using Action = std::variant<StartRanksAction, SuspendAction, ResumeAction, RepinAction,
                            EnqueueAction, RejectAction, KillAction>;

struct Plan {
  std::vector<Action> actions;
  bool empty() const { return actions.empty(); }
};

// Applies a plan to the snapshot's bookkeeping: sessions' states and every slot's use count.
// `request` supplies the SessionRequest for a session the snapshot does not know yet
// (a new arrival spawned or enqueued by this plan).
void ApplyPlan(Snapshot& snapshot, const Plan& plan, const SessionRequest* request = nullptr);

// Removes an ended session and releases its slots (does not resume anyone: that is a policy's
// call).
void RemoveSession(Snapshot& snapshot, SessionId id);

}  // namespace psched::sched
