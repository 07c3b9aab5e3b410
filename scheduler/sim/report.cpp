#include "scheduler/sim/report.hpp"

#include "common/svg_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

namespace psched::sim {

namespace {

// The runs of one (workload, scheduler), in first-seen order.
struct Group {
  std::string workload, scheduler;
  std::vector<const Summary*> runs;
};
std::vector<Group> GroupRuns(const std::vector<RunReport>& runs) {
  std::vector<Group> groups;
  for (const RunReport& r : runs) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& g) {
      return g.workload == r.summary.workload && g.scheduler == r.summary.scheduler;
    });
    if (it == groups.end()) {
      groups.push_back(Group{r.summary.workload, r.summary.scheduler, {}});
      it = groups.end() - 1;
    }
    it->runs.push_back(&r.summary);
  }
  return groups;
}

template <typename F>
double Mean(const Group& g, F f) {
  double sum = 0;
  for (const Summary* s : g.runs) sum += f(*s);
  return g.runs.empty() ? 0 : sum / g.runs.size();
}

// "I.2" -> "50%": the auction workloads' contiguous share by version.
std::string ContiguousShare(const std::string& workload) {
  if (workload.ends_with(".1")) return "0%";
  if (workload.ends_with(".2")) return "50%";
  if (workload.ends_with(".3")) return "100%";
  return "-";
}

// "time-outs/rounds" summed over the group's runs, or "-" for schedulers without a solver.
std::string SolverCounts(const Group& g) {
  long rounds = 0, timeouts = 0;
  bool any = false;
  for (const Summary* s : g.runs) {
    if (s->solver_rounds < 0) continue;
    any = true;
    rounds += s->solver_rounds;
    timeouts += s->solver_timeouts;
  }
  return any ? std::to_string(timeouts) + "/" + std::to_string(rounds) : "-";
}

std::string AuctionTable(const std::vector<Group>& groups) {
  std::ostringstream o;
  o << "| Workload version | Contiguous job fraction | Average theo. runtime (hours) | Method | "
       "Util | Average Runtime (hours) | Average Waiting time (hours) | Average Fragmentation | "
       "Average Slowdown ratio | Average Spread | runs | solver time-outs / rounds |\n"
    << "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  std::string last;
  for (const Group& g : groups) {
    const bool first = g.workload != last;
    last = g.workload;
    o << "| " << (first ? g.workload : "") << " | " << (first ? ContiguousShare(g.workload) : "")
      << " | "
      << (first ? FormatFixed(Mean(g, [](auto& s) { return s.theoretical_runtime_s; }) / 3600, 2)
                : "")
      << " | " << g.scheduler << " | "
      << FormatFixed(100 * Mean(g, [](auto& s) { return s.utilisation; }), 0) << "% | "
      << FormatFixed(Mean(g, [](auto& s) { return s.makespan_s; }) / 3600, 2) << " | "
      << FormatFixed(Mean(g, [](auto& s) { return s.wait_s.mean; }) / 3600, 2) << " ± "
      << FormatFixed(Mean(g, [](auto& s) { return s.wait_s.stddev; }) / 3600, 2) << " | "
      << FormatFixed(Mean(g, [](auto& s) { return s.fragmentation.mean; }), 2) << " ± "
      << FormatFixed(Mean(g, [](auto& s) { return s.fragmentation.stddev; }), 2) << " | "
      << FormatFixed(Mean(g, [](auto& s) { return s.slowdown.mean; }), 2) << " | "
      << FormatFixed(Mean(g, [](auto& s) { return s.spread.mean; }), 2) << " ± "
      << FormatFixed(Mean(g, [](auto& s) { return s.spread.stddev; }), 2) << " | " << g.runs.size()
      << " | " << SolverCounts(g) << " |\n";
  }
  return o.str();
}

std::string IpTable(const std::vector<Group>& groups) {
  std::ostringstream o;
  o << "| Experiment | Workload | Waiting Time (hours, mean ± std) | Slowdown Ratio (mean ± std) | "
       "Utilization (mean) | Packing factor (mean ± std) | runs | solver time-outs / rounds |\n"
    << "|---|---|---|---|---|---|---|---|\n";
  for (const Group& g : groups) {
    o << "| " << g.scheduler << " | " << g.workload << " | "
      << FormatFixed(Mean(g, [](auto& s) { return s.wait_s.mean; }) / 3600, 2) << " ± "
      << FormatFixed(Mean(g, [](auto& s) { return s.wait_s.stddev; }) / 3600, 3) << " | "
      << FormatFixed(Mean(g, [](auto& s) { return s.slowdown.mean; }), 2) << " ± "
      << FormatFixed(Mean(g, [](auto& s) { return s.slowdown.stddev; }), 2) << " | "
      << FormatFixed(Mean(g, [](auto& s) { return s.utilisation; }), 2) << " | "
      << FormatFixed(Mean(g, [](auto& s) { return s.packing.mean; }), 3) << " ± "
      << FormatFixed(Mean(g, [](auto& s) { return s.packing.stddev; }), 3) << " | " << g.runs.size()
      << " | " << SolverCounts(g) << " |\n";
  }
  return o.str();
}

std::string PspTable(const std::vector<Group>& groups) {
  std::ostringstream o;
  o << "| Workload | Scheduler | Average waiting time (minutes) | Ratio to first scheduler's wait "
       "| Makespan (days) | Average bounded slowdown | runs |\n"
    << "|---|---|---|---|---|---|---|\n";
  std::map<std::string, double> baseline;  // workload -> first scheduler's mean wait
  for (const Group& g : groups) {
    const double wait = Mean(g, [](auto& s) { return s.wait_s.mean; });
    auto [it, fresh] = baseline.emplace(g.workload, wait);
    (void)fresh;
    o << "| " << g.workload << " | " << g.scheduler << " | " << FormatFixed(wait / 60, 1) << " | "
      << (wait > 0 ? FormatFixed(it->second / wait, 3) : std::string("-")) << " | "
      << FormatFixed(Mean(g, [](auto& s) { return s.makespan_s; }) / 86400, 2) << " | "
      << FormatFixed(Mean(g, [](auto& s) { return s.bounded_slowdown.mean; }), 1) << " | "
      << g.runs.size() << " |\n";
  }
  return o.str();
}

constexpr const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                    "#9467bd", "#8c564b", "#e377c2", "#17becf"};

}  // namespace

std::string JobsCsv(const std::vector<JobRecord>& records) {
  std::ostringstream o;
  o << "id,user,cores,gpus_per_node,requested_nodes,contiguous,submit,start,end,wait,runtime,"
       "estimate,slowdown,bounded_slowdown,nodes,fragmentation,spread,packing,logged_wait\n";
  for (const JobRecord& r : records) {
    o << r.id << ',' << r.user << ',' << r.cores << ',' << r.gpus_per_node << ','
      << r.requested_nodes << ',' << (r.contiguous ? 1 : 0) << ',' << FormatFixed(r.submit, 3)
      << ',';
    if (r.Ran()) {
      o << FormatFixed(r.start, 3) << ',' << FormatFixed(r.end, 3) << ','
        << FormatFixed(r.Wait(), 3) << ',';
    } else {
      o << ",,,";
    }
    o << FormatFixed(r.runtime, 3) << ',' << FormatFixed(r.estimate, 3) << ',';
    if (r.Ran()) {
      o << FormatFixed(r.Slowdown(), 4) << ',' << FormatFixed(r.BoundedSlowdown(), 4) << ','
        << r.nodes_used << ',' << r.fragmentation << ',' << FormatFixed(r.spread, 4) << ','
        << FormatFixed(r.packing, 4);
    } else {
      o << ",,,,,";
    }
    o << ',' << (r.logged_wait >= 0 ? FormatFixed(r.logged_wait, 3) : std::string()) << '\n';
  }
  return o.str();
}

nlohmann::json SkippedJson(const SkippedRecords& s) {
  return nlohmann::json{{"total", s.Total()},
                        {"runtime_le_0", s.no_runtime},
                        {"no_processors", s.no_processors},
                        {"too_wide", s.too_wide},
                        {"below_min_cores", s.below_min_cores}};
}

nlohmann::json SummaryJson(const Summary& s) {
  auto stat = [](const Stat& st) {
    return nlohmann::json{
        {"mean", st.mean}, {"stddev", st.stddev}, {"median", st.median}, {"max", st.max}};
  };
  nlohmann::json j{{"workload", s.workload},
                   {"scheduler", s.scheduler},
                   {"jobs", s.jobs},
                   {"rejected", s.rejected},
                   {"theoretical_runtime_s", s.theoretical_runtime_s},
                   {"makespan_s", s.makespan_s},
                   {"utilisation", s.utilisation},
                   {"wait_s", stat(s.wait_s)},
                   {"slowdown", stat(s.slowdown)},
                   {"bounded_slowdown", stat(s.bounded_slowdown)},
                   {"fragmentation", stat(s.fragmentation)},
                   {"spread", stat(s.spread)},
                   {"packing", stat(s.packing)},
                   {"rounds", s.rounds}};
  if (s.logged_wait_mean_s >= 0) j["logged_wait_mean_s"] = s.logged_wait_mean_s;
  if (s.solver_rounds >= 0) {
    j["solver_rounds"] = s.solver_rounds;
    j["solver_timeouts"] = s.solver_timeouts;
  }
  return j;
}

Result<TableStyle> ParseTableStyle(const std::string& name) {
  if (name == "auction") return TableStyle::kAuction;
  if (name == "ip") return TableStyle::kIp;
  if (name == "psp") return TableStyle::kPsp;
  return Fail(ErrorCode::kInvalidArgument,
              "unknown table style '" + name + "' (valid: auction, ip, psp)");
}

std::string FormatTable(const std::vector<RunReport>& runs, TableStyle style) {
  std::vector<Group> groups = GroupRuns(runs);
  switch (style) {
    case TableStyle::kAuction:
      return AuctionTable(groups);
    case TableStyle::kIp:
      return IpTable(groups);
    case TableStyle::kPsp:
      return PspTable(groups);
  }
  return {};
}

std::string UtilisationAndWaitSvg(const std::vector<RunReport>& runs, const Machine& machine,
                                  const std::string& title) {
  constexpr double kW = 460, kH = 300, kPad = 50, kBins = 200;
  double t_end = 0, w_max = 0;
  for (const RunReport& r : runs) {
    if (r.records == nullptr) continue;
    for (const JobRecord& j : *r.records) {
      if (j.Ran()) {
        t_end = std::max(t_end, j.end);
        w_max = std::max(w_max, j.Wait());
      }
    }
  }
  if (t_end <= 0) t_end = 1;
  if (w_max <= 0) w_max = 1;
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << 2 * kW + 3 * kPad << "\" height=\""
    << kH + 3 * kPad << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    << "<text x=\"" << kPad << "\" y=\"20\" font-size=\"15\">" << XmlEscape(title) << "</text>\n";
  auto axes = [&](double x0, const std::string& xlabel, const std::string& ylabel,
                  const std::string& xmax) {
    const double y0 = kPad + kH;
    o << "<rect x=\"" << x0 << "\" y=\"" << kPad << "\" width=\"" << kW << "\" height=\"" << kH
      << "\" fill=\"none\" stroke=\"black\"/>\n";
    for (int k = 0; k <= 4; ++k) {
      double y = y0 - kH * k / 4;
      o << "<line x1=\"" << x0 << "\" y1=\"" << y << "\" x2=\"" << x0 + kW << "\" y2=\"" << y
        << "\" stroke=\"#ddd\"/>\n<text x=\"" << x0 - 30 << "\" y=\"" << y + 4 << "\">"
        << FormatFixed(k / 4.0, 2) << "</text>\n";
    }
    o << "<text x=\"" << x0 << "\" y=\"" << y0 + 18 << "\">0</text>\n<text x=\"" << x0 + kW - 40
      << "\" y=\"" << y0 + 18 << "\">" << xmax << "</text>\n<text x=\"" << x0 + kW / 2 - 60
      << "\" y=\"" << y0 + 34 << "\">" << xlabel << "</text>\n<text x=\"" << x0 << "\" y=\""
      << kPad - 8 << "\">" << ylabel << "</text>\n";
  };
  const double left = kPad, right = 2 * kPad + kW;
  axes(left, "time (hours)", "busy fraction of the cores", FormatFixed(t_end / 3600, 1));
  axes(right, "waiting time (log scale, 1 + seconds)", "fraction of jobs waiting at most x",
       FormatFixed(w_max / 3600, 2) + " h");
  // Waits span seconds to days: a log axis keeps short-wait schedulers readable.
  const double log_max = std::log10(1 + w_max);
  auto wait_x = [&](double w) { return right + kW * std::log10(1 + w) / log_max; };
  for (double mark : {60.0, 3600.0, 86400.0}) {
    if (mark >= w_max) continue;
    o << "<line x1=\"" << FormatFixed(wait_x(mark), 1) << "\" y1=\"" << kPad << "\" x2=\""
      << FormatFixed(wait_x(mark), 1) << "\" y2=\"" << kPad + kH
      << "\" stroke=\"#ddd\"/>\n<text x=\"" << FormatFixed(wait_x(mark) - 10, 1) << "\" y=\""
      << kPad + kH + 18 << "\">"
      << (mark == 60     ? "1 min"
          : mark == 3600 ? "1 h"
                         : "1 day")
      << "</text>\n";
  }
  const double y0 = kPad + kH;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (runs[i].records == nullptr) continue;
    const char* colour = kColours[i % std::size(kColours)];
    // Utilisation: the busy fraction averaged over each bin.
    std::vector<double> busy(static_cast<size_t>(kBins), 0.0);
    const double bin = t_end / kBins;
    for (const JobRecord& j : *runs[i].records) {
      if (!j.Ran()) continue;
      for (int b = static_cast<int>(j.start / bin); b < kBins && b * bin < j.end; ++b) {
        double overlap = std::min(j.end, (b + 1) * bin) - std::max(j.start, b * bin);
        if (overlap > 0) busy[b] += overlap * j.cores;
      }
    }
    o << "<polyline fill=\"none\" stroke=\"" << colour << "\" points=\"";
    for (int b = 0; b < kBins; ++b) {
      double frac = busy[b] / (bin * machine.TotalCores());
      o << FormatFixed(left + kW * (b + 0.5) / kBins, 1) << ','
        << FormatFixed(y0 - kH * std::min(frac, 1.0), 1) << ' ';
    }
    o << "\"/>\n";
    // Waiting-time CDF.
    std::vector<double> waits;
    for (const JobRecord& j : *runs[i].records)
      if (j.Ran()) waits.push_back(j.Wait());
    std::sort(waits.begin(), waits.end());
    o << "<polyline fill=\"none\" stroke=\"" << colour << "\" points=\"";
    const size_t step = std::max<size_t>(1, waits.size() / 400);
    for (size_t k = 0; k < waits.size(); k += step) {
      o << FormatFixed(wait_x(waits[k]), 1) << ','
        << FormatFixed(y0 - kH * (k + 1.0) / waits.size(), 1) << ' ';
    }
    if (!waits.empty()) o << FormatFixed(right + kW, 1) << ',' << FormatFixed(y0 - kH, 1);
    o << "\"/>\n";
    o << "<text x=\"" << right + kW - 150 << "\" y=\"" << y0 - 12 - 16 * i << "\" fill=\"" << colour
      << "\">" << XmlEscape(runs[i].summary.scheduler) << "</text>\n";
  }
  o << "</svg>\n";
  return o.str();
}

}  // namespace psched::sim
