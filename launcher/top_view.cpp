#include "launcher/top_view.hpp"

#include <algorithm>
#include <sstream>

#include "launcher/status_format.hpp"

namespace psched::launcher {

namespace {

bool Queued(const proto::Json& session) {
  return session.value("state", "") == "queued";
}

void AddLines(std::vector<TopLine>& out, const std::string& text, size_t width,
              bool selected = false) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back({line.substr(0, width), selected});
}

}  // namespace

std::vector<int64_t> SelectableSessions(const proto::Json& status) {
  std::vector<int64_t> running, queued;
  for (const auto& s : status.value("sessions", proto::Json::array()))
    (Queued(s) ? queued : running).push_back(s.value("id", int64_t{0}));
  running.insert(running.end(), queued.begin(), queued.end());
  return running;
}

int64_t MoveSelection(const proto::Json& status, int64_t selected, int step) {
  const std::vector<int64_t> ids = SelectableSessions(status);
  if (ids.empty()) return 0;
  auto it = std::find(ids.begin(), ids.end(), selected);
  if (it == ids.end()) return ids.front();
  const auto index = static_cast<int64_t>(it - ids.begin()) + step;
  return ids[static_cast<size_t>(std::clamp<int64_t>(index, 0, std::ssize(ids) - 1))];
}

std::string SessionCommand(const proto::Json& status, int64_t id) {
  for (const auto& s : status.value("sessions", proto::Json::array()))
    if (s.value("id", int64_t{0}) == id) return s.value("command", "");
  return "";
}

std::vector<TopLine> TopLines(const proto::Json& status, const TopView& view, size_t width) {
  std::vector<TopLine> out;
  AddLines(out, "psched-ctl top: " + StatusHeadline(status), width);
  AddLines(out, NodeTable(status), width);
  const proto::Json sessions = status.value("sessions", proto::Json::array());
  int queued = 0;
  for (const auto& s : sessions) queued += Queued(s) ? 1 : 0;
  out.push_back({""});
  AddLines(out, "sessions: " + std::to_string(sessions.size() - queued), width);
  AddLines(out, std::string("  ") + SessionHeader(), width);
  for (const auto& s : sessions) {
    if (Queued(s)) continue;
    const bool selected = s.value("id", int64_t{0}) == view.selected;
    AddLines(out, (selected ? "> " : "  ") + SessionLine(s), width, selected);
  }
  out.push_back({""});
  AddLines(out, "queue: " + std::to_string(queued) + " waiting", width);
  if (queued > 0) {
    AddLines(out, "  ID    POLICY    RANKS  WAITING  WHY", width);
    for (const auto& s : sessions) {
      if (!Queued(s)) continue;
      const bool selected = s.value("id", int64_t{0}) == view.selected;
      // Its position now, and the policy's reason when it queued the session ("waits for 4
      // slots: 0 free, 1 session ahead, policy wait"; an older daemon gives none).
      std::string why = s.value("state_detail", "");
      if (const std::string reason = s.value("wait_reason", ""); !reason.empty())
        why += ": " + reason;
      char line[256];
      std::snprintf(line, sizeof line, "%-5ld %-9s %5d  %6.1fs  ", s.value("id", 0L),
                    s.value("policy", "").c_str(), s.value("ranks", 0), s.value("elapsed_s", 0.0));
      AddLines(out, (selected ? "> " : "  ") + std::string(line) + why, width, selected);
    }
  }
  out.push_back({""});
  AddLines(out,
           view.message.empty()
               ? "keys: q quit, up/down select, s suspend, r resume, k kill (asks first)"
               : view.message,
           width);
  return out;
}

}  // namespace psched::launcher
