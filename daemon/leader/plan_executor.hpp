// The leader side of executing a co-scheduling plan across nodes, as one transaction.
//
// The node operations of a plan (Suspend, Resume, Repin) go to every node the
// session has ranks on; each node carries them out in order (suspend confirmed
// stopped, re-pin verified thread by thread) and replies which it did. The plan
// completes only when every node confirmed; otherwise what was done is undone
// (resume what was suspended, suspend what was resumed, restore the previous
// pinning) and the failure is reported, naming the node and the step.
//
// A node fails the plan by replying an error, by being lost (its daemon is gone:
// nothing to undo there) or by not answering within the timeout (its daemon is
// stopped or hung). A failing node's undo includes the step that failed, which may
// have been half done; a node that did not answer is sent the undo of every step
// without waiting for it: it carries out the orders in the order received if it
// ever wakes up. Undo orders are idempotent (resume, suspend, re-pin to a placement).
// Spawns, enqueues and rejects stay with the caller: they come after the node
// operations succeeded.
//
// Wire format: proto/cosched.hpp (PeerSend data, service "cosched" down,
// "cosched.reply" up).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "config/config.hpp"
#include "proto/cosched.hpp"
#include "proto/messages.hpp"
#include "scheduler/model.hpp"

namespace psched::daemon {

class PlanExecutor {
 public:
  using SendOrder = std::function<void(int node, std::string data)>;
  // Asks for OnTimeout(txn) after `seconds`; the caller owns the timer (an event loop).
  using ArmTimer = std::function<void(int64_t txn, double seconds)>;
  using Done = std::function<void(Result<void>)>;

  // The admin's [policy] plan_timeout_s and suspend_confirm_timeout_s (the leader
  // passes its config's): nodes get `timeout_s` to answer; each suspend order carries
  // `confirm_s`, how long the node waits for the processes to stop before it fails the
  // step (as it carries the surpass grace), so every node uses the leader's value.
  static constexpr double kDefaultTimeoutS = config::kDefaultPlanTimeoutS;
  static constexpr double kDefaultConfirmS = config::kDefaultSuspendConfirmTimeoutS;

  explicit PlanExecutor(SendOrder send, ArmTimer arm = {}, double timeout_s = kDefaultTimeoutS,
                        double confirm_s = kDefaultConfirmS)
      : send_(std::move(send)),
        arm_(std::move(arm)),
        timeout_s_(timeout_s),
        confirm_s_(confirm_s) {}

  // Runs the node operations of `plan`, whose sessions' current placements are in
  // `before` (the snapshot before the plan was applied). `done` is called once,
  // possibly before Run returns (a plan without node operations). Nodes get
  // `timeout_s` plus the surpass grace `grace_s` to answer.
  void Run(const sched::Snapshot& before, const sched::Plan& plan, double grace_s, Done done);
  void OnReply(const std::string& data);
  // Nodes that are gone never reply: the transaction fails (what they did is moot).
  void NodesLost(const std::vector<int>& nodes);
  // The timer armed for `txn` fired: the nodes that have not answered fail it.
  // A stale txn (already finished) is ignored.
  void OnTimeout(int64_t txn);
  bool busy() const { return txn_ != nullptr; }
  double timeout_s() const { return timeout_s_; }
  double confirm_s() const { return confirm_s_; }

 private:
  struct Txn {
    int64_t id = 0;
    bool rollback = false;
    std::map<int, std::vector<proto::CoschedOp>> ops;       // node -> ops
    std::map<int, std::vector<proto::CoschedOp>> inverses;  // node -> inverse of each op
    std::set<int> pending;
    std::map<int, std::vector<int>> done;  // node -> ops done
    std::map<int, int> failed_step;        // node -> index of the op that failed
    std::set<int> silent;                  // nodes that did not answer in time
    std::set<int> lost;
    std::set<int> undo_failed;   // nodes that could not undo
    std::string error;           // why the plan failed
    std::string rollback_error;  // what the undo could not confirm
    Done finished;
  };
  void Send(Txn& txn, double timeout_s);
  void Replied(int node, bool ok, std::vector<int> done, const std::string& error);
  void Complete();
  std::string Report(const Txn& txn) const;

  SendOrder send_;
  ArmTimer arm_;
  double timeout_s_;
  double confirm_s_;
  int64_t next_txn_ = 1;
  std::unique_ptr<Txn> txn_;
};

// "suspend session 3", "re-pin session 4": an op of an order, for people.
std::string DescribeOp(const proto::CoschedOp& op);

}  // namespace psched::daemon
