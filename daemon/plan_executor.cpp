#include "daemon/plan_executor.hpp"

#include <algorithm>

namespace psched::daemon {
namespace {

proto::Json RanksOn(const sched::Placement& placement, int node) {
  proto::Json ranks = proto::Json::array();
  for (const sched::RankSlots& r : placement.ranks)
    if (r.node == node) ranks.push_back({{"rank", r.rank}, {"pus", r.pus}});
  return ranks;
}

}  // namespace

void PlanExecutor::Run(const sched::Snapshot& before, const sched::Plan& plan, double grace_s,
                       Done done) {
  auto txn = std::make_unique<Txn>();
  auto add = [&](int node, proto::Json op, proto::Json inverse) {
    txn->ops[node].push_back(std::move(op));
    txn->inverses[node].push_back(std::move(inverse));
  };
  for (const sched::Action& action : plan.actions) {
    if (const auto* s = std::get_if<sched::SuspendAction>(&action)) {
      if (const sched::Session* was = before.Find(s->session))
        for (int n : was->placement.Nodes())
          add(n, {{"op", "suspend"}, {"session", s->session}, {"grace_s", grace_s}},
              {{"op", "resume"}, {"session", s->session}});
    } else if (const auto* r = std::get_if<sched::ResumeAction>(&action)) {
      if (const sched::Session* was = before.Find(r->session))
        for (int n : was->placement.Nodes())
          add(n, {{"op", "resume"}, {"session", r->session}},
              {{"op", "suspend"}, {"session", r->session}, {"grace_s", 0}});
    } else if (const auto* p = std::get_if<sched::RepinAction>(&action)) {
      const sched::Session* was = before.Find(p->session);
      if (was == nullptr) continue;
      std::vector<int> nodes = was->placement.Nodes();
      for (int n : p->placement.Nodes())
        if (std::find(nodes.begin(), nodes.end(), n) == nodes.end()) nodes.push_back(n);
      for (int n : nodes)
        add(n, {{"op", "repin"}, {"session", p->session}, {"ranks", RanksOn(p->placement, n)}},
            {{"op", "repin"}, {"session", p->session}, {"ranks", RanksOn(was->placement, n)}});
    }
  }
  if (txn->ops.empty()) return done({});
  txn->id = next_txn_++;
  txn->finished = std::move(done);
  txn_ = std::move(txn);
  Send(*txn_);
}

void PlanExecutor::Send(Txn& txn) {
  txn.pending.clear();
  for (const auto& [node, ops] : txn.ops) txn.pending.insert(node);
  // Copy first: a reply from the local node may arrive before the loop ends.
  std::vector<std::pair<int, std::string>> orders;
  for (const auto& [node, ops] : txn.ops)
    orders.emplace_back(node, proto::Json{{"txn", txn.id}, {"ops", ops}}.dump());
  for (auto& [node, data] : orders) send_(node, std::move(data));
}

void PlanExecutor::OnReply(const std::string& data) {
  proto::Json reply = proto::Json::parse(data, nullptr, false);
  if (reply.is_discarded() || !txn_ || reply.value("txn", int64_t{-1}) != txn_->id) return;
  Replied(reply.value("node", -1), reply.value("ok", false),
          reply.value("done", std::vector<int>{}), reply.value("error", ""));
}

void PlanExecutor::NodesLost(const std::vector<int>& nodes) {
  if (!txn_) return;
  for (int n : nodes)
    if (txn_->pending.contains(n))
      Replied(n, false, {}, "node " + std::to_string(n) + " was lost during the plan");
}

void PlanExecutor::Replied(int node, bool ok, std::vector<int> done, const std::string& error) {
  if (!txn_ || !txn_->pending.erase(node)) return;
  txn_->done[node] = std::move(done);
  if (!ok && !txn_->rollback) txn_->error += (txn_->error.empty() ? "" : "; ") + error;
  if (txn_->pending.empty()) Complete();
}

void PlanExecutor::Complete() {
  Txn& txn = *txn_;
  if (txn.error.empty() || txn.rollback) {
    auto t = std::move(txn_);
    return t->finished(t->error.empty() ? Result<void>{}
                                        : Fail(ErrorCode::kSystem, "plan failed: " + t->error));
  }
  // Undo, node by node, what was done, in reverse order.
  std::map<int, proto::Json> undo;
  for (const auto& [node, done] : txn.done)
    for (auto it = done.rbegin(); it != done.rend(); ++it)
      undo[node].push_back(txn.inverses[node][static_cast<size_t>(*it)]);
  txn.rollback = true;
  txn.ops = std::move(undo);
  txn.inverses.clear();
  txn.done.clear();
  txn.id = next_txn_++;
  if (txn.ops.empty()) return Complete();
  Send(txn);
}

}  // namespace psched::daemon
