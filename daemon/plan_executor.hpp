// The leader side of executing a co-scheduling plan across nodes, as one transaction.
//
// The node operations of a plan (Suspend, Resume, Repin) go to every node the
// session has ranks on; each node carries them out (suspend confirmed stopped,
// re-pin verified thread by thread) and replies which it did. The plan completes
// only when every node confirmed; otherwise what was done is undone (resume what
// was suspended, suspend what was resumed, restore the previous pinning) and the
// failure is reported. Spawns, enqueues and rejects stay with the caller: they
// come after the node operations succeeded.
//
// Wire format (PeerSend data, service "cosched" down, "cosched.reply" up):
//   order {"txn": 7, "ops": [{"op": "suspend", "session": 3, "grace_s": 0},
//                            {"op": "resume", "session": 2},
//                            {"op": "repin", "session": 4, "ranks": [{"rank": 0, "pus": [5]}]}]}
//   reply {"txn": 7, "node": 1, "ok": false, "done": [0], "error": "..."}
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "proto/messages.hpp"
#include "scheduler/model.hpp"

namespace psched::daemon {

class PlanExecutor {
 public:
  using SendOrder = std::function<void(int node, std::string data)>;
  using Done = std::function<void(Result<void>)>;

  explicit PlanExecutor(SendOrder send) : send_(std::move(send)) {}

  // Runs the node operations of `plan`, whose sessions' current placements are in
  // `before` (the snapshot before the plan was applied). `done` is called once,
  // possibly before Run returns (a plan without node operations).
  void Run(const sched::Snapshot& before, const sched::Plan& plan, double grace_s, Done done);
  void OnReply(const std::string& data);
  // Nodes that are gone never reply: the transaction fails (what they did is moot).
  void NodesLost(const std::vector<int>& nodes);
  bool busy() const { return txn_ != nullptr; }

 private:
  struct Txn {
    int64_t id = 0;
    bool rollback = false;
    std::map<int, proto::Json> ops;       // node -> ops
    std::map<int, proto::Json> inverses;  // node -> inverse of each op, same indices
    std::set<int> pending;
    std::map<int, std::vector<int>> done;  // node -> ops done
    std::string error;
    Done finished;
  };
  void Send(Txn& txn);
  void Replied(int node, bool ok, std::vector<int> done, const std::string& error);
  void Complete();

  SendOrder send_;
  int64_t next_txn_ = 1;
  std::unique_ptr<Txn> txn_;
};

}  // namespace psched::daemon
