#include "proto/child_spawn.hpp"

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

}  // namespace

void SetChildApps(ChildSpawnRequest& ask, const std::vector<ChildApp>& apps) {
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
