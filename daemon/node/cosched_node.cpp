#include "daemon/node/cosched_node.hpp"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "common/timeval.hpp"
#include "daemon/node/freezer.hpp"
#include "daemon/node/repin.hpp"
#include "daemon/node/suspend.hpp"
#include "daemon/node/topology.hpp"

namespace psched::daemon {

struct CoschedNode::Txn {
  CoschedNode* owner = nullptr;
  int64_t id = 0;
  std::vector<proto::CoschedOp> ops;
  size_t next = 0;
  std::vector<int> done;  // indices of ops carried out
  event* timer = nullptr;
  bool graced = false;         // the order's surpass grace began (SIGTSTP sent, timer set)
  std::vector<size_t> warned;  // suspend ops whose session got the grace's SIGTSTP
  bool suspending = false;     // the current suspend was asked; confirmation pending
  Clock::TimePoint confirm_by;
  event* poll = nullptr;  // the next look at the confirmation
  ~Txn() {
    if (timer) event_free(timer);
    if (poll) event_free(poll);
  }
};

CoschedNode::CoschedNode(event_base* base, int node, NodeService& ranks, std::vector<int> real_pus,
                         Reply reply, const Clock& clock)
    : base_(base),
      node_(node),
      ranks_(ranks),
      real_pus_(std::move(real_pus)),
      reply_(std::move(reply)),
      clock_(clock) {}

CoschedNode::~CoschedNode() {
  waiting_.clear();
  if (topology_) hwloc_topology_destroy(topology_);
}

void CoschedNode::OnOrder(const std::string& data) {
  auto txn = std::make_unique<Txn>();
  txn->owner = this;
  auto order = proto::DecodeCoschedOrder(data);
  if (!order) return;  // not from our leader
  txn->id = order->txn;
  txn->ops = std::move(order->ops);
  Txn& t = *txn;
  waiting_.push_back(std::move(txn));
  // One at a time, in the order received: a rollback must not overtake the order it
  // undoes while that one waits out a surpass grace (or this daemon was stopped).
  if (waiting_.size() == 1) Step(t);
}

Result<bool> CoschedNode::Suspend(Txn& txn, int64_t session, double confirm_s) {
  const Clock::TimePoint now = clock_.Now();
  if (!txn.suspending) {
    if (auto ok = ranks_.Suspend(session); !ok) return Fail(ok.error());
    txn.suspending = true;
    txn.confirm_by = now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                               std::chrono::duration<double>(confirm_s));
  }
  // A short look here (the loop waits meanwhile), then a timer for the next look.
  SessionFreezer* freezer = ranks_.freezer();
  std::vector<pid_t> pids;
  for (auto [rank, pid] : ranks_.LocalProcesses(session)) pids.push_back(pid);
  pid_t running = 0;
  auto done = LookFor(
      [&]() -> Result<bool> {
        return freezer ? freezer->Frozen(session) : AllStopped(pids, &running);
      },
      0.001);
  if (done && !*done && now > txn.confirm_by) {
    char within[64];
    std::snprintf(within, sizeof within, " within %g s", confirm_s);
    done = Fail(ErrorCode::kTimeout,
                (freezer ? "cgroup " + freezer->PathOf(session) + " did not report frozen"
                         : "process " + std::to_string(running) + " did not stop (state " +
                               std::string(1, ProcState(running)) + ")") +
                    within);
  }
  if (!done || *done) {
    txn.suspending = false;
    return done;
  }
  if (txn.poll == nullptr) txn.poll = evtimer_new(base_, &CoschedNode::OnGrace, &txn);
  timeval next{0, 1000};
  evtimer_add(txn.poll, &next);
  return false;
}

Result<void> CoschedNode::Repin(int64_t session, const std::vector<proto::CoschedRank>& ranks) {
  if (topology_ == nullptr) {
    hwloc_topology_init(&topology_);
    if (hwloc_topology_load(topology_) != 0) {
      hwloc_topology_destroy(topology_);
      topology_ = nullptr;
      return Fail(Error::FromErrno("hwloc_topology_load", "loading this machine's topology"));
    }
  }
  auto local = ranks_.LocalProcesses(session);
  for (const proto::CoschedRank& r : ranks) {
    auto it = std::find_if(local.begin(), local.end(), [&](auto& p) { return p.first == r.rank; });
    if (it == local.end()) continue;  // exited already
    cpu_set_t cpus = CpuSetFor(r.pus, real_pus_);
    if (auto ok = RepinProcessTree(topology_, it->second, cpus); !ok)
      return Fail(ok.error().WithSession(session));
  }
  return {};
}

void CoschedNode::Step(Txn& txn) {
  while (txn.next < txn.ops.size()) {
    const proto::CoschedOp& op = txn.ops[txn.next];
    const std::string& what = op.op;
    const int64_t session = op.session;
    const double grace = op.grace_s;
    Result<void> ok;
    if (what == "suspend" && grace > 0 && !txn.graced) return StartGrace(txn);
    if (txn.timer) {
      event_free(txn.timer);
      txn.timer = nullptr;
    }
    if (what == "suspend") {
      // The leader's [policy] suspend_confirm_timeout_s; an order without one (or with
      // a value no config accepts) gets the default.
      double confirm = op.confirm_s;
      if (!std::isfinite(confirm) || confirm <= 0) confirm = kConfirmTimeoutS;
      auto confirmed = Suspend(txn, session, confirm);
      if (confirmed && !*confirmed) return;  // the poll timer calls Step again
      if (!confirmed) ok = Fail(confirmed.error().WithSession(session));
    } else if (what == "resume") {
      ranks_.Resume(session);
    } else if (what == "repin") {
      ok = Repin(session, op.ranks);
    } else {
      ok = Fail(ErrorCode::kProtocol, "unknown co-scheduling operation '" + what + "'");
    }
    if (!ok) return Finish(txn, std::move(ok));
    txn.done.push_back(static_cast<int>(txn.next));
    ++txn.next;
  }
  Finish(txn, {});
}

// Surpass grace: SIGTSTP lets a program that handles it reach a safe point first. Every
// session the order suspends gets it now and they share one grace (the leader waits
// for one, not one per session), then each is stopped in turn.
void CoschedNode::StartGrace(Txn& txn) {
  txn.graced = true;
  double grace = 0;
  for (size_t i = txn.next; i < txn.ops.size(); ++i) {
    const proto::CoschedOp& op = txn.ops[i];
    if (op.op != "suspend" || op.grace_s <= 0) continue;
    ranks_.Signal(op.session, SIGTSTP);
    txn.warned.push_back(i);
    grace = std::max(grace, op.grace_s);
  }
  txn.timer = evtimer_new(base_, &CoschedNode::OnGrace, &txn);
  timeval tv = TimevalFromSeconds(grace);
  evtimer_add(txn.timer, &tv);
}

// A failed order is undone by the leader up to its failing step; a session warned for a
// later suspend was never suspended, but SIGTSTP may have stopped it: it runs on.
void CoschedNode::ContinueWarnedBeyond(const Txn& txn, size_t failed) {
  for (size_t i : txn.warned)
    if (i > failed) ranks_.Signal(txn.ops[i].session, SIGCONT);
}

void CoschedNode::OnGrace(evutil_socket_t, short, void* arg) {
  auto* txn = static_cast<Txn*>(arg);
  // The grace is spent (or the next look at a suspend's confirmation is due).
  txn->owner->Step(*txn);
}

void CoschedNode::Finish(Txn& txn, Result<void> result) {
  if (!result) ContinueWarnedBeyond(txn, txn.next);
  proto::CoschedReply reply{
      .txn = txn.id, .node = node_, .ok = result.has_value(), .done = txn.done};
  if (!result) reply.error = result.error().WithNode(node_).ToString();
  std::erase_if(waiting_, [&](const auto& t) { return t.get() == &txn; });  // frees txn
  reply_(proto::EncodeCoschedReply(reply));
  if (!waiting_.empty()) Step(*waiting_.front());
}

}  // namespace psched::daemon
