#include "pmi/simple_server.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "pmi/host_topology.hpp"
#include "pmi/process_mapping.hpp"
#include "pmi/wire2.hpp"
#include "pmi/wireup.hpp"
#include "proto/comm_spawn.hpp"
#include "proto/messages.hpp"

namespace psched::pmi {

struct SimpleServer::Client {
  SimpleServer* owner = nullptr;
  int64_t session = 0;
  int rank = 0;
  int fd = -1;       // the daemon's end
  int rank_fd = -1;  // the rank's end, until the rank is gone
  event* ev = nullptr;
  LineSplitter lines;    // PMI-1 lines, and every client's first (its init)
  bool pmi2 = false;     // its init asked for PMI-2: messages from then on
  FrameSplitter frames;  // PMI-2 messages
};

struct SimpleServer::Session {
  int64_t id = 0;
  bool spawned = false;  // children of MPI_Comm_spawn (PMI_SPAWNED=1)
  std::vector<int> nodes;
  std::unique_ptr<SimpleSession> kvs;
  std::map<int, std::unique_ptr<Client>> clients;  // by rank
  bool ending = false;                             // SessionEnding: ranks leave at psched's SIGTERM
  bool topology = false;  // its ranks get the host's topology (the user named none)
};

SimpleServer::SimpleServer(event_base* base, daemon::TreeServices& tree, FailSession fail)
    : base_(base), tree_(tree), fail_(std::move(fail)) {
  // The daemon owns this server and drops the service with it.
  tree_.RegisterService(std::string(proto::kPmi1SpawnedService),
                        [this](int, const std::string& d) { OnSpawned(d); });
}

SimpleServer::~SimpleServer() {
  for (auto& [id, s] : sessions_)
    for (auto& [rank, c] : s->clients) CloseClient(*c);
  if (topology_fd_ >= 0) close(topology_fd_);
}

Result<void> SimpleServer::SessionStarting(const daemon::SessionLaunchInfo& info) {
  auto s = std::make_unique<Session>();
  s->id = info.session;
  s->nodes = info.nodes;
  s->spawned = !info.parent_nspace.empty();
  // Nodes numbered within the session, as MPICH's node map wants them.
  std::vector<int> node_of_rank(static_cast<size_t>(info.size), 0);
  for (const auto& r : info.ranks) {
    if (r.rank < 0 || r.rank >= info.size) continue;
    auto at = std::lower_bound(info.nodes.begin(), info.nodes.end(), r.node);
    node_of_rank[static_cast<size_t>(r.rank)] = static_cast<int>(at - info.nodes.begin());
  }
  SimpleSessionInfo si;
  si.kvsname = info.nspace;
  si.size = info.size;
  si.universe_size = std::max(info.size, info.universe_size);
  si.local_ranks = info.local_ranks;
  if (auto wire_up = ParseWireUp(info.mpi); wire_up) {
    si.serve_pmi1 = ServesPmi1(*wire_up);
    si.serve_pmi2 = ServesPmi2(*wire_up);
  }
  si.spawner_jobid = info.parent_nspace;
  si.process_mapping = ProcessMapping(node_of_rank);
  const std::string preput_entry = std::string(kPreputVariable) + "=";
  for (const std::string& e : info.env) {
    if (!s->spawned || !e.starts_with(preput_entry)) continue;
    auto preput = SimpleSession::DecodePuts(e.substr(preput_entry.size()));
    if (!preput) {
      Error bad = preput.error();
      return Fail(bad.Wrap(std::string(kPreputVariable)).WithSession(info.session));
    }
    si.preput = std::move(*preput);
  }
  // Longer than a value may be: "unknown" (RFC 13), MPICH then asks the host names.
  if (si.process_mapping.size() >= static_cast<size_t>(kMaxLine / 2)) si.process_mapping.clear();
  if (!info.app_sizes.empty()) {
    for (int rank : info.local_ranks) {
      int app = 0;
      int end = 0;
      for (uint32_t n : info.app_sizes) {
        end += static_cast<int>(n);
        if (rank < end) break;
        ++app;
      }
      si.appnum_of_local_rank.push_back(app);
    }
  }
  if (!info.local_ranks.empty() && !topology_tried_) {
    topology_tried_ = true;
    if (auto fd = HostTopologyXmlFd(); fd) {
      topology_fd_ = *fd;
    } else {
      std::fprintf(stderr, "pschedd: node %d: ranks discover the topology themselves: %s\n",
                   tree_.node(), fd.error().ToString().c_str());
    }
  }
  // A user who points hwloc elsewhere (HWLOC_XMLFILE, HWLOC_SYNTHETIC, ...) keeps that.
  s->topology = topology_fd_ >= 0 && std::none_of(info.env.begin(), info.env.end(),
                                                  [](auto& e) { return e.starts_with("HWLOC_"); });
  if (s->topology) si.hwloc_xmlfile = "/proc/self/fd/" + std::to_string(topology_fd_);
  s->kvs = std::make_unique<SimpleSession>(std::move(si));
  for (int rank : info.local_ranks) {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
      Error e = Error::FromErrno("socketpair", "PMI connection of rank " + std::to_string(rank));
      for (auto& [r, c] : s->clients) CloseClient(*c);
      return Fail(e.WithSession(info.session));
    }
    auto c = std::make_unique<Client>();
    c->owner = this;
    c->session = info.session;
    c->rank = rank;
    c->fd = fds[0];
    c->rank_fd = fds[1];
    evutil_make_socket_nonblocking(c->fd);
    c->ev = event_new(base_, c->fd, EV_READ | EV_PERSIST, &SimpleServer::OnReadable, c.get());
    event_add(c->ev, nullptr);
    s->clients[rank] = std::move(c);
  }
  sessions_[info.session] = std::move(s);
  return {};
}

Result<std::vector<std::string>> SimpleServer::RankEnvironment(int64_t session, int rank) {
  auto it = sessions_.find(session);
  if (it == sessions_.end()) return std::vector<std::string>{};
  auto c = it->second->clients.find(rank);
  if (c == it->second->clients.end() || c->second->rank_fd < 0) return std::vector<std::string>{};
  std::vector<std::string> env = {"PMI_FD=" + std::to_string(c->second->rank_fd),
                                  "PMI_RANK=" + std::to_string(rank),
                                  "PMI_SIZE=" + std::to_string(it->second->kvs->info().size),
                                  std::string("PMI_SPAWNED=") + (it->second->spawned ? "1" : "0")};
  // hydra's node-local view, read before MPI_Init by PSM2/PSM3 and Intel MPI: the
  // session's ranks on this node and this rank's place among them (rank order).
  const std::vector<int>& local = it->second->kvs->info().local_ranks;
  if (std::find(local.begin(), local.end(), rank) != local.end()) {
    const auto below = std::count_if(local.begin(), local.end(), [&](int r) { return r < rank; });
    env.push_back("MPI_LOCALNRANKS=" + std::to_string(local.size()));
    env.push_back("MPI_LOCALRANKID=" + std::to_string(below));
  }
  if (it->second->topology) {
    env.push_back("HWLOC_XMLFILE=" + it->second->kvs->info().hwloc_xmlfile);
    env.emplace_back("HWLOC_THISSYSTEM=1");
    env.push_back("HWLOC_PLUGINS_BLACKLIST=" + std::string(kHwlocPluginsUnusedWithXml));
  }
  return env;
}

std::vector<int> SimpleServer::RankDescriptors(int64_t session, int rank) {
  auto it = sessions_.find(session);
  if (it == sessions_.end()) return {};
  auto c = it->second->clients.find(rank);
  if (c == it->second->clients.end() || c->second->rank_fd < 0) return {};
  if (it->second->topology) return {c->second->rank_fd, topology_fd_};
  return {c->second->rank_fd};
}

void SimpleServer::SessionEnding(int64_t session) {
  if (auto it = sessions_.find(session); it != sessions_.end()) it->second->ending = true;
}

void SimpleServer::RankExited(int64_t session, int rank, int code) {
  auto it = sessions_.find(session);
  if (it == sessions_.end()) return;
  // A non-zero exit already fails the session; a clean exit between PMI init and
  // finalize would leave the other ranks waiting in the next barrier forever.
  const SimpleSession& kvs = *it->second->kvs;
  if (code == 0 && !it->second->ending && kvs.initialized(rank) && !kvs.finalized(rank) && fail_)
    fail_(session, rank, 1, "exited before MPI_Finalize (PMI finalize)");
  it = sessions_.find(session);  // failing may have ended the session
  if (it == sessions_.end()) return;
  auto c = it->second->clients.find(rank);
  if (c == it->second->clients.end()) return;
  // The rank's end now has no other holder: it goes. Ours stays until its EOF is read
  // (or the session ends), so a last command still in the socket is answered or dropped.
  if (c->second->rank_fd >= 0) {
    close(c->second->rank_fd);
    c->second->rank_fd = -1;
  }
}

void SimpleServer::SessionEnded(int64_t session) {
  auto it = sessions_.find(session);
  if (it == sessions_.end()) return;
  for (auto& [rank, c] : it->second->clients) CloseClient(*c);
  sessions_.erase(it);  // a barrier still in flight finds no session and is dropped
  // So is a spawn's answer that comes later: no rank is left to read it.
  std::erase_if(spawns_, [session](const auto& p) { return p.second.session == session; });
}

void SimpleServer::OnReadable(evutil_socket_t, short, void* arg) {
  auto* c = static_cast<Client*>(arg);
  c->owner->Read(*c);
}

void SimpleServer::Read(Client& c) {
  char buf[4096];
  const ssize_t n = read(c.fd, buf, sizeof buf);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (n <= 0) {  // the rank closed its end (finalize, exit)
    event_del(c.ev);
    return;
  }
  const int64_t session = c.session;
  auto it = sessions_.find(session);
  if (it == sessions_.end()) return;
  Session& s = *it->second;
  const std::string_view bytes(buf, static_cast<size_t>(n));
  if (c.pmi2) {
    c.frames.Append(bytes);
  } else {
    c.lines.Append(bytes);
  }
  // Lock-step clients send one command at a time; a burst is bounded by the read.
  for (;;) {
    Outcome o;
    if (c.pmi2) {
      auto message = c.frames.Next();
      if (!message) break;
      o = s.kvs->Handle2(c.rank, *message);
    } else {
      auto line = c.lines.Next();
      if (!line) break;
      o = s.kvs->Handle(c.rank, *line);
      if (o.pmi2) {  // what followed the init in this read is PMI-2 already
        c.pmi2 = true;
        c.frames.Append(c.lines.TakeRest());
      }
    }
    Apply(s, c, o);
    // An abort may end the session (and free `c`) before Apply returns.
    if (!sessions_.contains(session)) return;
    if (c.frames.broken()) {  // no next message to find: answered, then no more reading
      event_del(c.ev);
      return;
    }
  }
}

void SimpleServer::Apply(Session& s, Client& c, const Outcome& o) {
  if (!o.problem.empty()) {
    std::fprintf(stderr, "pschedd: node %d, session %lld, rank %d: PMI: %s\n", tree_.node(),
                 static_cast<long long>(s.id), c.rank, o.problem.c_str());
  }
  if (!o.reply.empty()) Send(c, o.reply);
  for (const auto& [rank, reply] : o.to_others) {
    if (auto other = s.clients.find(rank); other != s.clients.end()) Send(*other->second, reply);
  }
  if (o.barrier_blob) StartBarrier(s, *o.barrier_blob);
  if (o.spawn) StartSpawn(s, c, *o.spawn);
  if (o.abort && fail_) fail_(s.id, c.rank, o.abort->first, o.abort->second);
}

void SimpleServer::Send(Client& c, const std::string& line) {
  // Replies are short and the client waits for each: the socket buffer always has room.
  // A client that sends without reading fills it: then it is cut off.
  const ssize_t n = send(c.fd, line.data(), line.size(), MSG_NOSIGNAL);
  if (n != static_cast<ssize_t>(line.size())) {
    std::fprintf(stderr, "pschedd: node %d, session %lld, rank %d: PMI reply not sent (%s)\n",
                 tree_.node(), static_cast<long long>(c.session), c.rank,
                 n < 0 ? std::strerror(errno) : "short write");
    event_del(c.ev);
  }
}

void SimpleServer::StartBarrier(Session& s, std::string blob) {
  const int64_t session = s.id;
  const int seq = s.kvs->barriers_done();
  tree_.Collective(session, "pmi1.barrier." + std::to_string(seq), std::move(blob), s.nodes,
                   [this, session, seq](Result<std::string> all) {
                     auto it = sessions_.find(session);
                     if (it == sessions_.end() || it->second->kvs->barriers_done() != seq) return;
                     Session& s2 = *it->second;
                     for (const auto& [rank, reply] : s2.kvs->BarrierDone(all)) {
                       if (auto c = s2.clients.find(rank); c != s2.clients.end())
                         Send(*c->second, reply);
                     }
                   });
}

void SimpleServer::StartSpawn(Session& s, Client& c, const SpawnRequest& request) {
  // The children are a session the leader decides like any arrival, under the parent's
  // policy: the same request PMIx's MPI_Comm_spawn sends (pmix/daemon_comm_spawn.cpp).
  proto::CommSpawnRequest ask;
  ask.request = next_spawn_++;
  ask.parent_session = s.id;
  ask.parent_nspace = s.kvs->info().kvsname;
  ask.parent_rank = static_cast<uint32_t>(c.rank);
  // MPI_Comm_spawn_multiple's commands are one session, as PMIx's (proto/comm_spawn).
  std::vector<proto::ChildApp> apps;
  for (const SpawnApp& app : request.apps) {
    proto::ChildApp child;
    child.argv.push_back(app.execname);
    child.argv.insert(child.argv.end(), app.args.begin(), app.args.end());
    child.cwd = app.Info("wdir");
    child.ranks = app.nprocs;
    apps.push_back(std::move(child));
  }
  proto::SetChildApps(ask, apps);
  ask.reply_service = std::string(proto::kPmi1SpawnedService);
  if (!request.preput.empty()) {
    std::map<std::string, std::string> preput(request.preput.begin(), request.preput.end());
    ask.env.push_back(std::string(kPreputVariable) + "=" + SimpleSession::EncodePuts(preput));
  }
  spawns_[ask.request] = PendingSpawn{s.id, c.rank};
  tree_.SendToNode(0, std::string(proto::kCommSpawnService), proto::EncodePmix(ask));
}

void SimpleServer::OnSpawned(const std::string& data) {
  auto decoded = proto::DecodeCommSpawnReply(data, proto::kPmi1SpawnedService);
  if (!decoded) {
    std::fprintf(stderr, "pschedd: node %d: %s dropped\n", tree_.node(),
                 decoded.error().message().c_str());
    return;
  }
  const proto::CommSpawnReply& reply = *decoded;
  auto pending = spawns_.find(reply.request);
  if (pending == spawns_.end()) return;
  const PendingSpawn asked = pending->second;
  spawns_.erase(pending);
  auto it = sessions_.find(asked.session);  // the parent may have ended meanwhile
  if (it == sessions_.end()) return;
  auto c = it->second->clients.find(asked.rank);
  if (c == it->second->clients.end()) return;
  Result<void> started;
  if (!reply.ok) started = Fail(ErrorCode::kResourceExhausted, reply.message);
  Apply(*it->second, *c->second, SimpleSession::SpawnAnswer(started));
}

void SimpleServer::CloseClient(Client& c) {
  if (c.ev != nullptr) {
    event_free(c.ev);
    c.ev = nullptr;
  }
  if (c.fd >= 0) close(c.fd);
  if (c.rank_fd >= 0) close(c.rank_fd);
  c.fd = c.rank_fd = -1;
}

}  // namespace psched::pmi
