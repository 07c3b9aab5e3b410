// MPI_Comm_spawn under pschedd, the parent's node side: the request goes to the
// leader (which places the children like any arrival, under the allocation's
// co-scheduling policy), the answer comes back as "pmix.spawned". PMIx gets the
// children's nspace only once this node has registered it (local ranks or the
// children's layout), so the parent's connect to them finds their ranks.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "pmix/daemon_host.hpp"
#include "proto/messages.hpp"

namespace psched::pmix {

void DaemonPmixHost::Spawn(SpawnRequest req, std::function<void(Result<std::string>)> done) {
  auto refuse = [&](std::string why) {
    done(Fail(Error(ErrorCode::kInvalidArgument, "MPI_Comm_spawn: " + std::move(why))
                  .WithSession(req.parent_session)
                  .WithNode(tree_.node())));
  };
  if (req.apps.size() != 1)
    return refuse("only one app per spawn is supported (no spawn_multiple)");
  const SpawnApp& app = req.apps.front();
  if (app.max_procs <= 0) return refuse("maxprocs must be at least 1");
  if (app.cmd.empty()) return refuse("no command given");
  if (req.parent_session < 0) return refuse("the requesting rank belongs to no session here");
  proto::ChildSpawnRequest ask;
  ask.parent_session = req.parent_session;
  ask.parent_nspace = req.requestor.nspace;
  ask.parent_rank = req.requestor.rank;
  ask.argv = app.argv;
  if (ask.argv.empty()) ask.argv.push_back(app.cmd);
  ask.argv.front() = app.cmd;
  ask.env = app.env;
  ask.cwd = app.cwd;
  ask.ranks = app.max_procs;
  // No time limit: under the wait policy the children may queue until slots free up.
  ask.request =
      Track([done = std::move(done)](Result<std::string> nspace) { done(std::move(nspace)); },
            std::chrono::milliseconds(0), "MPI_Comm_spawn");
  auto bytes = nlohmann::json::to_msgpack(nlohmann::json(ask));
  tree_.SendToNode(0, "session.spawn_children", std::string(bytes.begin(), bytes.end()));
}

void DaemonPmixHost::OnSpawned(const std::string& data) {
  nlohmann::json j = nlohmann::json::from_msgpack(data.begin(), data.end(), true, false);
  proto::ChildSpawnReply reply;
  try {
    reply = j.get<proto::ChildSpawnReply>();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "psched pmix: malformed pmix.spawned dropped: %s\n", e.what());
    return;
  }
  if (!reply.ok) {
    Complete(reply.request, Fail(ErrorCode::kResourceExhausted, reply.message));
    return;
  }
  WhenKnown(reply.session,
            [this, reply] { Complete(reply.request, Result<std::string>(reply.nspace)); });
}

void DaemonPmixHost::WhenKnown(int64_t session, std::function<void()> then) {
  if (nspaces_.contains(session) || foreign_.contains(session)) return then();
  awaiting_layout_[session].push_back(std::move(then));
}

void DaemonPmixHost::SessionKnown(int64_t session) {
  auto it = awaiting_layout_.find(session);
  if (it == awaiting_layout_.end()) return;
  auto waiting = std::move(it->second);
  awaiting_layout_.erase(it);
  for (auto& then : waiting) then();
}

}  // namespace psched::pmix
