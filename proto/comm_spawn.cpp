#include "proto/comm_spawn.hpp"

#include <algorithm>

namespace psched::proto {

namespace {

// One word for /bin/sh -c, whatever it contains.
std::string ShellQuote(const std::string& word) {
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// A session has one command line: every rank runs this /bin/sh wrapper, which execs
// its own app's command (by PSCHED_RANK) in that app's directory with that app's extra
// variables. exec keeps the pid, so the rank's binding and wire-up identity carry over
// to the program.
std::vector<std::string> MultiAppArgv(const std::vector<ChildApp>& apps,
                                      const std::vector<std::string>& common_env) {
  std::string script = "r=${PSCHED_RANK:?}; ";
  int end = 0;
  for (size_t i = 0; i < apps.size(); ++i) {
    const ChildApp& app = apps[i];
    end += app.ranks;
    script +=
        (i == 0 ? "if [ \"$r\" -lt " : "elif [ \"$r\" -lt ") + std::to_string(end) + " ]; then ";
    if (!app.cwd.empty()) script += "cd " + ShellQuote(app.cwd) + " || exit 126; ";
    script += "exec env";
    for (const auto& e : app.env) {
      if (std::find(common_env.begin(), common_env.end(), e) == common_env.end())
        script += " " + ShellQuote(e);
    }
    for (const auto& w : app.argv) script += " " + ShellQuote(w);
    script += "; ";
  }
  script += "fi; exit 127";
  return {"/bin/sh", "-c", script, "psched-spawn-multiple"};
}

Error Malformed(std::string_view service, const std::string& what) {
  return Error(ErrorCode::kProtocol, "malformed " + std::string(service) + " message: " + what);
}

Result<void> SessionId(int64_t session, std::string_view service, const char* field) {
  if (session >= 0) return {};
  return Fail(Malformed(service, "'" + std::string(field) + "' " + std::to_string(session) +
                                     " is a negative session"));
}

}  // namespace

Result<CommSpawnRequest> DecodeCommSpawnRequest(std::string_view data) {
  auto ask = DecodePmix<CommSpawnRequest>(data, kCommSpawnService);
  if (!ask) return ask;
  if (auto ok = SessionId(ask->parent_session, kCommSpawnService, "parent_session"); !ok)
    return Fail(ok.error());
  if (ask->reply_service != kPmixSpawnedService && ask->reply_service != kPmi1SpawnedService) {
    return Fail(Malformed(kCommSpawnService, "'reply_service' is no wire-up's spawn service: \"" +
                                                 ask->reply_service.substr(0, 40) + "\""));
  }
  return ask;
}

Result<CommSpawnReply> DecodeCommSpawnReply(std::string_view data, std::string_view service) {
  auto reply = DecodePmix<CommSpawnReply>(data, service);
  if (!reply) return reply;
  if (auto ok = SessionId(reply->session, service, "session"); !ok) return Fail(ok.error());
  return reply;
}

std::optional<std::string> CommSpawnProblem(const CommSpawnRequest& ask, int parent_ranks) {
  if (ask.argv.empty()) return "no command given";
  if (parent_ranks < 0 || ask.parent_rank >= static_cast<uint32_t>(parent_ranks)) {
    return "the asking rank " + std::to_string(ask.parent_rank) +
           " is outside the parent session of " + std::to_string(parent_ranks) + " ranks";
  }
  if (ask.app_sizes.empty()) return std::nullopt;
  int64_t sum = 0;
  for (uint32_t n : ask.app_sizes) sum += n;
  if (sum != ask.ranks ||
      std::find(ask.app_sizes.begin(), ask.app_sizes.end(), 0u) != ask.app_sizes.end()) {
    return "the apps' sizes do not add up to the " + std::to_string(ask.ranks) +
           " processes asked for";
  }
  return std::nullopt;
}

void SetChildApps(CommSpawnRequest& ask, const std::vector<ChildApp>& apps) {
  ask.ranks = 0;
  for (const ChildApp& app : apps) ask.ranks += app.ranks;
  if (apps.size() == 1) {
    const ChildApp& app = apps.front();
    ask.argv = app.argv;
    ask.env = app.env;
    ask.cwd = app.cwd;
    return;
  }
  ask.env.clear();
  for (const auto& e : apps.front().env) {
    const bool everywhere = std::all_of(apps.begin(), apps.end(), [&](const ChildApp& a) {
      return std::find(a.env.begin(), a.env.end(), e) != a.env.end();
    });
    if (everywhere) ask.env.push_back(e);
  }
  ask.argv = MultiAppArgv(apps, ask.env);
  ask.app_sizes.clear();
  for (const ChildApp& app : apps) ask.app_sizes.push_back(static_cast<uint32_t>(app.ranks));
}

}  // namespace psched::proto
