// The co-scheduling orders the leader's plan_executor sends a node (PeerSend service
// "cosched") and the node's reply ("cosched.reply"), carried out by node/cosched_node.
// One codec for both ends: JSON text in PeerSend::data, with a version.
//
//   order {"version": 1, "txn": 7, "ops": [{"op": "suspend", "session": 3, "grace_s": 0,
//          "confirm_s": 5}, {"op": "repin", "session": 4, "ranks": [{"rank": 0, "pus": [2]}]}]}
//   reply {"version": 1, "txn": 7, "node": 1, "ok": false, "done": [0], "error": "..."}
//
// An op's kind stays a string: a node answers an op it does not know by failing that
// step (its name in the error), as it answers any failing step.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "proto/frame.hpp"

namespace psched::proto {

// Version 1 is also the format before versions were written: an order without one is 1.
inline constexpr int kCoschedVersion = 1;

struct CoschedRank {  // where a re-pinned rank goes: logical PUs of its node
  int rank = 0;
  std::vector<int> pus;
};

struct CoschedOp {
  std::string op;  // "suspend", "resume", "repin"
  int64_t session = 0;
  double grace_s = 0;              // suspend: the surpass grace (SIGTSTP first), 0 for none
  double confirm_s = 0;            // suspend: how long to wait for the stop to be confirmed
  std::vector<CoschedRank> ranks;  // repin: this node's ranks of the session
};

struct CoschedOrder {
  int version = kCoschedVersion;
  int64_t txn = 0;
  std::vector<CoschedOp> ops;
};

struct CoschedReply {
  int version = kCoschedVersion;
  int64_t txn = 0;
  int node = -1;
  bool ok = false;
  std::vector<int> done;  // indices of the ops carried out
  std::string error;      // !ok: what failed, naming node and session
};

// JSON conversions (cosched.cpp): integers are checked, not cast.
void to_json(Json& j, const CoschedRank& r);
void from_json(const Json& j, CoschedRank& r);
void to_json(Json& j, const CoschedOp& o);
void from_json(const Json& j, CoschedOp& o);

std::string EncodeCoschedOrder(const CoschedOrder& order);
std::string EncodeCoschedReply(const CoschedReply& reply);
// A protocol error naming what is wrong: not a JSON object, a field missing ("ops",
// an op's "op" and "session") or of the wrong type, a version this build does not speak.
Result<CoschedOrder> DecodeCoschedOrder(std::string_view data);
Result<CoschedReply> DecodeCoschedReply(std::string_view data);

}  // namespace psched::proto
