// MPI_Comm_spawn under pschedd, the parent's node side: the request goes to the
// leader (which places the children like any arrival, under the allocation's
// co-scheduling policy), the answer comes back as "pmix.spawned". PMIx gets the
// children's nspace only once this node has registered it (local ranks, or their
// layout pulled from the leader's directory), so the parent's connect finds them.
//
// Children that will never connect (refused, or failed before they connected): Open
// MPI 4.1's parent (ompi_dpm_connect_accept) has only its root look up the children's
// participants under "<OMPI_PARENT_PORT>:connect", then broadcasts them to the other
// parent ranks over MPI and every rank connects to them with PMIx. A failed spawn or a
// failed lookup returns from the root before that broadcast, and the other ranks of a
// collective spawn wait in it for ever (the lookup itself waits 600 s). So this node
// answers for them: the spawn succeeds with their namespace, their participants are
// published as the children would have, and every parent rank's
// connect naming that namespace fails, at once here, with the reason. Every rank of
// the parent then gets the error from MPI_Comm_spawn.
#include <pmix.h>

#include <algorithm>
#include <cstdio>

#include "pmix/daemon_host.hpp"
#include "pmix/value_codec.hpp"
#include "proto/comm_spawn.hpp"
#include "proto/messages.hpp"

namespace psched::pmix {

namespace {

// The port Open MPI's root named for the children's connect ("" for other PMIx clients).
std::string OpenMpiParentPort(const std::vector<SpawnApp>& apps) {
  constexpr std::string_view kName = "OMPI_PARENT_PORT=";
  for (const auto& e : apps.front().env)
    if (e.starts_with(kName)) return e.substr(kName.size());
  return "";
}

// A number for Open MPI to know `nspace` by (FNV-1a): the same on every parent rank.
uint32_t OpenMpiJobid(const std::string& nspace) {
  uint32_t hash = 2166136261U;
  for (char c : nspace) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 16777619U;
  }
  return hash;
}

}  // namespace

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
  proto::CommSpawnRequest ask;
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
  if (std::string port = OpenMpiParentPort(req.apps); !port.empty()) {
    ompi_spawns_[ask.request] =
        OpenMpiSpawn{req.parent_session, Publisher{req.requestor.nspace, req.requestor.rank},
                     std::move(port), ask.ranks};
  }
  tree_.SendToNode(0, std::string(proto::kCommSpawnService), proto::EncodePmix(ask));
}

void DaemonPmixHost::OnSpawned(const std::string& data) {
  auto decoded = proto::DecodeCommSpawnReply(data, proto::kPmixSpawnedService);
  if (!decoded) {
    std::fprintf(stderr, "psched pmix: %s dropped\n", decoded.error().message().c_str());
    return;
  }
  const proto::CommSpawnReply& reply = *decoded;
  // Children that will never connect: Open MPI's parent is answered for them (see the
  // top of this file); any other parent gets the error.
  auto gone = [this](uint64_t request, std::string nspace, Error why) {
    auto spawn = ompi_spawns_.find(request);
    // Failed after they connected (the leader's second answer): the parent heard of it
    // as a PMIx event (daemon_failed.cpp), and nobody will read their participants any
    // more, so none are published for them (it would stay until the parent's end).
    if (spawn == ompi_spawns_.end() || spawn->second.connected ||
        !spawn->second.gone_nspace.empty())
      return Complete(request, Fail(std::move(why)));
    spawn->second.gone_nspace = std::move(nspace);
    spawn->second.why = why.message();
    ChildrenGone(request, spawn->second);
  };
  if (!reply.ok) {
    // Refused children have no namespace: one that names them, unique on this node.
    std::string nspace = !reply.nspace.empty()
                             ? reply.nspace
                             : std::string(kRefusedChildrenPrefix) + std::to_string(tree_.node()) +
                                   "." + std::to_string(reply.request);
    return gone(reply.request, std::move(nspace),
                Error(ErrorCode::kResourceExhausted, reply.message));
  }
  // The children's ranks may all run on other nodes: PMIx here must know their
  // namespace before it hands it to the parent, which then connects to it. Children
  // that ended before that will never connect either.
  EnsureKnown({reply.nspace}, [this, reply, gone](Result<void> r) {
    if (!r) return gone(reply.request, reply.nspace, r.error().Wrap("MPI_Comm_spawn"));
    Complete(reply.request, Result<std::string>(reply.nspace));
  });
}

NameService::LookupDone DaemonPmixHost::NotingChildrenConnect(const Publisher& looker,
                                                              NameService::LookupDone done) {
  return [this, looker, done = std::move(done)](Result<std::vector<PublishedValue>> r) {
    if (r) {
      for (auto& [request, spawn] : ompi_spawns_) {
        if (spawn.parent != looker) continue;
        for (const PublishedValue& v : *r) {
          if (v.key == spawn.port + ":connect" && v.publisher.nspace != looker.nspace)
            spawn.connected = true;
        }
      }
    }
    done(std::move(r));
  };
}

void DaemonPmixHost::ChildrenGone(uint64_t request, OpenMpiSpawn& spawn) {
  const std::string nspace = spawn.gone_nspace, why = spawn.why;
  // What the children's root would have published: Open MPI 4.1 names a whole job as
  // "<jobid>.*:<nspace>:<size>" (its jobid, the wildcard rank, the PMIx namespace it
  // maps to, the job's size). The jobid is any number here: the namespace comes with it.
  std::string members =
      std::to_string(OpenMpiJobid(nspace)) + ".*:" + nspace + ":" + std::to_string(spawn.size);
  pmix_value_t value;
  PMIX_VALUE_LOAD(&value, members.c_str(), PMIX_STRING);
  Result<std::string> packed = PackValue(value);
  PMIX_VALUE_DESTRUCT(&value);
  if (!packed) return Complete(request, Fail(ErrorCode::kResourceExhausted, why));
  // Published by the parent's root, read once: gone with the parent's session if
  // the children had connected after all (the real key was taken already).
  Publish(spawn.parent, {{spawn.port + ":connect", *packed}}, Persistence::kFirstRead,
          [this, request, nspace, why](Result<void> r) {
            // The spawn was answered already when the children failed after their launch.
            if (!r) return Complete(request, Fail(ErrorCode::kResourceExhausted, why));
            Complete(request, Result<std::string>(nspace));
          });
}

}  // namespace psched::pmix
