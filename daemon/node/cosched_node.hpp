// The node side of co-scheduling plans: suspend (confirmed stopped), resume and
// re-pin (every thread, verified) this node's ranks of a session, as ordered by the
// leader's PlanExecutor, and reply what was done so the leader can commit or roll back.
//
// Orders and replies are JSON carried as PeerSend data (services "cosched" and
// "cosched.reply"); see plan_executor.hpp for the format.
#pragma once

#include <event2/event.h>
#include <hwloc.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/clock.hpp"
#include "daemon/node/node_service.hpp"
#include "proto/cosched.hpp"
#include "proto/messages.hpp"

namespace psched::daemon {

class CoschedNode {
 public:
  using Reply = std::function<void(std::string)>;

  // `clock` (outliving this) times the suspend confirmations.
  CoschedNode(event_base* base, int node, NodeService& ranks, std::vector<int> real_pus,
              Reply reply, const Clock& clock = RealClock());
  ~CoschedNode();
  CoschedNode(const CoschedNode&) = delete;

  void OnOrder(const std::string& data);

 private:
  struct Txn;
  void Step(Txn& txn);
  // Asks once, then looks: true once confirmed, false while a look is scheduled; fails
  // after `confirm_s` (the order's, from the leader's config) without confirmation.
  Result<bool> Suspend(Txn& txn, int64_t session, double confirm_s);
  Result<void> Repin(int64_t session, const std::vector<proto::CoschedRank>& ranks);
  void StartGrace(Txn& txn);
  void ContinueWarnedBeyond(const Txn& txn, size_t failed);
  void Finish(Txn& txn, Result<void> result);
  static void OnGrace(evutil_socket_t, short, void* arg);

  event_base* base_;
  int node_;
  NodeService& ranks_;
  std::vector<int> real_pus_;
  Reply reply_;
  const Clock& clock_;
  hwloc_topology_t topology_ = nullptr;        // loaded at the first re-pin
  std::vector<std::unique_ptr<Txn>> waiting_;  // orders in arrival order; the first runs
};

}  // namespace psched::daemon
