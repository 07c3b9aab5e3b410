// Foreign sessions' layouts, learned lazily.
//
// A node registers another session's namespace with PMIx (no local ranks) only
// when one of its ranks names that session: connect/disconnect, the children of an
// MPI_Comm_spawn placed elsewhere, job control. Launches cost no message to the
// nodes a session does not use.
//
// The source is the leader's LayoutDirectory, fed by each session's first node
// (one message at its start, one at its end; none when that node is the leader).
// Why the leader and not the session's first node: a rank only knows the other
// session's nspace, not where it runs, and the leader is the one node every daemon
// can ask. (LeaderService knows every placement too, but lives outside pmix/ and
// has no hostnames-by-nspace view; the directory keeps the exact bytes the owner
// registered, so every node registers the same layout.)
//
// The leader remembers who pulled (subscribers) and, when the owner says the
// session ended or the owner is lost, tells exactly those nodes to deregister it.
// A pull that reaches the leader before the owner's layout (the nspace can travel
// faster, e.g. in a file written after MPI_Init) is parked for a short while; a
// session that ended or never existed gets a clear error.
#include <cstdio>

#include "pmix/daemon_host.hpp"
#include "pmix/daemon_wire.hpp"

namespace psched::pmix {
namespace {

// A pull waits this long at the leader for the owner's layout to arrive.
constexpr std::chrono::milliseconds kParkLimit{5000};
// A pull's whole round trip (the leader answers within kParkLimit).
constexpr std::chrono::milliseconds kPullLimit{60000};

// The layout as the owner registered it (proto::PmixSessionLayout): everything a node
// without local ranks needs to register the same namespace.
std::string LayoutBytes(const PmixSessionInfo& si) {
  proto::PmixSessionLayout layout{
      .session = si.session_id, .ns = si.nspace, .hosts = si.hostnames, .apps = si.app_sizes};
  layout.ranks.reserve(si.ranks.size());
  for (const auto& r : si.ranks) layout.ranks.push_back({r.node, r.local_rank});
  return proto::EncodePmix(layout);
}

// A pulled layout, its node ids checked against this allocation's `nodes`.
Result<PmixSessionInfo> LayoutFromBytes(const std::string& bytes, int this_node, int nodes) {
  auto layout = proto::DecodeSessionLayout(bytes, nodes);
  if (!layout) return Fail(layout.error());
  PmixSessionInfo si;
  si.session_id = layout->session;
  si.nspace = std::move(layout->ns);
  si.hostnames = std::move(layout->hosts);
  si.this_node = this_node;
  si.ranks.reserve(layout->ranks.size());
  for (const auto& r : layout->ranks) si.ranks.push_back({r[0], r[1]});
  // The same apps as on the owner's node: MPI_APPNUM of a foreign rank agrees.
  si.app_sizes = std::move(layout->apps);
  si.universe_size = si.ranks.size();
  si.rm_step_id = std::to_string(si.session_id);
  return si;
}

}  // namespace

// --- the owner --------------------------------------------------------------------------

void DaemonPmixHost::Registered(const daemon::SessionLaunchInfo& info, const PmixSessionInfo& si) {
  nspaces_[info.session] = info.nspace;
  if (!info.nodes.empty() && info.nodes.front() == info.node) {
    published_.insert(info.session);
    if (leader()) {
      DirectoryAdd(info.session, info.nspace, LayoutBytes(si), tree_.node());
    } else {
      tree_.SendToNode(0, "pmix.layout",
                       proto::EncodePmix(proto::PmixLayout{.op = "start",
                                                           .session = info.session,
                                                           .ns = info.nspace,
                                                           .layout = {LayoutBytes(si)}}));
    }
  }
  LayoutSettled(info.nspace, {});  // pulls waiting for this local registration
}

// --- any node: pulling ------------------------------------------------------------------

std::optional<int64_t> DaemonPmixHost::SessionOfNspace(const std::string& nspace) const {
  for (const auto* m : {&nspaces_, &foreign_}) {
    for (const auto& [session, ns] : *m)
      if (ns == nspace) return session;
  }
  return std::nullopt;
}

void DaemonPmixHost::EnsureKnown(const std::vector<std::string>& nspaces, OpDone done) {
  // One answer for all: the first error, or success once every nspace is in.
  if (nspaces.empty()) return done({});
  OpDone each = AllOf(nspaces.size(), std::move(done));
  for (const auto& ns : nspaces) EnsureOneKnown(ns, each);
}

void DaemonPmixHost::EnsureOneKnown(const std::string& nspace, OpDone done) {
  if (SessionOfNspace(nspace)) return done({});
  auto& waiters = layout_waiters_[nspace];
  waiters.push_back(std::move(done));
  if (waiters.size() > 1) return;          // a pull or registration is under way
  if (starting_.contains(nspace)) return;  // local ranks: Registered settles it
  if (leader()) {
    return ServePull(tree_.node(), nspace,
                     [this, nspace](Result<std::string> r) { OnPulled(nspace, std::move(r)); });
  }
  uint64_t id = Track([this, nspace](Result<std::string> r) { OnPulled(nspace, std::move(r)); },
                      kPullLimit, "layout of namespace " + nspace + " from the leader");
  tree_.SendToNode(0, "pmix.layout",
                   proto::EncodePmix(proto::PmixLayout{.op = "pull", .id = id, .ns = nspace}));
}

void DaemonPmixHost::OnPulled(const std::string& nspace, Result<std::string> layout) {
  if (!layout) return LayoutSettled(nspace, Fail(layout.error()));
  if (SessionOfNspace(nspace)) return LayoutSettled(nspace, {});
  if (starting_.contains(nspace)) return;  // its local registration settles it
  auto si = LayoutFromBytes(*layout, tree_.node(), tree_.num_nodes());
  if (!si) return LayoutSettled(nspace, Fail(si.error()));
  const int64_t session = si->session_id;
  // No local ranks: PMIx learns the namespace's shape only. The session's end
  // arriving while PMIx registers it drops the registration (ForeignEnded).
  foreign_pending_[session] = nspace;
  server_->RegisterSession(*si, [this, session, nspace](Result<void> r) {
    foreign_pending_.erase(session);
    if (!r) return LayoutSettled(nspace, Fail(r.error()));
    foreign_[session] = nspace;
    LayoutSettled(nspace, {});
  });
}

void DaemonPmixHost::LayoutSettled(const std::string& nspace, Result<void> r) {
  auto it = layout_waiters_.find(nspace);
  if (it == layout_waiters_.end()) return;
  auto waiters = std::move(it->second);
  layout_waiters_.erase(it);
  for (auto& w : waiters) w(r);
}

void DaemonPmixHost::ForeignEnded(int64_t session) {
  if (foreign_.erase(session) > 0) return ForgetSession(session);
  auto pending = foreign_pending_.find(session);
  if (pending == foreign_pending_.end()) return;
  std::string nspace = pending->second;
  foreign_pending_.erase(pending);
  ForgetSession(session);  // drops the registration in flight: nothing stays behind
  LayoutSettled(nspace,
                Fail(Error(ErrorCode::kNotFound, "namespace " + nspace + ": the session ended")
                         .WithSession(session)));
}

void DaemonPmixHost::OnLayout(int from, const std::string& data) {
  auto m = wire::Receive<proto::PmixLayout>(data, "pmix.layout");
  if (!m) return;
  if (m->op == "drop") return ForeignEnded(m->session);
  if (!leader()) {
    std::fprintf(stderr, "psched pmix: pmix.layout '%s' sent to node %d dropped\n", m->op.c_str(),
                 tree_.node());
    return;
  }
  if (m->op == "start") {
    DirectoryAdd(m->session, m->ns, std::move(m->layout.bytes), from);
  } else if (m->op == "ended") {
    DirectoryEnd(m->session);
  } else if (m->op == "pull") {
    ServePull(from, m->ns, [this, from, id = m->id](Result<std::string> r) {
      SendReply(from, id, std::move(r));
    });
  } else {
    std::fprintf(stderr, "psched pmix: unknown pmix.layout op '%s' dropped\n", m->op.c_str());
  }
}

// --- the leader: the directory ------------------------------------------------------------

void DaemonPmixHost::ServePull(int from, const std::string& nspace,
                               std::function<void(Result<std::string>)> reply) {
  LayoutDirectory::Pulled p = directory_->Pull(nspace, from);
  switch (p.outcome) {
    case LayoutDirectory::PullOutcome::kFound:
      return reply(std::move(p.layout));
    case LayoutDirectory::PullOutcome::kEnded:
      return reply(Fail(Error(ErrorCode::kNotFound, "namespace " + nspace + ": session " +
                                                        std::to_string(p.session) + " has ended")
                            .WithSession(p.session)));
    case LayoutDirectory::PullOutcome::kUnknown:
      if (nspace.starts_with(kRefusedChildrenPrefix)) {
        return reply(
            Fail(ErrorCode::kNotFound,
                 "namespace " + nspace + " names MPI_Comm_spawn children that were refused"));
      }
      break;
  }
  // Not (yet) published: wait for the owner's layout, within kParkLimit.
  uint64_t id = Track(
      [this, nspace, reply = std::move(reply)](Result<std::string> r) {
        if (!r && r.error().code() == ErrorCode::kTimeout) {
          auto& parked = parked_pulls_[nspace];
          std::erase_if(parked, [&](const auto& p) { return !pending_.contains(p.second); });
          if (parked.empty()) parked_pulls_.erase(nspace);
          return reply(
              Fail(ErrorCode::kNotFound,
                   "namespace " + nspace + " is not a running session of this allocation"));
        }
        reply(std::move(r));
      },
      kParkLimit, "layout of namespace " + nspace);
  parked_pulls_[nspace].emplace_back(from, id);
}

void DaemonPmixHost::DirectoryAdd(int64_t session, const std::string& nspace, std::string layout,
                                  int owner) {
  if (!directory_->Add(session, nspace, std::move(layout), owner)) {
    std::fprintf(stderr,
                 "psched pmix: layout of session %ld (%s) published twice: kept the first\n",
                 static_cast<long>(session), nspace.c_str());
  }
  auto it = parked_pulls_.find(nspace);
  if (it == parked_pulls_.end()) return;
  auto parked = std::move(it->second);
  parked_pulls_.erase(it);
  for (const auto& [node, id] : parked) {
    LayoutDirectory::Pulled p = directory_->Pull(nspace, node);  // subscribes the node
    Complete(id, std::move(p.layout));
  }
}

void DaemonPmixHost::DirectoryEnd(int64_t session) {
  // Its end forgets its links; a failure took them already (a rank's failure is told
  // before its session ends: the same node, or the leader's kill comes between).
  links_.End(directory_->NspaceOf(session));
  for (int node : directory_->End(session)) {
    if (node == tree_.node()) {
      ForeignEnded(session);
    } else {
      tree_.SendToNode(node, "pmix.layout",
                       proto::EncodePmix(proto::PmixLayout{.op = "drop", .session = session}));
    }
  }
}

void DaemonPmixHost::NodesLost(const std::vector<int>& nodes) {
  if (!leader()) return;
  // A lost owner never sends `ended`: end its sessions here, so that their
  // subscribers get `drop` and later pulls answer "ended", not the stale layout.
  // Their names go too: a session's nodes drop them at its end, and the lost one
  // never will (the leader fails the session everywhere, so none of it is left).
  // Lost nodes are unsubscribed first: no `drop` is sent to a node that is gone.
  for (int node : nodes) directory_->Unsubscribe(node);
  for (int node : nodes) {
    for (int64_t session : directory_->PublishedBy(node)) {
      const std::string nspace = directory_->NspaceOf(session);
      DirectoryEnd(session);
      names_->names().DropNamespace(nspace);
    }
  }
}

}  // namespace psched::pmix
