// MPI_Comm_spawn under pschedd, the parent's node side: the request goes to the
// leader (which places the children like any arrival, under the allocation's
// co-scheduling policy), the answer comes back as "pmix.spawned". PMIx gets the
// children's nspace only once this node has registered it (local ranks, or their
// layout pulled from the leader's directory), so the parent's connect finds them.
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "pmix/daemon_host.hpp"
#include "proto/child_spawn.hpp"
#include "proto/messages.hpp"

namespace psched::pmix {

void DaemonPmixHost::Spawn(SpawnRequest req, std::function<void(Result<std::string>)> done) {
  auto refuse = [&](std::string why) {
    done(Fail(Error(ErrorCode::kInvalidArgument, "MPI_Comm_spawn: " + std::move(why))
                  .WithSession(req.parent_session)
                  .WithNode(tree_.node())));
  };
  if (req.apps.empty()) return refuse("no app given");
  for (size_t i = 0; i < req.apps.size(); ++i) {
    const SpawnApp& app = req.apps[i];
    std::string which = req.apps.size() > 1 ? "app " + std::to_string(i) + ": " : "";
    if (app.max_procs <= 0) return refuse(which + "maxprocs must be at least 1");
    if (app.cmd.empty()) return refuse(which + "no command given");
  }
  if (req.parent_session < 0) return refuse("the requesting rank belongs to no session here");
  proto::ChildSpawnRequest ask;
  ask.parent_session = req.parent_session;
  ask.parent_nspace = req.requestor.nspace;
  ask.parent_rank = req.requestor.rank;
  std::vector<proto::ChildApp> apps;
  for (const SpawnApp& app : req.apps) {
    proto::ChildApp child{app.argv, app.env, app.cwd, app.max_procs};
    if (child.argv.empty()) child.argv.push_back(app.cmd);
    child.argv.front() = app.cmd;
    apps.push_back(std::move(child));
  }
  proto::SetChildApps(ask, apps);
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
  // The children's ranks may all run on other nodes: PMIx here must know their
  // namespace before it hands it to the parent, which then connects to it.
  EnsureKnown({reply.nspace}, [this, reply](Result<void> r) {
    if (!r) return Complete(reply.request, Fail(r.error().Wrap("MPI_Comm_spawn")));
    Complete(reply.request, Result<std::string>(reply.nspace));
  });
}

}  // namespace psched::pmix
