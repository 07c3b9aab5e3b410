// MPI_Comm_spawn under pschedd, the parent's node side: the request goes to the
// leader (which places the children like any arrival, under the allocation's
// co-scheduling policy), the answer comes back as "pmix.spawned". PMIx gets the
// children's nspace only once this node has registered it (local ranks, or their
// layout pulled from the leader's directory), so the parent's connect finds them.
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "pmix/daemon_host.hpp"
#include "proto/messages.hpp"

namespace psched::pmix {

namespace {

// One word for /bin/sh -c, whatever it contains.
std::string ShellQuote(const std::string& word) {
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// MPI_Comm_spawn_multiple: the apps form one session (one MPI_COMM_WORLD, ranks
// numbered app after app), but a session has one command line. Every rank runs
// this /bin/sh wrapper, which execs its own app's command (by PSCHED_RANK) in that
// app's directory with that app's extra variables: exec keeps the pid, so the
// rank's binding and PMIx identity carry over to the program.
std::vector<std::string> MultiAppArgv(const std::vector<SpawnApp>& apps,
                                      const std::vector<std::string>& common_env) {
  std::string script = "r=${PSCHED_RANK:?}; ";
  int end = 0;
  for (size_t i = 0; i < apps.size(); ++i) {
    const SpawnApp& app = apps[i];
    end += app.max_procs;
    script +=
        (i == 0 ? "if [ \"$r\" -lt " : "elif [ \"$r\" -lt ") + std::to_string(end) + " ]; then ";
    if (!app.cwd.empty()) script += "cd " + ShellQuote(app.cwd) + " || exit 126; ";
    script += "exec env";
    for (const auto& e : app.env) {
      if (std::find(common_env.begin(), common_env.end(), e) == common_env.end())
        script += " " + ShellQuote(e);
    }
    std::vector<std::string> words = app.argv;
    if (words.empty()) words.push_back(app.cmd);
    words.front() = app.cmd;
    for (const auto& w : words) script += " " + ShellQuote(w);
    script += "; ";
  }
  script += "fi; exit 127";
  return {"/bin/sh", "-c", script, "psched-spawn-multiple"};
}

}  // namespace

void DaemonPmixHost::Spawn(SpawnRequest req, std::function<void(Result<std::string>)> done) {
  auto refuse = [&](std::string why) {
    done(Fail(Error(ErrorCode::kInvalidArgument, "MPI_Comm_spawn: " + std::move(why))
                  .WithSession(req.parent_session)
                  .WithNode(tree_.node())));
  };
  if (req.apps.empty()) return refuse("no app given");
  int total = 0;
  for (size_t i = 0; i < req.apps.size(); ++i) {
    const SpawnApp& app = req.apps[i];
    std::string which = req.apps.size() > 1 ? "app " + std::to_string(i) + ": " : "";
    if (app.max_procs <= 0) return refuse(which + "maxprocs must be at least 1");
    if (app.cmd.empty()) return refuse(which + "no command given");
    total += app.max_procs;
  }
  if (req.parent_session < 0) return refuse("the requesting rank belongs to no session here");
  proto::ChildSpawnRequest ask;
  ask.parent_session = req.parent_session;
  ask.parent_nspace = req.requestor.nspace;
  ask.parent_rank = req.requestor.rank;
  ask.ranks = total;
  if (req.apps.size() == 1) {
    const SpawnApp& app = req.apps.front();
    ask.argv = app.argv;
    if (ask.argv.empty()) ask.argv.push_back(app.cmd);
    ask.argv.front() = app.cmd;
    ask.env = app.env;
    ask.cwd = app.cwd;
  } else {
    // What every app adds (Open MPI's OMPI_PARENT_PORT...) goes into the session's
    // environment; the rest into the wrapper, per app.
    for (const auto& e : req.apps.front().env) {
      bool everywhere = std::all_of(req.apps.begin(), req.apps.end(), [&](const SpawnApp& a) {
        return std::find(a.env.begin(), a.env.end(), e) != a.env.end();
      });
      if (everywhere) ask.env.push_back(e);
    }
    ask.argv = MultiAppArgv(req.apps, ask.env);
    for (const SpawnApp& app : req.apps)
      ask.app_sizes.push_back(static_cast<uint32_t>(app.max_procs));
  }
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
