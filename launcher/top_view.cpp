#include "launcher/top_view.hpp"

#include <algorithm>
#include <sstream>

#include "launcher/status_format.hpp"

namespace psched::launcher {

namespace {

bool Queued(const proto::SessionStatus& session) {
  return session.state == "queued";
}

void AddLines(std::vector<TopLine>& out, const std::string& text, size_t width,
              bool selected = false) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back({line.substr(0, width), selected});
}

}  // namespace

std::vector<int64_t> SelectableSessions(const proto::AllocationStatus& status) {
  std::vector<int64_t> running, queued;
  for (const proto::SessionStatus& s : status.sessions)
    (Queued(s) ? queued : running).push_back(s.id);
  running.insert(running.end(), queued.begin(), queued.end());
  return running;
}

int64_t MoveSelection(const proto::AllocationStatus& status, int64_t selected, int step) {
  const std::vector<int64_t> ids = SelectableSessions(status);
  if (ids.empty()) return 0;
  auto it = std::find(ids.begin(), ids.end(), selected);
  if (it == ids.end()) return ids.front();
  const auto index = static_cast<int64_t>(it - ids.begin()) + step;
  return ids[static_cast<size_t>(std::clamp<int64_t>(index, 0, std::ssize(ids) - 1))];
}

std::string SessionCommand(const proto::AllocationStatus& status, int64_t id) {
  for (const proto::SessionStatus& s : status.sessions)
    if (s.id == id) return s.command;
  return "";
}

std::vector<TopLine> TopLines(const proto::AllocationStatus& status, const TopView& view,
                              size_t width) {
  std::vector<TopLine> out;
  AddLines(out, "psched-ctl top: " + StatusHeadline(status), width);
  AddLines(out, NodeTable(status), width);
  const std::vector<proto::SessionStatus>& sessions = status.sessions;
  size_t queued = 0;
  for (const proto::SessionStatus& s : sessions) queued += Queued(s) ? 1 : 0;
  out.push_back({""});
  AddLines(out, "sessions: " + std::to_string(sessions.size() - queued), width);
  AddLines(out, std::string("  ") + SessionHeader(), width);
  for (const proto::SessionStatus& s : sessions) {
    if (Queued(s)) continue;
    const bool selected = s.id == view.selected;
    AddLines(out, (selected ? "> " : "  ") + SessionLine(s), width, selected);
  }
  out.push_back({""});
  AddLines(out, "queue: " + std::to_string(queued) + " waiting", width);
  if (queued > 0) {
    AddLines(out, "  ID    POLICY    RANKS  WAITING  WHY", width);
    for (const proto::SessionStatus& s : sessions) {
      if (!Queued(s)) continue;
      const bool selected = s.id == view.selected;
      // Its position now, and the policy's reason when it queued the session ("waits for 4
      // slots: 0 free, 1 session ahead, policy wait"; an older daemon gives none).
      std::string why = s.state_detail;
      if (s.wait_reason && !s.wait_reason->empty()) why += ": " + *s.wait_reason;
      char line[256];
      std::snprintf(line, sizeof line, "%-5ld %-9s %5u  %6.1fs  ", s.id, s.policy.c_str(), s.ranks,
                    s.elapsed_s);
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
