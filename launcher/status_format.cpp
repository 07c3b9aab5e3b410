#include "launcher/status_format.hpp"

#include <cstdio>

namespace psched::launcher {

namespace {

std::string SlotMap(const proto::Json& uses) {
  std::string map;
  for (const auto& u : uses) {
    int n = u.is_number_integer() ? u.get<int>() : 0;
    map += n == 0 ? '.' : n < 10 ? static_cast<char>('0' + n) : '+';
  }
  return map;
}

std::string Line(const char* fmt, auto... args) {
  char buf[1024];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

}  // namespace

std::string FormatStatus(const proto::Json& s) {
  std::string out = Line("nodes: %d, slots: %d free of %d\n", s.value("expected_nodes", 0),
                         s.value("free", 0), s.value("total", 0));
  out += "NODE  HOST              STATE  FREE/PUS  SLOTS\n";
  for (const auto& n : s.value("nodes", proto::Json::array())) {
    std::string host = n.value("hostname", "");
    std::string state = n.value("state", "up");
    if (state == "lost") {
      out += Line("%-5d %-17s %-6s %s\n", n.value("id", 0), host.c_str(), "lost",
                  n.value("cause", "").c_str());
      continue;
    }
    out += Line("%-5d %-17s %-6s %4d/%-4d %s\n", n.value("id", 0), host.c_str(), state.c_str(),
                n.value("free", 0), n.value("pus", 0),
                SlotMap(n.value("uses", proto::Json::array())).c_str());
  }
  auto sessions = s.value("sessions", proto::Json::array());
  out += Line("sessions: %zu\n", sessions.size());
  if (sessions.empty()) return out;
  out += "ID    OWNER     STATE                  POLICY    RANKS  THREADS  ELAPSED  NODES  COMMAND\n";
  for (const auto& x : sessions) {
    std::string nodes;
    for (const auto& n : x.value("nodes", proto::Json::array()))
      nodes += (nodes.empty() ? "" : ",") + std::to_string(n.get<int>());
    // "suspended by 3", "queued at position 2": the daemon says why, older ones only the state.
    std::string state = x.value("state_detail", x.value("state", ""));
    if (x.value("floating", false)) state += " (float)";
    if (x.value("exclusive", false)) state += " (excl)";
    out += Line("%-5ld %-9s %-22s %-9s %5d  %7d  %6.1fs  %-6s %s\n", x.value("id", 0L),
                x.value("owner", "").c_str(), state.c_str(), x.value("policy", "").c_str(),
                x.value("ranks", 0),
                x.value("threads_per_rank", 1), x.value("elapsed_s", 0.0), nodes.c_str(),
                x.value("command", "").c_str());
  }
  return out;
}

}  // namespace psched::launcher
