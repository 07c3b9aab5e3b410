// Typed payloads of the frames in frame.hpp, and their defensive decoding.
//
// Every struct maps to a MessagePack map with the field names below. Decode<T>
// never throws: a missing field keeps its default, a field of the wrong type (a float
// or a boolean in an integer field, an integer its field cannot hold: checked, never
// cast, proto/checked_fields.hpp) is a protocol error naming the message and the field.
// Semantic checks (ranks > 0, ...) belong to the receiver, which knows what it can accept.
#pragma once

#include <string>
#include <vector>

#include "common/error.hpp"
#include "proto/checked_fields.hpp"
#include "proto/frame.hpp"

namespace psched::proto {

// psched-exec -> leader: one session as the user asked for it.
struct LaunchRequest {
  std::vector<std::string> argv;
  std::vector<std::string> env;  // "NAME=value" exported to every rank (-x)
  std::string cwd;
  std::string owner;
  int ranks = 1;
  int threads_per_rank = 1;
  int nodes = 0;
  int ppn = 0;
  bool spread = false;
  double estimate_s = 0;
  std::string policy;
  std::string allocator;
  std::string mpi;  // psched-exec --mpi ("": the admin's default)
  // psched-exec --kill-wait: seconds between SIGTERM and SIGKILL when the session is
  // ended (negative: the admin's [launch] kill_wait_s).
  double kill_wait_s = -1;
  // Ranks' stdout on a pseudo-terminal: psched-exec's own stdout is a terminal and
  // --no-pty was not given.
  bool stdout_pty = false;
};
PSCHED_WIRE_STRUCT(LaunchRequest, argv, env, cwd, owner, ranks, threads_per_rank, nodes, ppn,
                   spread, estimate_s, policy, allocator, mpi, kill_wait_s, stdout_pty)

struct RankSpec {
  int rank = 0;
  int node = 0;
  int local_rank = 0;
  std::vector<int> pus;  // logical PUs on its node
};
PSCHED_WIRE_STRUCT(RankSpec, rank, node, local_rank, pus)

// leader -> every node of a session: spawn your ranks of it.
struct StartRanksOrder {
  int64_t session = 0;
  std::string nspace;
  std::vector<std::string> argv;
  std::vector<std::string> env;
  std::string cwd;
  int size = 0;
  int threads_per_rank = 1;
  std::vector<RankSpec> ranks;         // all ranks of the session
  std::vector<std::string> hostnames;  // by node id
  // Set for children started by MPI_Comm_spawn: the rank that asked (PMIX_PARENT_ID).
  std::string parent_nspace;
  uint32_t parent_rank = 0;
  // MPI_Comm_spawn_multiple children: ranks per app, app after app (empty: one app).
  std::vector<uint32_t> app_sizes;
  // The wire-up its ranks get (pmi/wireup.hpp: auto, pmix, pmi1, none; "": auto).
  std::string mpi;
  // MPI_UNIVERSE_SIZE: the allocation's slots (at least `size`), as hydra answers with
  // the slots of its hosts; 0 from an older leader: the session's size.
  int universe_size = 0;
  // Each rank's stdout is a raw pseudo-terminal, not a pipe (LaunchRequest::stdout_pty).
  bool stdout_pty = false;
};
PSCHED_WIRE_STRUCT(StartRanksOrder, session, nspace, argv, env, cwd, size, threads_per_rank, ranks,
                   hostnames, parent_nspace, parent_rank, app_sizes, mpi, universe_size, stdout_pty)

// How a rank ended. code is the mpiexec-style code: exit status, or 128+signal.
struct RankExit {
  int64_t session = 0;
  int rank = 0;
  int node = 0;
  int code = 0;
  int signal = 0;     // non-zero when killed by a signal
  std::string cause;  // "exited with status 3", "killed by signal 9 (Killed)", "exec failed: ..."
};
PSCHED_WIRE_STRUCT(RankExit, session, rank, node, code, signal, cause)

struct NodeDone {
  int64_t session = 0;
  int node = 0;
  std::vector<RankExit> exits;
};
PSCHED_WIRE_STRUCT(NodeDone, session, node, exits)

struct Output {
  int64_t session = 0;
  int rank = 0;
  int stream = 1;    // 1 stdout, 2 stderr
  std::string data;  // whole lines (the last may lack '\n' only at end of stream)
};
PSCHED_WIRE_STRUCT(Output, session, rank, stream, data)

struct StdinData {
  int64_t session = 0;
  std::string data;
  bool eof = false;
};
PSCHED_WIRE_STRUCT(StdinData, session, data, eof)

// Stdin flow control: the launcher keeps at most kStdinWindow bytes of its stdin in flight
// toward rank 0 (sent, and not yet written to rank 0's pipe) and reads on as the node
// reports them written, so a rank that reads slowly blocks the launcher's reader instead
// of input being buffered without bound or dropped. The node reports at least every
// kStdinReportEvery bytes: less than the window, or the launcher could wait for a report
// that never comes.
inline constexpr uint64_t kStdinWindow = 4u << 20;
inline constexpr uint64_t kStdinReportEvery = 1u << 20;
static_assert(kStdinReportEvery < kStdinWindow);
struct StdinWritten {
  int64_t session = 0;
  uint64_t bytes = 0;   // of the session's stdin, written to rank 0's pipe so far
  bool closed = false;  // rank 0's stdin is closed (or rank 0 is gone): more would be dropped
};
PSCHED_WIRE_STRUCT(StdinWritten, session, bytes, closed)

// Output flow control: a launcher that does not keep up holds its session's output.
struct OutputFlow {
  int64_t session = 0;
  bool held = false;  // true: stop reading the ranks' pipes; false: read again
};
PSCHED_WIRE_STRUCT(OutputFlow, session, held)

// Addresses a session, with a signal where one applies (signal, kill).
struct SessionRef {
  int64_t session = 0;
  int signal = 0;
};
PSCHED_WIRE_STRUCT(SessionRef, session, signal)

// leader -> nodes: end a session's ranks there. SIGTERM first, so that a rank can say
// its last words (flush, checkpoint, a traceback), then SIGKILL to what is left after
// `grace_s` (0: SIGKILL at once), as mpirun and Slurm's KillWait do.
struct KillOrder {
  int64_t session = 0;
  double grace_s = 0;
};
PSCHED_WIRE_STRUCT(KillOrder, session, grace_s)

// leader -> launcher: the session is queued (reason: what it waits for), or the suspend
// or resume the launcher asked for (psched-exec's Ctrl-Z, fg) is done.
struct SessionAck {
  int64_t session = 0;
  std::string what;    // "queued", "suspend", "resume"
  std::string reason;  // "queued": why it waits, as psched-exec prints it
};
PSCHED_WIRE_STRUCT(SessionAck, session, what, reason)

struct SessionStarted {
  int64_t session = 0;
  std::vector<int> nodes;
};
PSCHED_WIRE_STRUCT(SessionStarted, session, nodes)

struct SessionEnded {
  int64_t session = 0;
  int code = 0;
  std::string message;  // empty on success; names rank, node and cause otherwise
};
PSCHED_WIRE_STRUCT(SessionEnded, session, code, message)

struct ErrorReply {
  std::string message;
  std::string code;
};
PSCHED_WIRE_STRUCT(ErrorReply, message, code)

// Peer authentication (see daemon/net/auth.hpp).
struct AuthChallenge {
  std::string nonce;  // binary
};
PSCHED_WIRE_STRUCT(AuthChallenge, nonce)
struct AuthResponse {
  int node = -1;
  std::string mac;    // HMAC of the parent's nonce and the node id
  std::string nonce;  // the child's challenge to the parent
};
PSCHED_WIRE_STRUCT(AuthResponse, node, mac, nonce)
struct AuthOk {
  std::string mac;  // HMAC of the child's nonce: the parent knows the secret too
};
PSCHED_WIRE_STRUCT(AuthOk, mac)

struct PuInfo {
  int core = 0;
  int package = 0;
};
PSCHED_WIRE_STRUCT(PuInfo, core, package)

struct NodeJoin {
  int node = 0;
  std::string hostname;
  std::vector<PuInfo> pus;
  int gpus = 0;
};
PSCHED_WIRE_STRUCT(NodeJoin, node, hostname, pus, gpus)

// leader -> a node that joined: the allocation knows it (the node reports itself ready).
struct NodeWelcome {};
PSCHED_WIRE_EMPTY_STRUCT(NodeWelcome)

// leader -> every node: the allocation shuts down, stop.
struct DaemonShutdown {};
PSCHED_WIRE_EMPTY_STRUCT(DaemonShutdown)

struct NodeLost {
  std::vector<int> nodes;
  std::string cause;
};
PSCHED_WIRE_STRUCT(NodeLost, nodes, cause)

// Tree collective (daemon/net/tree_collective.hpp): contributions and results travel in
// their own layout (proto/collective_wire.hpp); these two are rare and stay maps.
struct CollForget {  // up from a node whose session ended inside collective (session, id)
  int64_t session = 0;
  std::string id;
};
PSCHED_WIRE_STRUCT(CollForget, session, id)
struct CollAbort {  // nodes lost: every collective with one of them as participant fails
  std::vector<int> nodes;
  std::string cause;
};
PSCHED_WIRE_STRUCT(CollAbort, nodes, cause)

// A node's message to a service of another node's daemon; its sender and its
// destination are the frame's route (proto/peer_route.hpp).
struct PeerSend {
  std::string service;
  std::string data;
};
PSCHED_WIRE_STRUCT(PeerSend, service, data)

// psched-ctl -> leader: the allocation's status (answered by a CtlReply with it:
// proto/allocation_status.hpp), and a shutdown of the whole allocation. kill, suspend and
// resume name a session: SessionRef.
struct CtlStatus {};
PSCHED_WIRE_EMPTY_STRUCT(CtlStatus)
struct CtlShutdown {};
PSCHED_WIRE_EMPTY_STRUCT(CtlShutdown)

// Live monitoring (daemon/monitor/): what a node measured, sent to the leader
// every sample interval. Zero means "not measured yet".
struct NodeMetricsReport {
  double cpu_load_1m = 0, cpu_load_5m = 0, cpu_load_15m = 0;
  double cpu_utilisation = 0;  // 0..1
  double bandwidth_mbps = 0;   // the node's mean measured link bandwidth
  double used_memory_mb = 0, total_memory_mb = 0;
  double clock_mhz = 0;
};
PSCHED_WIRE_STRUCT(NodeMetricsReport, cpu_load_1m, cpu_load_5m, cpu_load_15m, cpu_utilisation,
                   bandwidth_mbps, used_memory_mb, total_memory_mb, clock_mhz)
struct LinkReport {
  int peer = 0;
  double latency_us = 0;  // one way: half the smallest ping-pong round trip
  double bandwidth_mbps = 0;
};
PSCHED_WIRE_STRUCT(LinkReport, peer, latency_us, bandwidth_mbps)
struct MonitorReport {
  int node = 0;
  std::string probe;  // "host:port" of this node's link probe, "" when it has none
  NodeMetricsReport metrics;
  std::vector<LinkReport> links;  // measured since the previous report
};
PSCHED_WIRE_STRUCT(MonitorReport, node, probe, metrics, links)
struct ProbeAddress {
  int node = 0;
  std::string address;
};
PSCHED_WIRE_STRUCT(ProbeAddress, node, address)
struct MonitorPeers {
  std::vector<ProbeAddress> probes;
};
PSCHED_WIRE_STRUCT(MonitorPeers, probes)

// Decodes a payload into T without throwing.
template <typename T>
Result<T> Decode(const Frame& frame) {
  try {
    return frame.body.get<T>();
  } catch (const std::exception& e) {
    return Fail(ErrorCode::kProtocol,
                std::string("malformed ") + MsgTypeName(frame.type) + " message: " + e.what());
  }
}

template <typename T>
std::string Encode(MsgType type, const T& message) {
  return EncodeFrame(type, Json(message));
}

}  // namespace psched::proto
