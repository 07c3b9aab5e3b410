#include "launcher/status_format.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace psched::launcher {

namespace {

std::string SlotMap(const std::vector<uint32_t>& uses) {
  std::string map;
  for (uint32_t n : uses) map += n == 0 ? '.' : n < 10 ? static_cast<char>('0' + n) : '+';
  return map;
}

std::string Line(const char* fmt, auto... args) {
  char buf[1024];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

// Mean latency of the measured links that touch `node` (0 when none yet).
double MeanLatencyUs(const std::vector<proto::LinkStatus>& links, int node) {
  double sum = 0;
  int n = 0;
  for (const proto::LinkStatus& l : links) {
    if ((l.a != node && l.b != node) || l.latency_us <= 0) continue;
    sum += l.latency_us;
    ++n;
  }
  return n ? sum / n : 0;
}

// The monitors' figures in a few characters each; '-' until measured (a node that
// has not reported yet, a daemon without monitoring, a node without probed links).
std::string MetricsColumns(const proto::NodeStatus& node,
                           const std::vector<proto::LinkStatus>& links) {
  const proto::NodeMetricsReport& m = node.metrics;
  if (m.total_memory_mb <= 0) return Line("%5s  %-11s  %6s  %6s", "-", "-", "-", "-");
  std::string memory = Line("%.1f/%.1fG", m.used_memory_mb / 1024, m.total_memory_mb / 1024);
  double us = MeanLatencyUs(links, node.id);
  std::string latency = us <= 0 ? "-" : us < 1000 ? Line("%.0fus", us) : Line("%.1fms", us / 1000);
  double mbps = m.bandwidth_mbps;
  std::string bandwidth = mbps <= 0     ? "-"
                          : mbps < 1000 ? Line("%.0fM", mbps)
                                        : Line("%.1fG", mbps / 1000);
  return Line("%5.2f  %-11s  %6s  %6s", m.cpu_load_1m, memory.c_str(), latency.c_str(),
              bandwidth.c_str());
}

// "; overbooked: 2 of 2 slots shared by 5 ranks' threads (up to 3 on one)": slots used more
// than once (overbook, also beyond the allocation's size), or "" when none is.
std::string OverUse(const std::vector<proto::NodeStatus>& nodes) {
  uint64_t shared = 0, uses = 0, most = 0, slots = 0;
  for (const proto::NodeStatus& n : nodes) {
    if (!n.uses) continue;
    for (uint32_t count : *n.uses) {
      ++slots;
      if (count < 2) continue;
      ++shared;
      uses += count;
      most = std::max<uint64_t>(most, count);
    }
  }
  if (shared == 0) return "";
  return Line("; overbooked: %lu of %lu slots shared by %lu ranks' threads (up to %lu on one)",
              shared, slots, uses, most);
}

}  // namespace

std::string StatusHeadline(const proto::AllocationStatus& s) {
  return Line("nodes: %u, slots: %u free of %u%s\n", s.expected_nodes, s.free, s.total,
              OverUse(s.nodes).c_str());
}

std::string NodeTable(const proto::AllocationStatus& s) {
  // LOAD: 1-minute load average; MEM: used/total GiB; LAT, BW: mean latency and
  // bandwidth (bit/s) of the node's probed links.
  std::string out = Line("%-5s %-17s %-6s %-9s  %5s  %-11s  %6s  %6s  %s\n", "NODE", "HOST",
                         "STATE", "FREE/PUS", "LOAD", "MEM", "LAT", "BW", "SLOTS");
  for (const proto::NodeStatus& n : s.nodes) {
    if (n.state == "lost") {
      out += Line("%-5d %-17s %-6s %s\n", n.id, n.hostname.c_str(), "lost",
                  n.cause.value_or("").c_str());
      continue;
    }
    out += Line("%-5d %-17s %-6s %4u/%-4u  %s  %s\n", n.id, n.hostname.c_str(), n.state.c_str(),
                n.free.value_or(0), n.pus.value_or(0), MetricsColumns(n, s.links).c_str(),
                SlotMap(n.uses.value_or(std::vector<uint32_t>{})).c_str());
  }
  return out;
}

const char* SessionHeader() {
  return "ID    OWNER     STATE                  POLICY    RANKS  THREADS  ELAPSED  NODES  "
         "COMMAND\n";
}

std::string SessionLine(const proto::SessionStatus& x) {
  std::string nodes;
  for (int n : x.nodes) nodes += (nodes.empty() ? "" : ",") + std::to_string(n);
  // "suspended by 3", "queued at position 2": the daemon says why, older ones only the state.
  std::string state = x.state_detail.empty() ? x.state : x.state_detail;
  if (x.floating) state += " (float)";
  if (x.exclusive) state += " (excl)";
  return Line("%-5ld %-9s %-22s %-9s %5u  %7u  %6.1fs  %-6s %s\n", x.id, x.owner.c_str(),
              state.c_str(), x.policy.c_str(), x.ranks, x.threads_per_rank, x.elapsed_s,
              nodes.c_str(), x.command.c_str());
}

std::string FormatStatus(const proto::AllocationStatus& s) {
  std::string out = StatusHeadline(s) + NodeTable(s);
  out += Line("sessions: %zu\n", s.sessions.size());
  if (s.sessions.empty()) return out;
  out += SessionHeader();
  for (const proto::SessionStatus& x : s.sessions) out += SessionLine(x);
  return out;
}

}  // namespace psched::launcher
