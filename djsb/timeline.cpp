#include "djsb/timeline.hpp"

#include <algorithm>
#include <sstream>

namespace psched::djsb {
namespace {

bool Intersects(const std::set<int>& a, const std::set<int>& b) {
  for (int x : a)
    if (b.count(x)) return true;
  return false;
}

std::string CtlToState(const std::string& ctl) {
  if (ctl == "running" || ctl == "suspended" || ctl == "sidestepped" || ctl == "overbooked")
    return ctl;
  if (ctl == "queued") return "waiting";
  return "";
}

void Append(std::vector<StateInterval>& out, double t0, double t1, const std::string& state) {
  if (t1 <= t0) return;
  if (!out.empty() && out.back().state == state && out.back().t1 >= t0 - 1e-9) {
    out.back().t1 = std::max(out.back().t1, t1);
    return;
  }
  out.push_back({t0, t1, state});
}

}  // namespace

std::set<int> ParseCpuList(const std::string& list) {
  std::set<int> cpus;
  std::stringstream ss(list);
  std::string piece;
  while (std::getline(ss, piece, ',')) {
    try {
      size_t dash = piece.find('-');
      if (dash == std::string::npos) {
        if (!piece.empty()) cpus.insert(std::stoi(piece));
      } else {
        int lo = std::stoi(piece.substr(0, dash)), hi = std::stoi(piece.substr(dash + 1));
        for (int c = lo; c <= hi && c - lo < 65536; ++c) cpus.insert(c);
      }
    } catch (const std::exception&) {
      // A malformed piece (a race with an exiting process) is skipped, not fatal.
    }
  }
  return cpus;
}

std::vector<std::vector<StateInterval>> BuildTimelines(const std::vector<RunTimes>& rel,
                                                       const std::vector<SampleTick>& ticks) {
  const size_t n = rel.size();
  std::vector<std::vector<StateInterval>> out(n);
  for (size_t i = 0; i < n; ++i) {
    const RunTimes& t = rel[i];
    Append(out[i], t.submit, t.begin, "waiting");
    // Where the session sat once all its processes were up (a launcher may bind ranks
    // only after they start, so earlier samples do not count).
    int all_procs = 0;
    for (const SampleTick& tick : ticks)
      if (i < tick.sessions.size()) all_procs = std::max(all_procs, tick.sessions[i].procs);
    std::string initial_cpus;
    // The state at each tick inside [begin, end], held until the next tick.
    std::vector<std::pair<double, std::string>> marks;
    for (const SampleTick& tick : ticks) {
      if (i >= tick.sessions.size()) continue;
      const StateSample& s = tick.sessions[i];
      if (s.procs == all_procs && s.procs > 0 && initial_cpus.empty()) initial_cpus = s.cpus;
      if (tick.t < t.begin || tick.t > t.end) continue;
      // Another session running (not all stopped) at this tick, and whether it shares cpus.
      bool other_running = false, shares = false;
      std::set<int> mine = ParseCpuList(s.cpus);
      for (size_t j = 0; j < tick.sessions.size(); ++j) {
        const StateSample& o = tick.sessions[j];
        if (j == i || o.procs == 0 || o.stopped == o.procs) continue;
        other_running = true;
        if (Intersects(mine, ParseCpuList(o.cpus))) shares = true;
      }
      std::string state = CtlToState(s.ctl_state);
      if (state.empty() && s.procs > 0) {
        if (s.stopped == s.procs) {
          state = "suspended";
        } else if (other_running && s.procs == all_procs && !initial_cpus.empty() &&
                   s.cpus != initial_cpus) {
          state = "sidestepped";  // moved away while another session runs
        } else {
          state = shares ? "overbooked" : "running";
        }
      }
      if (state.empty() || state == "waiting") state = "running";  // inside [begin, end]
      marks.emplace_back(tick.t, state);
    }
    if (marks.empty()) {
      Append(out[i], t.begin, t.end, "running");
      continue;
    }
    Append(out[i], t.begin, marks.front().first, marks.front().second);
    for (size_t k = 0; k < marks.size(); ++k) {
      double until = k + 1 < marks.size() ? marks[k + 1].first : t.end;
      Append(out[i], marks[k].first, until, marks[k].second);
    }
  }
  return out;
}

}  // namespace psched::djsb
