// The daemon host's "pmix.*" point-to-point messages (pmix/daemon_*.cpp), carried in
// PeerSend::data between the daemons of one allocation.
//
// One codec for all of them: a MessagePack map of the struct's fields (the names below
// are the wire's), read field by field as its type (proto/checked_fields.hpp: an integer
// its type holds, never a cast), with a version. A message without "version" is version 1,
// the format these messages had before they were typed. MPI_Comm_spawn's children request
// and reply (proto/comm_spawn.hpp) travel in the same codec.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "proto/checked_fields.hpp"

namespace psched::proto {

inline constexpr int kPmixWireVersion = 1;

using Json = nlohmann::json;
using fields::Binary;

// "pmix.interact", a node -> the leader: sessions whose ranks talk to each other (a PMIx
// connect across them, a lookup answered with another session's names). No answer.
struct PmixInteract {
  int version = kPmixWireVersion;
  std::vector<std::string> ns;  // their nspaces, sorted, at least two
  // They connect (PMIx_Connect, Open MPI's participant exchange before it): the leader
  // links them, each told when another fails (pmix/session_links.hpp). Not for a lookup
  // of any other name.
  bool connected = false;
};
PSCHED_WIRE_STRUCT(PmixInteract, version, ns, connected)

// "pmix.failed": ranks of a session failed (a non-zero exit, a signal, an abort) after
// they joined PMIx. From the failing rank's node to the leader (`notify` empty), which
// knows the sessions that interacted with it; then from the leader to every node with
// `notify` naming those sessions: each node tells its ranks of them with a PMIx event
// (pmix/daemon_failed.cpp). No answer.
struct PmixProcsFailed {
  int version = kPmixWireVersion;
  int64_t session = 0;
  std::string ns;
  std::vector<uint32_t> ranks;
  std::string why;                  // for people: "rank 0 exited with status 3"
  std::vector<std::string> notify;  // the sessions to tell, by nspace
  // The failed rank's exit status as a launcher gives it (3 for exit(3), 128+N for
  // signal N, MPI_Abort's status): a session aborted because of it exits with it, as
  // mpirun exits with a failed spawned job's status.
  int code = 1;
};
PSCHED_WIRE_STRUCT(PmixProcsFailed, version, session, ns, ranks, why, notify, code)

// "pmix.jobctl": PMIx job control. To the leader, a pause or resume of a session,
// answered by a PmixReply with `id`; to a session's nodes, a signal for its local ranks
// (op empty), not answered.
struct PmixJobControl {
  int version = kPmixWireVersion;
  uint64_t id = 0;
  std::string op;  // "pause", "resume"; "" for a signal order
  int64_t session = 0;
  int signal = 0;
};
PSCHED_WIRE_STRUCT(PmixJobControl, version, id, op, session, signal)

// "pmix.dmodex", to the node of a rank: its modex data, answered by a PmixReply with `id`.
struct PmixDmodexRequest {
  int version = kPmixWireVersion;
  uint64_t id = 0;
  std::string ns;
  uint32_t rank = 0;
};
PSCHED_WIRE_STRUCT(PmixDmodexRequest, version, id, ns, rank)

// "pmix.reply": the answer to a request that carried `id`: its data, or an error
// (its ErrorCode and message).
struct PmixReply {
  int version = kPmixWireVersion;
  uint64_t id = 0;
  bool ok = false;
  Binary data;
  int code = 0;
  std::string msg;
};
PSCHED_WIRE_STRUCT(PmixReply, version, id, ok, data, code, msg)

// "pmix.layout": the leader's directory of sessions' layouts (pmix/daemon_layouts.cpp).
// To the leader: "start" (a session's first node publishes its layout), "ended" (that
// session ended), "pull" (a node asks for the layout of nspace `ns`, answered by a
// PmixReply with `id`). From the leader: "drop" (a session you pulled has ended).
struct PmixLayout {
  int version = kPmixWireVersion;
  std::string op;
  uint64_t id = 0;
  int64_t session = 0;
  std::string ns;
  Binary layout;  // "start": the layout as its owner registered it
};
PSCHED_WIRE_STRUCT(PmixLayout, version, op, id, session, ns, layout)

// The content of PmixLayout::layout: a session's layout as its first node registered it
// with PMIx, all a node without local ranks needs to register the same namespace.
struct PmixSessionLayout {
  int version = kPmixWireVersion;
  int64_t session = 0;
  std::string ns;
  std::vector<std::vector<int>> ranks;  // by global rank: [node, local rank]
  std::vector<std::string> hosts;       // by node id
  std::vector<uint32_t> apps;           // MPI_Comm_spawn_multiple: ranks per app
};
PSCHED_WIRE_STRUCT(PmixSessionLayout, version, session, ns, ranks, hosts, apps)

// DecodePmix, then its ids range-checked against an allocation of `nodes` nodes: the
// session is not negative, every rank is a [node, local rank] pair with the node in
// the allocation and the local rank not negative, no more hosts than nodes.
Result<PmixSessionLayout> DecodeSessionLayout(std::string_view data, int nodes);

// "pmix.names", a node -> the leader, which keeps the PMIx name service: "publish" (kv
// with a persistence), "lookup" (keys; wait for them, up to timeout_ms when >= 0),
// "unpublish" (keys), each answered by a PmixReply with `id` (a lookup's data is a
// PmixLookupValues); "drop" (a session's names go: it ended), not answered.
struct PmixNamePair {
  std::string k;
  Binary v;
};
PSCHED_WIRE_STRUCT(PmixNamePair, k, v)
struct PmixNames {
  int version = kPmixWireVersion;
  uint64_t id = 0;
  std::string op;
  std::string ns;  // the publisher or looker (drop: the ended session's)
  uint32_t rank = 0;
  std::vector<PmixNamePair> kv;
  int persist = 0;  // PMIx's pmix_persistence_t
  std::vector<std::string> keys;
  bool wait = false;
  int64_t timeout_ms = -1;  // negative: none
};
PSCHED_WIRE_STRUCT(PmixNames, version, id, op, ns, rank, kv, persist, keys, wait, timeout_ms)

// A lookup's answer, in PmixReply::data: the values found and who published each.
struct PmixNameValue {
  std::string k;
  Binary v;
  std::string ns;
  uint32_t r = 0;
};
PSCHED_WIRE_STRUCT(PmixNameValue, k, v, ns, r)
struct PmixLookupValues {
  int version = kPmixWireVersion;
  std::vector<PmixNameValue> values;
};
PSCHED_WIRE_STRUCT(PmixLookupValues, version, values)

// The one codec of the messages above.
std::string EncodePmixJson(const Json& message);
Result<Json> DecodePmixJson(std::string_view data, std::string_view service);
Result<void> CheckPmixVersion(int version, std::string_view service);

template <typename T>
std::string EncodePmix(const T& message) {
  return EncodePmixJson(Json(message));
}

// A message of `service` ("pmix.jobctl"): a protocol error names it and what is wrong.
template <typename T>
Result<T> DecodePmix(std::string_view data, std::string_view service) {
  auto j = DecodePmixJson(data, service);
  if (!j) return Fail(j.error());
  T message;
  try {
    j->get_to(message);
  } catch (const std::exception& e) {
    return Fail(ErrorCode::kProtocol,
                "malformed " + std::string(service) + " message: " + e.what());
  }
  if (auto v = CheckPmixVersion(message.version, service); !v) return Fail(v.error());
  return message;
}

}  // namespace psched::proto
