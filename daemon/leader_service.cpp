#include "daemon/leader_service.hpp"

#include <pwd.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "daemon/arrival.hpp"
#include "scheduler/allocator_registry.hpp"

namespace psched::daemon {
namespace {

std::string UserName(uid_t uid) {
  passwd* pw = getpwuid(uid);
  return pw ? pw->pw_name : std::to_string(uid);
}

std::string JoinArgs(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) out += (out.empty() ? "" : " ") + a;
  return out;
}

void Reply(Connection& c, bool ok, const std::string& message, proto::Json status = nullptr) {
  c.Send(proto::Encode(proto::MsgType::kCtlReply, proto::CtlReply{ok, message, std::move(status)}));
}

void SendError(Connection& c, const std::string& message) {
  c.Send(proto::Encode(proto::MsgType::kError, proto::ErrorReply{message, "rejected"}));
}

bool Forwardable(int sig) {
  return sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGUSR1 || sig == SIGUSR2 ||
         sig == SIGKILL;
}

}  // namespace

LeaderService::LeaderService(PeerLink& peers, int expected_nodes,
                             std::unique_ptr<sched::Allocator> allocator,
                             std::string default_policy, Callbacks callbacks)
    : peers_(peers),
      expected_nodes_(expected_nodes),
      allocator_(std::move(allocator)),
      default_policy_(std::move(default_policy)),
      callbacks_(std::move(callbacks)) {}

double LeaderService::Now() const {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

LeaderService::LiveSession* LeaderService::Find(int64_t id) {
  auto it = sessions_.find(id);
  return it == sessions_.end() ? nullptr : &it->second;
}

std::string LeaderService::NodeName(int node) const {
  auto it = hostnames_.find(node);
  return "node " + std::to_string(node) + (it == hostnames_.end() ? "" : " (" + it->second + ")");
}

void LeaderService::NodeJoined(const proto::NodeJoin& join) {
  sched::NodeTopology topo;
  for (const auto& pu : join.pus) topo.pus.push_back(sched::Pu{pu.core, pu.package});
  topo.gpus = join.gpus;
  std::erase_if(snapshot_.nodes, [&](const sched::Node& n) { return n.id == join.node; });
  snapshot_.nodes.push_back(sched::Node::Make(join.node, join.hostname, std::move(topo)));
  std::sort(snapshot_.nodes.begin(), snapshot_.nodes.end(),
            [](const sched::Node& a, const sched::Node& b) { return a.id < b.id; });
  hostnames_[join.node] = join.hostname;
  peers_.Send({join.node}, proto::MsgType::kNodeWelcome, proto::Json::object());
  if (static_cast<int>(snapshot_.nodes.size()) == expected_nodes_ && callbacks_.all_joined)
    callbacks_.all_joined();
}

void LeaderService::OnClientFrame(const std::shared_ptr<Connection>& client, proto::Frame&& frame,
                                  uid_t uid) {
  switch (frame.type) {
    case proto::MsgType::kSessionLaunch:
      return Launch(client, frame, uid);
    case proto::MsgType::kSessionSignal:
    case proto::MsgType::kSessionSuspend:
    case proto::MsgType::kSessionResume:
    case proto::MsgType::kIoStdin:
      return SessionControl(client, frame);
    case proto::MsgType::kCtlStatus:
    case proto::MsgType::kCtlKill:
    case proto::MsgType::kCtlSuspend:
    case proto::MsgType::kCtlResume:
    case proto::MsgType::kCtlShutdown:
      return Control(client, frame);
    default:
      client->FailAndClose(std::string("unexpected ") + proto::MsgTypeName(frame.type) +
                           " message on the launcher socket");
  }
}

void LeaderService::Launch(const std::shared_ptr<Connection>& client, const proto::Frame& frame,
                           uid_t uid) {
  auto req = proto::Decode<proto::LaunchRequest>(frame);
  if (!req) return client->FailAndClose(req.error().message());
  if (req->argv.empty()) return SendError(*client, "no command given");
  if (static_cast<int>(snapshot_.nodes.size()) + static_cast<int>(lost_.size()) < expected_nodes_)
    return SendError(*client,
                     "the allocation is still starting: " + std::to_string(snapshot_.nodes.size()) +
                         " of " + std::to_string(expected_nodes_) + " daemons have joined");
  sched::SessionRequest request;
  request.id = next_session_++;
  request.owner = UserName(uid);
  request.command = JoinArgs(req->argv);
  request.ranks = req->ranks;
  request.threads_per_rank = req->threads_per_rank;
  request.nodes = req->nodes;
  request.ppn = req->ppn;
  request.spread = req->spread;
  request.estimate_s = req->estimate_s;
  request.policy = req->policy.empty() ? default_policy_ : req->policy;
  request.allocator = req->allocator;
  snapshot_.now = Now();
  std::unique_ptr<sched::Allocator> chosen;
  if (!req->allocator.empty()) {
    auto made = sched::MakeAllocator(req->allocator);
    if (!made) return SendError(*client, made.error().message());
    chosen = std::move(*made);
  }
  sched::Plan plan = DecideArrival(snapshot_, request, chosen ? *chosen : *allocator_);
  for (const sched::Action& action : plan.actions) {
    if (const auto* reject = std::get_if<sched::RejectAction>(&action))
      return SendError(*client, reject->reason);
  }
  sched::ApplyPlan(snapshot_, plan, &request);
  for (const sched::Action& action : plan.actions) {
    const auto* spawn = std::get_if<sched::SpawnAction>(&action);
    if (spawn == nullptr) continue;
    LiveSession& s = sessions_[request.id];
    s.id = request.id;
    s.launcher = client;
    s.launcher_key = client.get();
    s.owner = request.owner;
    s.command = request.command;
    s.ranks = request.ranks;
    s.threads = request.threads_per_rank;
    s.start = snapshot_.now;
    Spawn(*spawn, *req, s);
  }
}

void LeaderService::Spawn(const sched::SpawnAction& spawn, const proto::LaunchRequest& req,
                          LiveSession& s) {
  proto::SpawnOrder order;
  order.session = s.id;
  order.nspace = "psched." + std::to_string(getpid()) + "." + std::to_string(s.id);
  order.argv = req.argv;
  order.env = req.env;
  order.cwd = req.cwd;
  order.size = static_cast<int>(spawn.placement.ranks.size());
  order.threads_per_rank = req.threads_per_rank;
  std::map<int, int> local_count;
  for (const sched::RankSlots& r : spawn.placement.ranks)
    order.ranks.push_back(proto::RankSpec{r.rank, r.node, local_count[r.node]++, r.pus});
  int max_node = 0;
  for (const auto& [id, name] : hostnames_) max_node = std::max(max_node, id);
  order.hostnames.resize(static_cast<size_t>(max_node) + 1);
  for (const auto& [id, name] : hostnames_) order.hostnames[static_cast<size_t>(id)] = name;
  s.nodes = spawn.placement.Nodes();
  s.pending = {s.nodes.begin(), s.nodes.end()};
  s.rank0_node = spawn.placement.ranks.empty() ? 0 : spawn.placement.ranks.front().node;
  if (auto c = s.launcher.lock())
    c->Send(proto::Encode(proto::MsgType::kSessionStarted, proto::SessionStarted{s.id, s.nodes}));
  peers_.Send(s.nodes, proto::MsgType::kSessionSpawn, proto::Json(order));
}

void LeaderService::SessionControl(const std::shared_ptr<Connection>& client,
                                   const proto::Frame& frame) {
  auto ref = proto::Decode<proto::SessionRef>(frame);
  if (!ref) return client->FailAndClose(ref.error().message());
  LiveSession* s = Find(ref->session);
  // Stdin or a signal racing with the session's end is not an error.
  if (s == nullptr) return;
  if (s->launcher_key != client.get())
    return SendError(*client, "session " + std::to_string(ref->session) + " is not yours");
  switch (frame.type) {
    case proto::MsgType::kSessionSignal:
      if (!Forwardable(ref->signal))
        return SendError(*client, "signal " + std::to_string(ref->signal) + " is not forwarded");
      return peers_.Send(s->nodes, proto::MsgType::kSessionSignal, frame.body);
    case proto::MsgType::kSessionSuspend:
      SuspendOrResume(*s, true);
      break;
    case proto::MsgType::kSessionResume:
      SuspendOrResume(*s, false);
      break;
    default:
      return peers_.Send({s->rank0_node}, proto::MsgType::kIoStdin, frame.body);
  }
  client->Send(
      proto::MsgType::kSessionAck,
      proto::Json{{"session", s->id},
                  {"what", frame.type == proto::MsgType::kSessionSuspend ? "suspend" : "resume"}});
}

void LeaderService::SuspendOrResume(LiveSession& s, bool suspend) {
  sched::Plan plan;
  if (suspend)
    plan.actions.push_back(sched::SuspendAction{s.id});
  else
    plan.actions.push_back(sched::ResumeAction{s.id});
  sched::ApplyPlan(snapshot_, plan);
  peers_.Send(s.nodes, suspend ? proto::MsgType::kSessionSuspend : proto::MsgType::kSessionResume,
              proto::Json(proto::SessionRef{s.id, 0}));
}

void LeaderService::Control(const std::shared_ptr<Connection>& client, const proto::Frame& frame) {
  if (frame.type == proto::MsgType::kCtlStatus) return Reply(*client, true, "", Status());
  if (frame.type == proto::MsgType::kCtlShutdown) {
    Reply(*client, true, "shutting down");
    if (callbacks_.shutdown) callbacks_.shutdown();
    return;
  }
  auto ref = proto::Decode<proto::SessionRef>(frame);
  if (!ref) return client->FailAndClose(ref.error().message());
  LiveSession* s = Find(ref->session);
  if (s == nullptr) return Reply(*client, false, "no session " + std::to_string(ref->session));
  if (frame.type == proto::MsgType::kCtlKill) {
    Fail(*s, 128 + SIGKILL, "session killed by psched-ctl kill");
    return Reply(*client, true, "session " + std::to_string(s->id) + " killed");
  }
  bool suspend = frame.type == proto::MsgType::kCtlSuspend;
  SuspendOrResume(*s, suspend);
  Reply(*client, true, "session " + std::to_string(s->id) + (suspend ? " suspended" : " resumed"));
}

void LeaderService::OnClientClosed(Connection& client) {
  for (auto& [id, s] : sessions_) {
    if (s.launcher_key != &client) continue;
    s.launcher_key = nullptr;
    Fail(s, 128 + SIGKILL, "launcher disconnected");
  }
}

void LeaderService::OnNodeFrame(proto::Frame&& frame) {
  switch (frame.type) {
    case proto::MsgType::kIoOutput: {
      auto out = proto::Decode<proto::Output>(frame);
      if (!out) return;
      LiveSession* s = Find(out->session);
      if (s == nullptr) return;
      if (auto c = s->launcher.lock()) c->Send(proto::Encode(proto::MsgType::kIoOutput, *out));
      return;
    }
    case proto::MsgType::kSessionRankExited:
      if (auto e = proto::Decode<proto::RankExit>(frame)) RankFailed(*e);
      return;
    case proto::MsgType::kSessionNodeDone:
      if (auto d = proto::Decode<proto::NodeDone>(frame)) NodeDone(*d);
      return;
    case proto::MsgType::kNodeJoin:
      if (auto j = proto::Decode<proto::NodeJoin>(frame)) NodeJoined(*j);
      return;
    case proto::MsgType::kNodeLost:
      if (auto l = proto::Decode<proto::NodeLost>(frame)) NodesLost(*l);
      return;
    case proto::MsgType::kCollContribute:
      if (auto p = proto::Decode<proto::CollContribute>(frame)) Collect(*p);
      return;
    default:
      return;
  }
}

void LeaderService::Fail(LiveSession& s, int code, std::string message) {
  if (s.failed) return;
  s.failed = true;
  s.code = code;
  s.message = std::move(message);
  std::vector<int> alive;
  for (int n : s.pending) alive.push_back(n);
  if (!alive.empty())
    peers_.Send(alive, proto::MsgType::kSessionKill, proto::Json(proto::SessionRef{s.id, SIGKILL}));
}

void LeaderService::RankFailed(const proto::RankExit& e) {
  LiveSession* s = Find(e.session);
  if (s == nullptr || s->failed) return;
  Fail(*s, e.code,
       "rank " + std::to_string(e.rank) + " on " + NodeName(e.node) + " " + e.cause +
           (s->ranks > 1 ? "; the other ranks were killed" : ""));
}

void LeaderService::NodeDone(const proto::NodeDone& done) {
  LiveSession* s = Find(done.session);
  if (s == nullptr) return;
  for (const proto::RankExit& e : done.exits)
    if (e.code != 0) RankFailed(e);
  s->pending.erase(done.node);
  if (s->pending.empty()) Finish(done.session);
}

void LeaderService::Finish(int64_t id) {
  LiveSession& s = sessions_.at(id);
  if (auto c = s.launcher.lock())
    c->Send(proto::Encode(proto::MsgType::kSessionEnded,
                          proto::SessionEnded{id, s.failed ? s.code : 0, s.message}));
  const sched::Session* ended = snapshot_.Find(id);
  sched::Session copy = ended ? *ended : sched::Session{};
  sched::RemoveSession(snapshot_, id);
  sessions_.erase(id);
  sched::ApplyPlan(snapshot_, DecideEnd(snapshot_, copy, *allocator_));
}

void LeaderService::NodesLost(const proto::NodeLost& lost) {
  for (int n : lost.nodes) {
    std::fprintf(stderr, "pschedd[0]: lost %s: %s\n", NodeName(n).c_str(), lost.cause.c_str());
    lost_[n] = lost.cause;
    std::erase_if(snapshot_.nodes, [n](const sched::Node& node) { return node.id == n; });
  }
  std::vector<int64_t> done;
  for (auto& [id, s] : sessions_) {
    for (int n : lost.nodes) {
      if (!s.pending.erase(n)) continue;
      Fail(s, 1, "lost " + NodeName(n) + " (its daemon is gone: " + lost.cause + ")");
    }
    if (s.pending.empty()) done.push_back(id);
  }
  for (int64_t id : done) Finish(id);
  for (auto& [key, part] : collectives_) {
    std::vector<int> alive;
    for (int p : part.participants)
      if (!lost_.contains(p)) alive.push_back(p);
    if (alive.size() != part.participants.size())
      peers_.Send(alive, proto::MsgType::kCollResult,
                  proto::Json{{"session", part.session},
                              {"id", part.id},
                              {"participants", part.participants},
                              {"error", "a participant node was lost"}});
  }
  std::erase_if(collectives_, [&](const auto& kv) {
    return std::any_of(kv.second.participants.begin(), kv.second.participants.end(),
                       [&](int p) { return lost_.contains(p); });
  });
}

void LeaderService::Collect(const proto::CollContribute& part) {
  auto key = std::make_pair(part.session, part.id);
  proto::CollContribute& acc = collectives_[key];
  if (acc.participants.empty()) {
    acc.session = part.session;
    acc.id = part.id;
    acc.participants = part.participants;
  }
  for (size_t i = 0; i < part.nodes.size() && i < part.blobs.size(); ++i) {
    acc.nodes.push_back(part.nodes[i]);
    acc.blobs.push_back(part.blobs[i]);
  }
  if (acc.nodes.size() < acc.participants.size()) return;
  std::vector<std::pair<int, std::string>> ordered;
  for (size_t i = 0; i < acc.nodes.size(); ++i) ordered.emplace_back(acc.nodes[i], acc.blobs[i]);
  std::sort(ordered.begin(), ordered.end());
  proto::CollResult result{acc.session, acc.id, acc.participants, ""};
  for (auto& [n, blob] : ordered) result.data += blob;
  std::vector<int> to = acc.participants;
  collectives_.erase(key);
  peers_.Send(to, proto::MsgType::kCollResult, proto::Json(result));
}

proto::Json LeaderService::Status() const {
  proto::Json nodes = proto::Json::array();
  for (const sched::Node& n : snapshot_.nodes)
    nodes.push_back({{"id", n.id},
                     {"hostname", n.hostname},
                     {"pus", n.topology.NumPus()},
                     {"cores", n.topology.NumCores()},
                     {"packages", n.topology.NumPackages()},
                     {"free", n.FreePus()},
                     {"uses", n.uses},
                     {"state", "up"}});
  for (const auto& [id, cause] : lost_)
    nodes.push_back({{"id", id},
                     {"hostname", hostnames_.count(id) ? hostnames_.at(id) : ""},
                     {"state", "lost"},
                     {"cause", cause}});
  proto::Json sessions = proto::Json::array();
  double now = Now();
  for (const auto& [id, s] : sessions_) {
    const sched::Session* model = snapshot_.Find(id);
    std::string state = model ? sched::SessionStateName(model->state) : "ending";
    if (s.failed) state = "ending";
    sessions.push_back({{"id", id},
                        {"owner", s.owner},
                        {"command", s.command},
                        {"ranks", s.ranks},
                        {"threads_per_rank", s.threads},
                        {"state", state},
                        {"nodes", s.nodes},
                        {"start", s.start},
                        {"elapsed_s", now - s.start}});
  }
  return {{"nodes", nodes},
          {"sessions", sessions},
          {"expected_nodes", expected_nodes_},
          {"free", snapshot_.FreePus()},
          {"total", snapshot_.TotalPus()}};
}

}  // namespace psched::daemon
