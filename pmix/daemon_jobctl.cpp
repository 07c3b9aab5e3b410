// PMIx job control (PMIx_Job_control from any rank, upcall JobControl), the daemon's
// side: terminate/kill fail the session through the leader (its launcher says why);
// pause/resume go to the leader and run as psched-ctl suspend/resume do (a plan the
// nodes confirm; the leader's model learns it); signals fan out to the session's nodes.
// Targets this node has never heard of are learned first (daemon_layouts.cpp).
#include <signal.h>

#include <algorithm>
#include <cstdio>

#include "pmix/daemon_host.hpp"
#include "pmix/daemon_wire.hpp"

namespace psched::pmix {
namespace {

// The leader answers a pause/resume once its plan ran (it may wait for one in flight).
constexpr std::chrono::milliseconds kJobControlLimit{60000};

}  // namespace

void DaemonPmixHost::JobControl(JobControlRequest req, OpDone done) {
  if (!actions_.suspend_session || !actions_.signal_local) {
    done(Fail(ErrorCode::kInvalidArgument, "job control is not wired in this daemon"));
    return;
  }
  if (!req.unknown_nspaces.empty()) {
    // Targets without ranks here: learn where they run first.
    std::vector<std::string> unknown = std::move(req.unknown_nspaces);
    req.unknown_nspaces.clear();
    EnsureKnown(unknown, [this, unknown, req = std::move(req),
                          done = std::move(done)](Result<void> r) mutable {
      if (!r) return done(Fail(r.error().WithNode(tree_.node())));
      for (const auto& ns : unknown)
        if (auto s = SessionOfNspace(ns)) req.sessions.push_back(*s);
      JobControl(std::move(req), std::move(done));
    });
    return;
  }
  std::string who = req.requestor.nspace + ":" + std::to_string(req.requestor.rank);
  std::vector<int64_t> to_suspend_or_resume;
  for (int64_t s : req.sessions) {
    std::string nspace;
    if (auto it = nspaces_.find(s); it != nspaces_.end()) {
      nspace = it->second;
    } else if (auto f = foreign_.find(s); f != foreign_.end()) {
      nspace = f->second;  // no local ranks: only fan out
    } else {
      continue;
    }
    switch (req.action) {
      case JobControlAction::kTerminate:
      case JobControlAction::kKill: {
        // Through the leader, so the session's launcher learns why it ended.
        int sig = req.action == JobControlAction::kKill ? SIGKILL : SIGTERM;
        if (actions_.fail_session)
          actions_.fail_session(s, 0, 128 + sig, "terminated by PMIx job control from " + who);
        break;
      }
      case JobControlAction::kPause:
      case JobControlAction::kResume:
        to_suspend_or_resume.push_back(s);
        break;
      case JobControlAction::kSignal: {
        if (req.signal <= 0 || req.signal >= NSIG) break;
        // Every node of the session signals its own ranks.
        ProcsLocation where = server_->Locate({ProcName{nspace, kWildcardRank}});
        std::string order =
            proto::EncodePmix(proto::PmixJobControl{.session = s, .signal = req.signal});
        for (int node : where.nodes)
          if (node != tree_.node()) tree_.SendToNode(node, "pmix.jobctl", order);
        if (std::binary_search(where.nodes.begin(), where.nodes.end(), tree_.node()))
          actions_.signal_local(s, req.signal);
        break;
      }
    }
  }
  if (to_suspend_or_resume.empty()) return done({});
  OpDone each = AllOf(to_suspend_or_resume.size(), std::move(done));
  for (int64_t s : to_suspend_or_resume)
    SuspendThroughLeader(s, req.action == JobControlAction::kPause, each);
}

void DaemonPmixHost::SuspendThroughLeader(int64_t session, bool suspend, OpDone done) {
  auto named = [session](Result<void> r) -> Result<void> {
    if (r) return r;
    return Fail(r.error().code(), "session " + std::to_string(session) + " " + r.error().message());
  };
  if (leader()) {
    return actions_.suspend_session(
        session, suspend, [named, done = std::move(done)](Result<void> r) { done(named(r)); });
  }
  uint64_t id = Track([done = std::move(done)](
                          Result<std::string> r) { done(r ? Result<void>{} : Fail(r.error())); },
                      kJobControlLimit, "PMIx job control of session " + std::to_string(session));
  tree_.SendToNode(0, "pmix.jobctl",
                   proto::EncodePmix(proto::PmixJobControl{
                       .id = id, .op = suspend ? "pause" : "resume", .session = session}));
}

void DaemonPmixHost::OnJobControl(int from, const std::string& data) {
  auto m = wire::Receive<proto::PmixJobControl>(data, "pmix.jobctl");
  if (!m) return;
  if (!m->op.empty()) {  // to the leader: pause or resume, answered
    if (m->op != "pause" && m->op != "resume") {
      std::fprintf(stderr, "psched pmix: pmix.jobctl with unknown op '%s' dropped\n",
                   m->op.c_str());
      return SendReply(from, m->id, Fail(ErrorCode::kProtocol, "unknown job control " + m->op));
    }
    if (!leader() || !actions_.suspend_session)
      return SendReply(from, m->id, Fail(ErrorCode::kInvalidArgument, "not the leader"));
    return SuspendThroughLeader(
        m->session, m->op == "pause", [this, from, id = m->id](Result<void> r) {
          SendReply(from, id, r ? Result<std::string>(std::string()) : Fail(r.error()));
        });
  }
  if (m->signal > 0 && m->signal < NSIG) actions_.signal_local(m->session, m->signal);
}

}  // namespace psched::pmix
