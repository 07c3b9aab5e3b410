#include "daemon/leader/plan_executor.hpp"

#include <algorithm>
#include <cstdio>

namespace psched::daemon {
namespace {

std::vector<proto::CoschedRank> RanksOn(const sched::Placement& placement, int node) {
  std::vector<proto::CoschedRank> ranks;
  for (const sched::RankSlots& r : placement.ranks)
    if (r.node == node) ranks.push_back({r.rank, r.pus});
  return ranks;
}

std::string NodeList(const std::set<int>& nodes) {
  std::string out;
  for (int n : nodes) out += (out.empty() ? "" : ", ") + std::to_string(n);
  return out;
}

std::string Seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g s", s);
  return buf;
}

// The node's own error repeats "node N: " in front: the report already names it.
std::string WithoutNodePrefix(const std::string& error, int node) {
  std::string prefix = "node " + std::to_string(node) + ": ";
  return error.starts_with(prefix) ? error.substr(prefix.size()) : error;
}

}  // namespace

namespace {

// "step suspend session 2", "steps resume session 1, re-pin session 4"
std::string Steps(const std::vector<proto::CoschedOp>& ops) {
  std::string out;
  for (const proto::CoschedOp& op : ops) out += (out.empty() ? "" : ", ") + DescribeOp(op);
  return (ops.size() > 1 ? "steps " : "step ") + out;
}

}  // namespace

std::string DescribeOp(const proto::CoschedOp& op) {
  std::string what = op.op.empty() ? "?" : op.op;
  if (what == "repin") what = "re-pin";
  return what + " session " + std::to_string(op.session);
}

void PlanExecutor::Run(const sched::Snapshot& before, const sched::Plan& plan, double grace_s,
                       Done done) {
  auto txn = std::make_unique<Txn>();
  auto add = [&](int node, proto::CoschedOp op, proto::CoschedOp inverse) {
    txn->ops[node].push_back(std::move(op));
    txn->inverses[node].push_back(std::move(inverse));
  };
  // Every suspend order, a plan's or an undo's, carries the confirmation time.
  auto suspend = [&](int64_t session, double grace) {
    return proto::CoschedOp{
        .op = "suspend", .session = session, .grace_s = grace, .confirm_s = confirm_s_};
  };
  auto resume = [](int64_t session) {
    return proto::CoschedOp{.op = "resume", .session = session};
  };
  auto repin = [](int64_t session, const sched::Placement& placement, int node) {
    return proto::CoschedOp{.op = "repin", .session = session, .ranks = RanksOn(placement, node)};
  };
  for (const sched::Action& action : plan.actions) {
    if (const auto* s = std::get_if<sched::SuspendAction>(&action)) {
      if (const sched::Session* was = before.Find(s->session)) {
        for (int n : was->placement.Nodes())
          add(n, suspend(s->session, grace_s), resume(s->session));
      }
    } else if (const auto* r = std::get_if<sched::ResumeAction>(&action)) {
      if (const sched::Session* was = before.Find(r->session)) {
        for (int n : was->placement.Nodes()) add(n, resume(r->session), suspend(r->session, 0));
      }
    } else if (const auto* p = std::get_if<sched::RepinAction>(&action)) {
      const sched::Session* was = before.Find(p->session);
      if (was == nullptr) continue;
      std::vector<int> nodes = was->placement.Nodes();
      for (int n : p->placement.Nodes())
        if (std::find(nodes.begin(), nodes.end(), n) == nodes.end()) nodes.push_back(n);
      for (int n : nodes) {
        add(n, repin(p->session, p->placement, n), repin(p->session, was->placement, n));
      }
    }
  }
  if (txn->ops.empty()) return done({});
  txn->id = next_txn_++;
  txn->finished = std::move(done);
  txn_ = std::move(txn);
  Send(*txn_, timeout_s_ + std::max(grace_s, 0.0));
}

void PlanExecutor::Send(Txn& txn, double timeout_s) {
  txn.pending.clear();
  for (const auto& [node, ops] : txn.ops)
    if (!txn.silent.contains(node)) txn.pending.insert(node);
  if (arm_ && !txn.pending.empty()) arm_(txn.id, timeout_s);
  // Copy first: a reply from the local node may arrive before the loop ends.
  std::vector<std::pair<int, std::string>> orders;
  orders.reserve(txn.ops.size());
  for (const auto& [node, ops] : txn.ops)
    orders.emplace_back(node, proto::EncodeCoschedOrder({.txn = txn.id, .ops = ops}));
  for (auto& [node, data] : orders) send_(node, std::move(data));
}

void PlanExecutor::OnReply(const std::string& data) {
  auto reply = proto::DecodeCoschedReply(data);
  if (!reply || !txn_ || reply->txn != txn_->id) return;
  Replied(reply->node, reply->ok, std::move(reply->done), reply->error);
}

void PlanExecutor::NodesLost(const std::vector<int>& nodes) {
  if (!txn_) return;
  Txn& txn = *txn_;
  for (int n : nodes) {
    if (!txn.pending.erase(n)) continue;
    txn.lost.insert(n);
    txn.done.erase(n);
    std::string& out = txn.rollback ? txn.rollback_error : txn.error;
    out += (out.empty() ? "" : "; ") + std::string("node ") + std::to_string(n) +
           " was lost during the " + (txn.rollback ? "rollback" : "plan") + " (" +
           Steps(txn.ops[n]) + "): its daemon is gone";
  }
  if (txn.pending.empty()) Complete();
}

void PlanExecutor::OnTimeout(int64_t id) {
  if (!txn_ || txn_->id != id || txn_->pending.empty()) return;
  Txn& txn = *txn_;
  for (int n : txn.pending) {
    txn.silent.insert(n);
    std::string& out = txn.rollback ? txn.rollback_error : txn.error;
    out += (out.empty() ? "" : "; ") + std::string("node ") + std::to_string(n) +
           " did not answer within " + Seconds(timeout_s_) + " (" + Steps(txn.ops[n]) +
           "): its daemon is stopped or hung, or slower than [policy] plan_timeout_s allows";
  }
  txn.pending.clear();
  Complete();
}

void PlanExecutor::Replied(int node, bool ok, std::vector<int> done, const std::string& error) {
  if (!txn_ || !txn_->pending.erase(node)) return;
  Txn& txn = *txn_;
  if (txn.rollback) {
    if (!ok) {
      txn.undo_failed.insert(node);
      txn.rollback_error += (txn.rollback_error.empty() ? "" : "; ") + std::string("node ") +
                            std::to_string(node) + ": " + WithoutNodePrefix(error, node);
    }
  } else {
    if (!ok) {
      // A node stops at its first failing op: the next one after those done.
      size_t step = done.size();
      const std::vector<proto::CoschedOp>& ops = txn.ops[node];
      std::string what = step < ops.size() ? "step '" + DescribeOp(ops[step]) + "'" : "a step";
      if (step < ops.size()) txn.failed_step[node] = static_cast<int>(step);
      txn.error += (txn.error.empty() ? "" : "; ") + std::string("node ") + std::to_string(node) +
                   " failed " + what + ": " + WithoutNodePrefix(error, node);
    }
    txn.done[node] = std::move(done);
  }
  if (txn.pending.empty()) Complete();
}

std::string PlanExecutor::Report(const Txn& txn) const {
  std::string out = txn.error;
  std::set<int> undone;
  for (const auto& [node, ops] : txn.ops) {
    if (!txn.silent.contains(node) && !txn.lost.contains(node) && !txn.undo_failed.contains(node))
      undone.insert(node);
  }
  if (!undone.empty())
    out += "; rolled back on node" + std::string(undone.size() > 1 ? "s " : " ") + NodeList(undone);
  std::set<int> later;
  for (const auto& [node, ops] : txn.ops)
    if (txn.silent.contains(node)) later.insert(node);
  if (!later.empty()) {
    out += "; node" + std::string(later.size() > 1 ? "s " : " ") + NodeList(later) +
           " will undo when " + (later.size() > 1 ? "they answer" : "it answers");
  }
  if (!txn.rollback_error.empty()) out += "; the rollback is incomplete: " + txn.rollback_error;
  return out;
}

void PlanExecutor::Complete() {
  Txn& txn = *txn_;
  if (txn.error.empty() || txn.rollback) {
    auto t = std::move(txn_);
    return t->finished(t->error.empty() ? Result<void>{}
                                        : Fail(ErrorCode::kSystem, "plan failed: " + Report(*t)));
  }
  // Undo, node by node and in reverse order, what was done: on a failing node also
  // the step that failed (it may be half done), on a silent node every step.
  std::map<int, std::vector<proto::CoschedOp>> undo;
  for (const auto& [node, ops] : txn.ops) {
    if (txn.lost.contains(node)) continue;
    std::vector<int> steps;
    if (txn.silent.contains(node)) {
      for (size_t i = 0; i < ops.size(); ++i) steps.push_back(static_cast<int>(i));
    } else {
      steps = txn.done[node];
      if (auto f = txn.failed_step.find(node); f != txn.failed_step.end())
        steps.push_back(f->second);
    }
    for (auto it = steps.rbegin(); it != steps.rend(); ++it)
      undo[node].push_back(txn.inverses[node][static_cast<size_t>(*it)]);
  }
  txn.rollback = true;
  txn.ops = std::move(undo);
  txn.inverses.clear();
  txn.done.clear();
  int64_t id = txn.id = next_txn_++;
  Send(txn, timeout_s_);
  if (txn_ && txn_->id == id && txn_->pending.empty()) Complete();
}

}  // namespace psched::daemon
