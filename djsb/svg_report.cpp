#include "djsb/svg_report.hpp"

#include "common/svg_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

#include "djsb/report.hpp"

namespace psched::djsb {
namespace {

constexpr double kWidth = 1000;
constexpr double kLeft = 150;  // room for labels
constexpr double kRight = 40;
constexpr double kLaneH = 14;
constexpr double kLaneGap = 3;

struct StateStyle {
  const char* state;
  const char* fill;
  const char* label;
};
// Colour-blind-safe (Okabe-Ito) fills; waiting is a pale outline so it reads as "not running".
constexpr StateStyle kStyles[] = {
    {"waiting", "#eeeeee", "waiting (submitted, not started)"},
    {"running", "#009E73", "running"},
    {"suspended", "#D55E00", "suspended (SIGSTOP)"},
    {"sidestepped", "#0072B2", "sidestepped (re-pinned)"},
    {"overbooked", "#CC79A7", "overbooked (sharing cpus)"},
};

const char* FillOf(const std::string& state) {
  for (const StateStyle& s : kStyles)
    if (state == s.state) return s.fill;
  return "#999999";
}

std::string F(double v, int digits = 1) {
  return FormatFixed(v, digits);
}

// A round tick step giving about `target` ticks over `span`.
double TickStep(double span, int target) {
  double raw = span / target;
  double mag = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * mag) return m * mag;
  return 10 * mag;
}

void Text(std::ostringstream& o, double x, double y, const std::string& s,
          const char* anchor = "start", int size = 12, const char* weight = "normal",
          const char* fill = "#222") {
  o << "<text x=\"" << F(x) << "\" y=\"" << F(y) << "\" font-size=\"" << size << "\" text-anchor=\""
    << anchor << "\" font-weight=\"" << weight << "\" fill=\"" << fill << "\">" << XmlEscape(s)
    << "</text>\n";
}

}  // namespace

std::string RenderSvg(const DjsbResults& r) {
  std::ostringstream body;
  double y = 30;
  Text(body, 20, y, "psched djsb: Dynamicity Ratio per policy and today's baseline", "start", 18,
       "bold");
  y += 20;
  {
    std::string sub =
        "simulation " + std::to_string(r.config.simulation.ranks) + "x" +
        std::to_string(r.config.simulation.threads) + ", " + std::to_string(r.config.analyses) +
        " analysis session(s) " + std::to_string(r.config.analysis.ranks) + "x" +
        std::to_string(r.config.analysis.threads) + ", medians of " +
        std::to_string(r.config.repeats) + " to " + std::to_string(r.config.max_repeats) +
        " repeats, 95% intervals, on " + r.host;
    Text(body, 20, y, sub, "start", 12, "normal", "#555");
    y += 16;
    if (!r.folded.empty()) {
      Text(body, 20, y, r.folded, "start", 12, "bold", "#D55E00");
      y += 16;
    }
    // The constants line is long: wrap it at its commas so it stays inside the picture.
    for (const FamilyReferences& f : r.references) {
      std::string text = f.family + ": " + DescribeConstants(f.constants), line;
      std::stringstream parts(text);
      for (std::string part; std::getline(parts, part, ',');) {
        if (!line.empty() && line.size() + part.size() > 150) {
          Text(body, 20, y, line + ",", "start", 10, "normal", "#777");
          y += 13;
          line = part.substr(part.find_first_not_of(' '));
        } else {
          line += (line.empty() ? "" : ",") + part;
        }
      }
      Text(body, 20, y, line, "start", 10, "normal", "#777");
      y += 14;
    }
  }

  // ---- Bar chart of D.
  y += 16;
  Text(body, 20, y, "D = E_sim x E_ana x W_ana (higher is better)", "start", 14, "bold");
  y += 10;
  double max_d = 0;
  for (const ScenarioResult& s : r.scenarios)
    if (s.skipped.empty()) max_d = std::max({max_d, s.summary.d, s.summary.d_interval.hi});
  max_d = std::max(max_d, 1.0) * 1.1;
  // Bars on the left, each figure in a column of its own on the right: a wide interval
  // would otherwise push its label out of the picture.
  const double label_col = 250;
  const double bar_w = kWidth - kLeft - kRight - label_col;
  const double bar_h = 18;
  double baseline_d = -1;
  for (const ScenarioResult& s : r.scenarios)
    if (s.skipped.empty() && !s.scenario.baseline.empty()) baseline_d = s.summary.d;
  const double chart_top = y;
  for (const ScenarioResult& s : r.scenarios) {
    y += 6;
    Text(body, kLeft - 8, y + bar_h - 5, s.scenario.name, "end", 12);
    if (!s.skipped.empty()) {
      Text(body, kLeft + 4, y + bar_h - 5, "not run: " + s.skipped.substr(0, 90), "start", 11,
           "normal", "#999");
    } else {
      double w = bar_w * s.summary.d / max_d;
      const char* fill = s.scenario.baseline.empty() ? "#0072B2" : "#999999";
      body << "<rect x=\"" << F(kLeft) << "\" y=\"" << F(y) << "\" width=\"" << F(w)
           << "\" height=\"" << F(bar_h) << "\" fill=\"" << fill << "\"/>\n";
      // The 95% interval of D as an error bar across the bar's end.
      const Interval& ci = s.summary.d_interval;
      const double label_x = kLeft + bar_w + 12;
      std::string label = F(s.summary.d, 2);
      if (ci.Known()) {
        const double x0 = kLeft + bar_w * std::max(0.0, ci.lo) / max_d;
        const double x1 = kLeft + bar_w * ci.hi / max_d;
        const double mid = y + bar_h / 2;
        body << "<path d=\"M" << F(x0) << " " << F(mid) << "H" << F(x1) << "M" << F(x0) << " "
             << F(y + 3) << "V" << F(y + bar_h - 3) << "M" << F(x1) << " " << F(y + 3) << "V"
             << F(y + bar_h - 3) << "\" stroke=\"#000\" stroke-width=\"1.5\" fill=\"none\"/>\n";
        label +=
            " [" + F(ci.lo, 2) + ", " + F(ci.hi, 2) + "], " + std::to_string(ci.n) + " repeats";
      }
      if (!r.folded.empty()) label += " (folded)";
      Text(body, label_x, y + bar_h - 5, label, "start", 12, "bold");
    }
    y += bar_h;
  }
  // D = 1 (no change) and the baseline's D as reference lines.
  auto vline = [&](double d, const char* colour, const std::string& label) {
    double x = kLeft + bar_w * d / max_d;
    body << "<line x1=\"" << F(x) << "\" y1=\"" << F(chart_top) << "\" x2=\"" << F(x) << "\" y2=\""
         << F(y + 4) << "\" stroke=\"" << colour
         << "\" stroke-dasharray=\"4,3\" stroke-width=\"1.5\"/>\n";
    Text(body, x, y + 16, label, "middle", 10, "normal", colour);
  };
  vline(1.0, "#444", "D = 1 (no change)");
  if (baseline_d > 0 && std::fabs(baseline_d - 1.0) > 0.08 * max_d)
    vline(baseline_d, "#D55E00", "baseline");
  y += 42;

  // ---- The interactive djsb: a pull's latency beside D, per scenario.
  if (r.config.interaction.enabled()) {
    Text(body, 20, y,
         "Interaction: an analysis pulls a slice from the running simulation (request to reply)",
         "start", 14, "bold");
    y += 18;
    for (const ScenarioResult& s : r.scenarios) {
      if (!s.skipped.empty()) continue;
      const InteractionSummary& x = s.interaction;
      std::string line =
          std::to_string(x.completed) + " of " + std::to_string(x.asked) + " pulls completed";
      if (x.latencies > 0)
        line += ", p50 " + F(1000 * x.median_s) + " ms, p95 " + F(1000 * x.p95_s) + " ms";
      if (!x.all_completed() && !x.error.empty()) line += ": " + x.error.substr(0, 90);
      Text(body, kLeft - 8, y, s.scenario.name, "end", 12);
      Text(body, kLeft + 4, y, line, "start", 12, x.all_completed() ? "bold" : "normal",
           x.all_completed() ? "#222" : "#D55E00");
      y += 16;
    }
    y += 20;
  }

  // ---- Legend.
  double lx = 20;
  for (const StateStyle& st : kStyles) {
    body << "<rect x=\"" << F(lx) << "\" y=\"" << F(y - 10)
         << "\" width=\"14\" height=\"12\" fill=\"" << st.fill
         << "\" stroke=\"#888\" stroke-width=\"0.5\"/>\n";
    Text(body, lx + 18, y, st.label, "start", 11);
    lx += 30 + 6.2 * std::string(st.label).size();
  }
  body << "<line x1=\"" << F(lx) << "\" y1=\"" << F(y - 11) << "\" x2=\"" << F(lx) << "\" y2=\""
       << F(y + 2) << "\" stroke=\"#000\" stroke-dasharray=\"2,2\"/>\n";
  Text(body, lx + 6, y, "analysis submitted", "start", 11);
  y += 20;

  // ---- Timelines: every scenario's first repeat on one time axis.
  double t_max = 1;
  for (const ScenarioResult& s : r.scenarios) {
    if (!s.runs.empty()) {
      for (const SessionRecord& rec : s.runs[0].sessions)
        for (const StateInterval& iv : rec.timeline) t_max = std::max(t_max, iv.t1);
    }
  }
  const double axis_w = kWidth - kLeft - kRight;
  auto xof = [&](double t) { return kLeft + axis_w * t / t_max; };
  const double step = TickStep(t_max, 10);
  Text(body, 20, y + 4,
       "Timelines (first repeat of each scenario, seconds since the simulation's submit)", "start",
       14, "bold");
  y += 12;

  for (const ScenarioResult& s : r.scenarios) {
    if (s.runs.empty()) continue;
    const ScenarioRun& run = s.runs[0];
    y += 20;
    Text(body, 20, y, s.scenario.name, "start", 13, "bold");
    Text(body, kWidth - kRight, y, "states from " + run.state_source, "end", 10, "normal", "#777");
    y += 6;
    const double panel_top = y;
    std::set<int> nodes;
    for (const SessionRecord& rec : run.sessions) nodes.insert(rec.nodes.begin(), rec.nodes.end());
    for (int node : nodes) {
      std::vector<const SessionRecord*> lanes;
      for (const SessionRecord& rec : run.sessions) {
        if (std::find(rec.nodes.begin(), rec.nodes.end(), node) != rec.nodes.end())
          lanes.push_back(&rec);
      }
      const double node_top = y + 2;
      for (const SessionRecord* rec : lanes) {
        y += kLaneGap;
        Text(body, kLeft - 8, y + kLaneH - 3, rec->name, "end", 11);
        for (const StateInterval& iv : rec->timeline) {
          double x0 = xof(iv.t0), x1 = xof(iv.t1);
          body << "<rect x=\"" << F(x0) << "\" y=\"" << F(y) << "\" width=\""
               << F(std::max(0.5, x1 - x0)) << "\" height=\"" << F(kLaneH) << "\" fill=\""
               << FillOf(iv.state) << "\""
               << (iv.state == "waiting" ? " stroke=\"#aaa\" stroke-width=\"0.5\"" : "")
               << "><title>"
               << XmlEscape(rec->name + " " + iv.state + " " + F(iv.t0) + "-" + F(iv.t1) + " s")
               << "</title></rect>\n";
        }
        y += kLaneH;
      }
      Text(body, 20, (node_top + y) / 2 + 5, "node " + std::to_string(node), "start", 11, "normal",
           "#444");
      y += 4;
      body << "<line x1=\"20\" y1=\"" << F(y) << "\" x2=\"" << F(kWidth - kRight) << "\" y2=\""
           << F(y) << "\" stroke=\"#ddd\"/>\n";
    }
    // Analyses' submit times across the panel.
    for (const SessionRecord& rec : run.sessions) {
      if (rec.name == "sim") continue;
      double x = xof(rec.times.submit - run.start);
      body << "<line x1=\"" << F(x) << "\" y1=\"" << F(panel_top) << "\" x2=\"" << F(x)
           << "\" y2=\"" << F(y) << "\" stroke=\"#000\" stroke-dasharray=\"2,2\"/>\n";
    }
    y += 4;
  }
  // Time axis under the last panel.
  y += 6;
  body << "<line x1=\"" << F(kLeft) << "\" y1=\"" << F(y) << "\" x2=\"" << F(kLeft + axis_w)
       << "\" y2=\"" << F(y) << "\" stroke=\"#444\"/>\n";
  for (double t = 0; t <= t_max + 1e-9; t += step) {
    body << "<line x1=\"" << F(xof(t)) << "\" y1=\"" << F(y) << "\" x2=\"" << F(xof(t))
         << "\" y2=\"" << F(y + 5) << "\" stroke=\"#444\"/>\n";
    Text(body, xof(t), y + 17, F(t, step < 1 ? 1 : 0), "middle", 10);
  }
  Text(body, kLeft + axis_w / 2, y + 32, "time [s]", "middle", 11);
  y += 45;

  std::ostringstream svg;
  svg << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << F(kWidth) << "\" height=\"" << F(y)
      << "\" viewBox=\"0 0 " << F(kWidth) << " " << F(y)
      << "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << body.str() << "</svg>\n";
  return svg.str();
}

}  // namespace psched::djsb
