#include "daemon/monitor/proc_parse.hpp"

#include <map>
#include <sstream>
#include <string>

namespace psched::daemon::monitor {
namespace {

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    size_t end = text.find('\n');
    out.push_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return out;
}

}  // namespace

Result<CpuTimes> ParseProcStat(std::string_view text, const std::vector<int>& cpus) {
  std::map<int, CpuTimes> by_cpu;
  for (std::string_view line : Lines(text)) {
    if (line.size() < 4 || line.substr(0, 3) != "cpu" || line[3] < '0' || line[3] > '9') continue;
    std::istringstream in{std::string(line.substr(3))};
    int cpu = -1;
    in >> cpu;
    // user nice system idle iowait irq softirq steal (guest time is already in user)
    uint64_t v[8] = {};
    int fields = 0;
    while (fields < 8 && in >> v[fields]) ++fields;
    if (fields < 4)
      return Fail(ErrorCode::kSystem, "/proc/stat: malformed line for cpu " + std::to_string(cpu));
    CpuTimes t;
    for (int i = 0; i < fields; ++i) t.total += v[i];
    t.busy = t.total - v[3] - (fields > 4 ? v[4] : 0);
    by_cpu[cpu] = t;
  }
  CpuTimes sum;
  for (int cpu : cpus) {
    auto it = by_cpu.find(cpu);
    if (it == by_cpu.end())
      return Fail(ErrorCode::kSystem, "/proc/stat has no line for cpu " + std::to_string(cpu));
    sum.busy += it->second.busy;
    sum.total += it->second.total;
  }
  return sum;
}

double Utilisation(const CpuTimes& before, const CpuTimes& after) {
  if (after.total <= before.total || after.busy < before.busy) return 0;
  double u = static_cast<double>(after.busy - before.busy) /
             static_cast<double>(after.total - before.total);
  return u > 1 ? 1 : u;
}

Result<MemInfo> ParseMeminfo(std::string_view text) {
  MemInfo info;
  bool total = false, available = false;
  for (std::string_view line : Lines(text)) {
    auto field = [&](std::string_view key, double& out) {
      if (line.substr(0, key.size()) != key) return false;
      std::istringstream in{std::string(line.substr(key.size()))};
      double kb = 0;
      if (!(in >> kb)) return false;
      out = kb / 1024.0;
      return true;
    };
    total = field("MemTotal:", info.total_mb) || total;
    available = field("MemAvailable:", info.available_mb) || available;
  }
  if (!total || !available)
    return Fail(ErrorCode::kSystem, "/proc/meminfo lacks MemTotal or MemAvailable");
  return info;
}

double ParseCpuMhz(std::string_view text) {
  for (std::string_view line : Lines(text)) {
    if (line.substr(0, 7) != "cpu MHz") continue;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) return 0;
    std::istringstream in{std::string(line.substr(colon + 1))};
    double mhz = 0;
    in >> mhz;
    return mhz;
  }
  return 0;
}

}  // namespace psched::daemon::monitor
