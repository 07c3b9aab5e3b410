#include "pmix/daemon_host.hpp"

#include <event2/event.h>
#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>

#include "pmix/daemon_wire.hpp"
#include "pmix/stale_dirs.hpp"
#include "proto/comm_spawn.hpp"

namespace psched::pmix {
namespace {

// The participants of a collective as a short, order-free name: FNV-1a over the sorted
// "nspace/rank" list (the wildcard rank is "*"). Short, because it travels in every
// contribution's id; a collision would only share a counter, as before.
std::string ParticipantsKey(const std::vector<ProcName>& procs) {
  std::vector<std::string> names;
  names.reserve(procs.size());
  for (const ProcName& p : procs)
    names.push_back(p.nspace + "/" + (p.rank == kWildcardRank ? "*" : std::to_string(p.rank)));
  std::sort(names.begin(), names.end());
  uint64_t hash = 14695981039346656037ULL;
  for (const std::string& name : names) {
    for (char c : name + '\n') {
      hash ^= static_cast<unsigned char>(c);
      hash *= 1099511628211ULL;
    }
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

constexpr std::chrono::milliseconds kDmodexLimit{60000};
constexpr std::chrono::milliseconds kNamesLimit{60000};

proto::PmixLookupValues LookupValues(const std::vector<PublishedValue>& values) {
  proto::PmixLookupValues out;
  out.values.reserve(values.size());
  for (const auto& v : values) {
    out.values.push_back({v.key, {v.value}, v.publisher.nspace, v.publisher.rank});
  }
  return out;
}

std::vector<PublishedValue> PublishedValues(proto::PmixLookupValues values) {
  std::vector<PublishedValue> out;
  out.reserve(values.values.size());
  for (auto& v : values.values) {
    out.push_back({std::move(v.k), std::move(v.v.bytes), Publisher{std::move(v.ns), v.r}});
  }
  return out;
}

}  // namespace

struct DaemonPmixHost::PendingRequest {
  DaemonPmixHost* self = nullptr;
  uint64_t id = 0;
  std::string what;
  std::function<void(Result<std::string>)> reply;
  event* timer = nullptr;
};

DaemonPmixHost::DaemonPmixHost(event_base* base, daemon::TreeServices& tree, DaemonActions actions)
    : base_(base), tree_(tree), actions_(std::move(actions)) {}

Result<std::unique_ptr<DaemonPmixHost>> DaemonPmixHost::Create(std::unique_ptr<PmixServer> server,
                                                               daemon::TreeServices& tree,
                                                               DaemonActions actions) {
  if (server == nullptr || server->options().node_index != tree.node()) {
    return Fail(Error(ErrorCode::kInternal, "PMIx host: no PMIx server for this node")
                    .WithNode(tree.node()));
  }
  event_base* base = server->base();
  std::unique_ptr<DaemonPmixHost> host(new DaemonPmixHost(base, tree, std::move(actions)));
  server->SetServices(host.get());
  // Directories of daemons SIGKILLed earlier (same user, owner provably dead).
  const std::string own_dir = server->options().tmpdir;
  SweepReport swept = RemoveStaleDirs(std::filesystem::path(own_dir).parent_path().string(),
                                      kDaemonDirPrefix, own_dir);
  if (!swept.removed.empty()) {
    std::fprintf(stderr, "pschedd[%d]: removed %zu PMIx director%s of dead daemons (%s%s)\n",
                 tree.node(), swept.removed.size(), swept.removed.size() == 1 ? "y" : "ies",
                 swept.removed.front().c_str(), swept.removed.size() > 1 ? ", ..." : "");
  }
  host->server_ = std::move(server);
  if (host->leader()) {
    host->names_ = std::make_unique<LocalHostServices>(base, LocalHostServices::Hooks{});
    host->directory_ = std::make_unique<LayoutDirectory>();
  }
  DaemonPmixHost* self = host.get();
  tree.RegisterService("pmix.dmodex",
                       [self](int from, const std::string& d) { self->OnDmodexRequest(from, d); });
  tree.RegisterService("pmix.names",
                       [self](int from, const std::string& d) { self->OnNamesRequest(from, d); });
  tree.RegisterService("pmix.jobctl",
                       [self](int from, const std::string& d) { self->OnJobControl(from, d); });
  tree.RegisterService("pmix.layout",
                       [self](int from, const std::string& d) { self->OnLayout(from, d); });
  tree.RegisterService("pmix.reply", [self](int, const std::string& d) { self->OnReply(d); });
  tree.RegisterService("pmix.interact", [self](int, const std::string& d) { self->OnInteract(d); });
  tree.RegisterService(std::string(proto::kPmixSpawnedService),
                       [self](int, const std::string& d) { self->OnSpawned(d); });
  tree.RegisterService("pmix.failed",
                       [self](int, const std::string& d) { self->OnProcsFailed(d); });
  return host;
}

DaemonPmixHost::~DaemonPmixHost() {
  // The daemon owns this object and drops its "pmix.*" services with it. Our own
  // events go first: the server may hand the loop's base back to PMIx's thread.
  for (auto& [id, p] : pending_) {
    if (p->timer != nullptr) event_free(p->timer);
    p->timer = nullptr;
  }
  names_.reset();
  server_.reset();  // joins PMIx's thread: no more upcalls
}

// --- LaunchHooks ----------------------------------------------------------------------

Result<void> DaemonPmixHost::SessionStarting(const daemon::SessionLaunchInfo& info) {
  return Fail(Error(ErrorCode::kInternal,
                    "PMIx: SessionStarting is asynchronous here (SessionStartingAsync)")
                  .WithSession(info.session));
}

void DaemonPmixHost::SessionStartingAsync(const daemon::SessionLaunchInfo& info, StartDone done) {
  PmixSessionInfo si;
  si.session_id = info.session;
  si.nspace = info.nspace;
  si.hostnames = info.hostnames;
  si.this_node = info.node;
  si.ranks.resize(info.size);
  std::vector<bool> seen(info.size, false);
  for (const auto& r : info.ranks) {
    if (r.rank < 0 || r.rank >= info.size || seen[r.rank]) {
      return done(Fail(Error(ErrorCode::kInvalidArgument, "PMIx: rank " + std::to_string(r.rank) +
                                                              " is out of range or listed twice")
                           .WithSession(info.session)));
    }
    seen[r.rank] = true;
    si.ranks[r.rank] = RankPlacement{r.node, r.local_rank};
  }
  // The allocation's slots, as PMI-1's get_universe_size: MPI_UNIVERSE_SIZE agrees for
  // Open MPI and MPICH (a session wider than the allocation is its own universe).
  si.universe_size = std::max(info.size, info.universe_size);
  si.parent_nspace = info.parent_nspace;
  si.parent_rank = info.parent_rank;
  si.app_sizes = info.app_sizes;
  const char* job = std::getenv("SLURM_JOB_ID");
  si.rm_jobid = job != nullptr ? job : "psched";
  si.rm_step_id = std::to_string(info.session);
  // Answered on the loop once PMIx has accepted the namespace and the local clients;
  // meanwhile the loop serves everything else.
  // A pull for this nspace meanwhile (a connect from a local rank of another session)
  // waits for this registration instead of registering the layout a second time.
  starting_[info.nspace] = info.session;
  server_->RegisterSession(si, [this, info, si, done = std::move(done)](Result<void> r) {
    starting_.erase(info.nspace);
    if (!r) {
      LayoutSettled(info.nspace, Fail(r.error()));
      return done(Fail(r.error()));
    }
    Registered(info, si);
    done({});
  });
}

Result<std::vector<std::string>> DaemonPmixHost::RankEnvironment(int64_t session, int rank) {
  auto env = server_->RankEnvironment(session, static_cast<uint32_t>(rank));
  if (!env) return Fail(env.error());
  std::vector<std::string> out;
  for (const auto& [k, v] : *env) out.push_back(k + "=" + v);
  return out;
}

std::vector<std::string> DaemonPmixHost::EnvironmentDefaults() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : server_->EnvDefaults()) out.push_back(k + "=" + v);
  return out;
}

void DaemonPmixHost::SessionEnded(int64_t session) {
  for (auto s = starting_.begin(); s != starting_.end(); ++s) {
    if (s->second != session) continue;
    // Killed while PMIx registers it: drop the registration (its answer never comes).
    std::string ns = s->first;
    starting_.erase(s);
    server_->DeregisterSession(session);
    LayoutSettled(ns, Fail(Error(ErrorCode::kNotFound, "namespace " + ns + ": the session ended")
                               .WithSession(session)));
    break;
  }
  // Its MPI_Comm_spawn requests from here: nobody connects to their children any more.
  for (auto s = ompi_spawns_.begin(); s != ompi_spawns_.end();) {
    s = s->second.parent_session == session ? ompi_spawns_.erase(s) : std::next(s);
  }
  auto it = nspaces_.find(session);
  if (it == nspaces_.end()) return;
  std::string ns = it->second;
  nspaces_.erase(it);
  in_mpi_.erase(session);
  failure_told_.erase(session);
  told_failed_.erase(session);
  ForgetSession(session);
  if (published_.erase(session) > 0) {
    // The leader tells the nodes that pulled the layout, and only those.
    if (leader()) {
      DirectoryEnd(session);
    } else {
      tree_.SendToNode(0, "pmix.layout",
                       proto::EncodePmix(proto::PmixLayout{.op = "ended", .session = session}));
    }
  }
  if (leader()) {
    names_->names().DropNamespace(ns);
  } else {
    tree_.SendToNode(0, "pmix.names", proto::EncodePmix(proto::PmixNames{.op = "drop", .ns = ns}));
  }
}

// --- client lifecycle and abort --------------------------------------------------------

void DaemonPmixHost::ClientConnected(int64_t session, uint32_t rank) {
  in_mpi_[session].insert(rank);
}

void DaemonPmixHost::ClientFinalized(int64_t session, uint32_t rank) {
  if (auto it = in_mpi_.find(session); it != in_mpi_.end()) it->second.erase(rank);
}

// Ranks that leave MPI at psched's SIGTERM (a checkpoint, then exit 0) are not failures.
void DaemonPmixHost::SessionEnding(int64_t session) {
  // Ended by psched (psched-ctl kill, its parent's end, or a failure elsewhere, which its
  // own node has told already): the sessions connected to it hear of it too.
  auto it = in_mpi_.find(session);
  if (it == in_mpi_.end()) return;
  if (!it->second.empty()) {
    // psched ends its ranks with SIGTERM (SIGKILL after the grace).
    NoteRankFailed(
        session, *it->second.begin(), 128 + SIGTERM,
        "ended by psched while rank " + std::to_string(*it->second.begin()) + " was in MPI");
  }
  in_mpi_.erase(it);
}

void DaemonPmixHost::RankExited(int64_t session, int rank, int code) {
  // The finalize upcall was posted before the rank could exit: see it first.
  server_->queue().Drain();
  server_->RankEnded(session, static_cast<uint32_t>(rank), code);
  // Not in PMIx, or ending by psched's hand (SessionEnding): nobody to tell.
  auto it = in_mpi_.find(session);
  if (it == in_mpi_.end()) return;
  const bool inside = it->second.erase(static_cast<uint32_t>(rank)) > 0;
  const std::string who = "rank " + std::to_string(rank);
  if (code != 0) {
    // The daemon fails the session; the sessions connected to it hear of it here.
    NoteRankFailed(session, static_cast<uint32_t>(rank), code,
                   code > 128 ? who + " killed by signal " + std::to_string(code - 128) + " (" +
                                    strsignal(code - 128) + ")"
                              : who + " exited with status " + std::to_string(code));
    return;
  }
  if (!inside) return;
  // A clean exit inside MPI would leave the other ranks waiting forever.
  if (actions_.fail_session) actions_.fail_session(session, rank, 1, "exited before MPI_Finalize");
  NoteRankFailed(session, static_cast<uint32_t>(rank), 1, who + " exited before MPI_Finalize");
}

void DaemonPmixHost::AbortSession(int64_t session, uint32_t rank, int status, std::string message) {
  // Open MPI 4.1's MPI_Abort has no message to pass and hands PMIx "N/A" instead
  // (ess/pmi): that says nothing, so it is left out like an empty one.
  const bool said_something = !message.empty() && message != "N/A";
  std::string text = "called MPI_Abort with status " + std::to_string(status) +
                     (said_something ? ": " + message : "");
  // Open MPI 4.1 aborts so when told that a session it connected to failed. It exits
  // with that session's status, as mpirun does when a spawned job fails (3 for a child's
  // exit(3), 137 for its SIGKILL), not with the event's code Open MPI aborts with.
  int code = status;
  if (auto told = told_failed_.find(session); told != told_failed_.end()) {
    text += " after psched told it that " + told->second.what;
    code = told->second.code;
  }
  NoteRankFailed(session, rank, code, "rank " + std::to_string(rank) + " " + text);
  if (actions_.fail_session) {
    actions_.fail_session(session, static_cast<int>(rank), code, std::move(text));
  } else {
    std::fprintf(stderr, "psched pmix: session %ld rank %u %s (no daemon action wired)\n",
                 static_cast<long>(session), rank, text.c_str());
  }
}

// --- collectives ------------------------------------------------------------------------

void DaemonPmixHost::RunCollective(const std::string& kind, std::vector<int64_t> sessions,
                                   const std::vector<ProcName>& procs, std::vector<int> nodes,
                                   std::string blob, BlobDone done) {
  if (nodes.size() <= 1) {
    done(std::move(blob));  // only this node: its blob is the whole result
    return;
  }
  // Every participating node sees the same operations over the same procs in the same
  // order, so kind + sessions + participants + a per-signature counter names the
  // collective. The participants count: a fence over ranks 0 and 1 only must not take
  // a number that the nodes outside it give to the next fence over all.
  std::string sig = kind;
  for (int64_t s : sessions) sig += ":" + std::to_string(s);
  sig += "@" + ParticipantsKey(procs);
  std::string id = sig + "#" + std::to_string(collective_seq_[sig]++);
  // A failed session's other nodes may never contribute (or may, after this node
  // has deregistered the namespace): the session's end answers PMIx instead.
  auto slot = std::make_shared<BlobDone>(std::move(done));
  for (int64_t s : sessions) {
    auto& slots = in_flight_[s];
    std::erase_if(slots, [](const auto& p) { return !*p; });  // answered earlier
    slots.push_back(slot);
  }
  tree_.Collective(sessions.empty() ? -1 : sessions.front(), id, std::move(blob), std::move(nodes),
                   [slot](Result<std::string> all) {
                     if (!*slot) return;  // already answered when its session ended
                     BlobDone done = std::move(*slot);
                     *slot = nullptr;
                     done(std::move(all));
                   });
}

void DaemonPmixHost::AbandonCollectives(int64_t session) {
  auto it = in_flight_.find(session);
  if (it == in_flight_.end()) return;
  auto slots = std::move(it->second);
  in_flight_.erase(it);
  for (auto& slot : slots) {
    if (!*slot) continue;  // shared with another session that already ended
    BlobDone done = std::move(*slot);
    *slot = nullptr;
    done(Fail(Error(ErrorCode::kNotFound, "collective abandoned: the session ended")
                  .WithSession(session)
                  .WithNode(tree_.node())));
  }
}

void DaemonPmixHost::ForgetSession(int64_t session) {
  // Upcalls already posted for this session must see it registered, and every
  // PMIx callback owed for it must be answered while PMIx still knows the
  // namespace: answering a fence after PMIx_server_deregister_nspace leaves
  // PMIx's progress thread working on a tracker of a namespace it dropped.
  server_->queue().Drain();
  AbandonCollectives(session);
  server_->DeregisterSession(session);
}

void DaemonPmixHost::FenceAcrossNodes(FenceRequest req, BlobDone done) {
  std::string blob = req.collect_data ? std::move(req.local_data) : std::string();
  RunCollective("pmix.fence", std::move(req.sessions), req.procs, std::move(req.nodes),
                std::move(blob), std::move(done));
}

void DaemonPmixHost::Connect(std::vector<ProcName> procs, OpDone done) {
  std::vector<std::string> nspaces;
  nspaces.reserve(procs.size());
  for (const ProcName& p : procs) {
    // MPI_Comm_spawn children that will never connect (daemon_comm_spawn.cpp).
    for (const auto& [id, spawn] : ompi_spawns_) {
      if (spawn.gone_nspace == p.nspace)
        return done(Fail(Error(ErrorCode::kNotFound, spawn.why).WithNode(tree_.node())));
    }
    nspaces.push_back(p.nspace);
  }
  NoteInteraction(std::move(nspaces), /*connected=*/true);
  ConnectProcs(std::move(procs), std::move(done));
}

void DaemonPmixHost::ConnectProcs(std::vector<ProcName> procs, OpDone done) {
  ProcsLocation where = server_->Locate(procs);
  if (!where.unknown_nspaces.empty()) {
    // A session without ranks here: every participating node must know every
    // session's layout to agree on who takes part, and PMIx needs it to route
    // direct modex for those ranks. Pull it, then connect.
    std::vector<std::string> unknown = std::move(where.unknown_nspaces);
    EnsureKnown(unknown,
                [this, procs = std::move(procs), done = std::move(done)](Result<void> r) mutable {
                  if (!r) {
                    return done(Fail(r.error().WithNode(tree_.node())));
                  }
                  ProcsLocation known = server_->Locate(procs);
                  if (!known.unknown_nspaces.empty()) {
                    // Registered, then ended before this continuation ran.
                    return done(Fail(Error(ErrorCode::kNotFound, "connect: namespace " +
                                                                     known.unknown_nspaces.front() +
                                                                     " ended while connecting")
                                         .WithNode(tree_.node())));
                  }
                  ConnectProcs(std::move(procs), std::move(done));
                });
    return;
  }
  RunCollective("pmix.connect", std::move(where.sessions), procs, std::move(where.nodes),
                std::string(), [done = std::move(done)](Result<Blob> r) {
                  if (!r) return done(Fail(r.error()));
                  done({});
                });
}

void DaemonPmixHost::Disconnect(std::vector<ProcName> procs, OpDone done) {
  ConnectProcs(std::move(procs), std::move(done));
}

// --- point-to-point requests ------------------------------------------------------------

OpDone DaemonPmixHost::AllOf(size_t n, OpDone done) {
  struct Join {
    size_t left;
    OpDone done;
  };
  auto join = std::make_shared<Join>(Join{n, std::move(done)});
  return [join](Result<void> r) {
    if (!join->done) return;  // already failed
    if (!r || --join->left == 0) {
      OpDone d = std::move(join->done);
      join->done = nullptr;
      d(std::move(r));
    }
  };
}

uint64_t DaemonPmixHost::Track(std::function<void(Result<std::string>)> reply,
                               std::chrono::milliseconds limit, std::string what) {
  auto p = std::make_unique<PendingRequest>();
  p->self = this;
  p->id = next_request_++;
  p->what = std::move(what);
  p->reply = std::move(reply);
  if (limit.count() > 0) {
    p->timer = evtimer_new(base_, &DaemonPmixHost::OnRequestTimeout, p.get());
    timeval tv{static_cast<time_t>(limit.count() / 1000),
               static_cast<suseconds_t>((limit.count() % 1000) * 1000)};
    evtimer_add(p->timer, &tv);
  }
  uint64_t id = p->id;
  pending_[id] = std::move(p);
  return id;
}

void DaemonPmixHost::Complete(uint64_t id, Result<std::string> reply) {
  auto it = pending_.find(id);
  if (it == pending_.end()) return;  // late reply after a timeout
  auto p = std::move(it->second);
  pending_.erase(it);
  if (p->timer != nullptr) event_free(p->timer);
  p->reply(std::move(reply));
}

void DaemonPmixHost::OnRequestTimeout(int, short, void* arg) {
  auto* p = static_cast<PendingRequest*>(arg);
  p->self->Complete(p->id, Fail(ErrorCode::kTimeout, p->what + ": no answer in time"));
}

void DaemonPmixHost::SendReply(int to, uint64_t id, Result<std::string> r) {
  if (id == 0) return;  // fire-and-forget request
  proto::PmixReply reply{.id = id, .ok = r.has_value()};
  if (r) {
    reply.data.bytes = std::move(*r);
  } else {
    reply.code = static_cast<int>(r.error().code());
    reply.msg = r.error().ToString();
  }
  tree_.SendToNode(to, "pmix.reply", proto::EncodePmix(reply));
}

void DaemonPmixHost::OnReply(const std::string& data) {
  auto m = wire::Receive<proto::PmixReply>(data, "pmix.reply");
  if (!m) return;
  if (m->ok) return Complete(m->id, std::move(m->data.bytes));
  // A code this build does not know is the other side's bug, not a reason to cast.
  const bool known = m->code >= 0 && m->code <= static_cast<int>(ErrorCode::kInternal);
  Complete(m->id, Fail(Error(known ? static_cast<ErrorCode>(m->code) : ErrorCode::kInternal,
                             m->msg.empty() ? "remote error" : m->msg)));
}

// --- direct modex ---------------------------------------------------------------------

void DaemonPmixHost::DirectModexRemote(ProcName proc, int node, BlobDone done) {
  if (node == tree_.node()) {
    // A local proc whose data PMIx does not have yet: ask our own server.
    server_->DirectModexLocal(proc, std::move(done));
    return;
  }
  std::string what = "direct modex for " + proc.nspace + ":" + std::to_string(proc.rank) +
                     " from node " + std::to_string(node);
  uint64_t id = Track(std::move(done), kDmodexLimit, what);
  tree_.SendToNode(
      node, "pmix.dmodex",
      proto::EncodePmix(proto::PmixDmodexRequest{.id = id, .ns = proc.nspace, .rank = proc.rank}));
}

void DaemonPmixHost::OnDmodexRequest(int from, const std::string& data) {
  auto m = wire::Receive<proto::PmixDmodexRequest>(data, "pmix.dmodex");
  if (!m) return;
  server_->DirectModexLocal(
      ProcName{std::move(m->ns), m->rank},
      [this, from, id = m->id](Result<Blob> r) { SendReply(from, id, std::move(r)); });
}

// --- name service (kept by the leader) ----------------------------------------------------

void DaemonPmixHost::ToLeader(proto::PmixNames ask, std::function<void(Result<std::string>)> reply,
                              std::chrono::milliseconds limit) {
  ask.id = Track(std::move(reply), limit, "name service " + ask.op);
  tree_.SendToNode(0, "pmix.names", proto::EncodePmix(ask));
}

void DaemonPmixHost::Publish(Publisher who, std::vector<std::pair<std::string, std::string>> kv,
                             Persistence persistence, OpDone done) {
  if (leader()) return names_->Publish(std::move(who), std::move(kv), persistence, std::move(done));
  proto::PmixNames ask{.op = "publish",
                       .ns = who.nspace,
                       .rank = who.rank,
                       .persist = static_cast<int>(persistence)};
  for (auto& [k, v] : kv) ask.kv.push_back({std::move(k), {std::move(v)}});
  ToLeader(
      std::move(ask),
      [done = std::move(done)](Result<std::string> r) {
        if (!r) return done(Fail(r.error()));
        done({});
      },
      kNamesLimit);
}

void DaemonPmixHost::Lookup(Publisher who, std::vector<std::string> keys, bool wait,
                            std::optional<std::chrono::milliseconds> timeout,
                            NameService::LookupDone done) {
  done = NotingChildrenConnect(who, std::move(done));
  if (leader()) {
    NameService::LookupDone noting = NotingInteraction(who, std::move(done));
    return names_->Lookup(std::move(who), std::move(keys), wait, timeout, std::move(noting));
  }
  proto::PmixNames ask{.op = "lookup",
                       .ns = who.nspace,
                       .rank = who.rank,
                       .keys = std::move(keys),
                       .wait = wait,
                       .timeout_ms = timeout ? timeout->count() : -1};
  // A waiting lookup without a timeout waits as long as PMIx asks: no limit here either.
  auto limit = !wait     ? kNamesLimit
               : timeout ? *timeout + kNamesLimit
                         : std::chrono::milliseconds(0);
  ToLeader(
      std::move(ask),
      [done = std::move(done)](Result<std::string> r) {
        if (!r) return done(Fail(r.error()));
        auto values = proto::DecodePmix<proto::PmixLookupValues>(*r, "lookup reply");
        if (!values) {
          return done(Fail(ErrorCode::kProtocol,
                           "lookup: malformed reply from the leader: " + values.error().message()));
        }
        done(PublishedValues(std::move(*values)));
      },
      limit);
}

void DaemonPmixHost::Unpublish(Publisher who, std::vector<std::string> keys, OpDone done) {
  if (leader()) return names_->Unpublish(std::move(who), std::move(keys), std::move(done));
  ToLeader(
      proto::PmixNames{
          .op = "unpublish", .ns = who.nspace, .rank = who.rank, .keys = std::move(keys)},
      [done = std::move(done)](Result<std::string> r) {
        if (!r) return done(Fail(r.error()));
        done({});
      },
      kNamesLimit);
}

void DaemonPmixHost::OnNamesRequest(int from, const std::string& data) {
  auto m = wire::Receive<proto::PmixNames>(data, "pmix.names");
  if (!m || !leader()) return;
  const uint64_t id = m->id;
  if (m->op == "drop") return names_->names().DropNamespace(m->ns);
  Publisher who{m->ns, m->rank};
  auto op_reply = [this, from, id](Result<void> r) {
    SendReply(from, id, r ? Result<std::string>(std::string()) : Fail(r.error()));
  };
  if (m->op == "publish") {
    std::vector<std::pair<std::string, std::string>> kv;
    for (auto& p : m->kv) kv.emplace_back(std::move(p.k), std::move(p.v.bytes));
    auto persistence = PersistenceFromPmix(m->persist);
    if (!persistence) {
      return SendReply(from, id, Fail(ErrorCode::kProtocol, "publish: unknown persistence"));
    }
    names_->Publish(std::move(who), std::move(kv), *persistence, op_reply);
  } else if (m->op == "unpublish") {
    names_->Unpublish(std::move(who), std::move(m->keys), op_reply);
  } else if (m->op == "lookup") {
    std::optional<std::chrono::milliseconds> timeout;
    if (m->timeout_ms >= 0) timeout = std::chrono::milliseconds(m->timeout_ms);
    NameService::LookupDone reply = [this, from, id](const Result<std::vector<PublishedValue>>& r) {
      if (!r) return SendReply(from, id, Fail(r.error()));
      SendReply(from, id, proto::EncodePmix(LookupValues(*r)));
    };
    NameService::LookupDone noting = NotingInteraction(who, std::move(reply));
    names_->Lookup(std::move(who), std::move(m->keys), m->wait, timeout, std::move(noting));
  } else {
    SendReply(from, id, Fail(ErrorCode::kProtocol, "name service: unknown op '" + m->op + "'"));
  }
}

// Spawn: daemon_comm_spawn.cpp. Job control: daemon_jobctl.cpp.

}  // namespace psched::pmix
