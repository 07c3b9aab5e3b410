#include "launcher/status_format.hpp"

#include <algorithm>
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

double Number(const proto::Json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<double>() : 0.0;
}

// Mean latency of the measured links that touch `node` (0 when none yet).
double MeanLatencyUs(const proto::Json& links, int node) {
  double sum = 0;
  int n = 0;
  for (const auto& l : links) {
    if (!l.is_object() || (l.value("a", -1) != node && l.value("b", -1) != node)) continue;
    double us = Number(l, "latency_us");
    if (us <= 0) continue;
    sum += us;
    ++n;
  }
  return n ? sum / n : 0;
}

// The monitors' figures in a few characters each; '-' until measured (a node that
// has not reported yet, a daemon without monitoring, a node without probed links).
std::string MetricsColumns(const proto::Json& node, const proto::Json& links) {
  auto m = node.find("metrics");
  if (m == node.end() || !m->is_object() || Number(*m, "total_memory_mb") <= 0)
    return Line("%5s  %-11s  %6s  %6s", "-", "-", "-", "-");
  std::string memory =
      Line("%.1f/%.1fG", Number(*m, "used_memory_mb") / 1024, Number(*m, "total_memory_mb") / 1024);
  double us = MeanLatencyUs(links, node.value("id", -1));
  std::string latency = us <= 0 ? "-" : us < 1000 ? Line("%.0fus", us) : Line("%.1fms", us / 1000);
  double mbps = Number(*m, "bandwidth_mbps");
  std::string bandwidth = mbps <= 0     ? "-"
                          : mbps < 1000 ? Line("%.0fM", mbps)
                                        : Line("%.1fG", mbps / 1000);
  return Line("%5.2f  %-11s  %6s  %6s", Number(*m, "cpu_load_1m"), memory.c_str(), latency.c_str(),
              bandwidth.c_str());
}

// "; overbooked: 2 of 2 slots shared by 5 ranks' threads (up to 3 on one)": slots used more
// than once (overbook, also beyond the allocation's size), or "" when none is.
std::string OverUse(const proto::Json& nodes) {
  int shared = 0, uses = 0, most = 0, slots = 0;
  for (const auto& n : nodes) {
    for (const auto& u : n.value("uses", proto::Json::array())) {
      const int count = u.is_number_integer() ? u.get<int>() : 0;
      ++slots;
      if (count < 2) continue;
      ++shared;
      uses += count;
      most = std::max(most, count);
    }
  }
  if (shared == 0) return "";
  return Line("; overbooked: %d of %d slots shared by %d ranks' threads (up to %d on one)", shared,
              slots, uses, most);
}

}  // namespace

std::string StatusHeadline(const proto::Json& s) {
  return Line("nodes: %d, slots: %d free of %d%s\n", s.value("expected_nodes", 0),
              s.value("free", 0), s.value("total", 0),
              OverUse(s.value("nodes", proto::Json::array())).c_str());
}

std::string NodeTable(const proto::Json& s) {
  // LOAD: 1-minute load average; MEM: used/total GiB; LAT, BW: mean latency and
  // bandwidth (bit/s) of the node's probed links.
  std::string out = Line("%-5s %-17s %-6s %-9s  %5s  %-11s  %6s  %6s  %s\n", "NODE", "HOST",
                         "STATE", "FREE/PUS", "LOAD", "MEM", "LAT", "BW", "SLOTS");
  const proto::Json links = s.value("links", proto::Json::array());
  for (const auto& n : s.value("nodes", proto::Json::array())) {
    std::string host = n.value("hostname", "");
    std::string state = n.value("state", "up");
    if (state == "lost") {
      out += Line("%-5d %-17s %-6s %s\n", n.value("id", 0), host.c_str(), "lost",
                  n.value("cause", "").c_str());
      continue;
    }
    out += Line("%-5d %-17s %-6s %4d/%-4d  %s  %s\n", n.value("id", 0), host.c_str(), state.c_str(),
                n.value("free", 0), n.value("pus", 0), MetricsColumns(n, links).c_str(),
                SlotMap(n.value("uses", proto::Json::array())).c_str());
  }
  return out;
}

const char* SessionHeader() {
  return "ID    OWNER     STATE                  POLICY    RANKS  THREADS  ELAPSED  NODES  "
         "COMMAND\n";
}

std::string SessionLine(const proto::Json& x) {
  std::string nodes;
  for (const auto& n : x.value("nodes", proto::Json::array()))
    nodes += (nodes.empty() ? "" : ",") + std::to_string(n.get<int>());
  // "suspended by 3", "queued at position 2": the daemon says why, older ones only the state.
  std::string state = x.value("state_detail", x.value("state", ""));
  if (x.value("floating", false)) state += " (float)";
  if (x.value("exclusive", false)) state += " (excl)";
  return Line("%-5ld %-9s %-22s %-9s %5d  %7d  %6.1fs  %-6s %s\n", x.value("id", 0L),
              x.value("owner", "").c_str(), state.c_str(), x.value("policy", "").c_str(),
              x.value("ranks", 0), x.value("threads_per_rank", 1), x.value("elapsed_s", 0.0),
              nodes.c_str(), x.value("command", "").c_str());
}

std::string FormatStatus(const proto::Json& s) {
  std::string out = StatusHeadline(s) + NodeTable(s);
  auto sessions = s.value("sessions", proto::Json::array());
  out += Line("sessions: %zu\n", sessions.size());
  if (sessions.empty()) return out;
  out += SessionHeader();
  for (const auto& x : sessions) out += SessionLine(x);
  return out;
}

}  // namespace psched::launcher
