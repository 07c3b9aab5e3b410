#include "djsb/report.hpp"

#include <cstdio>
#include <sstream>

#include "djsb/repeat_rule.hpp"

namespace psched::djsb {
namespace {

std::string Fixed(double v, int digits = 2) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string Pad(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}
std::string PadRight(const std::string& s, size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

const FamilyReferences* FindFamily(const DjsbResults& r, const std::string& family) {
  for (const FamilyReferences& f : r.references)
    if (f.family == family) return &f;
  return nullptr;
}

nlohmann::json TimesJson(const RunTimes& t) {
  return {{"submit", t.submit}, {"begin", t.begin},           {"end", t.end},
          {"wait", t.Wait()},   {"execution", t.Execution()}, {"response", t.Response()}};
}

nlohmann::json RunJson(const ScenarioRun& run) {
  nlohmann::json j;
  j["repeat"] = run.repeat;
  j["start"] = run.start;
  j["state_source"] = run.state_source;
  for (const SessionRecord& s : run.sessions) {
    nlohmann::json js;
    js["name"] = s.name;
    js["tag"] = s.tag;
    js["times"] = TimesJson(s.times);
    js["nodes"] = s.nodes;
    js["observed_stopped"] = s.observed_stopped;
    js["output"] = s.output_path;
    js["iterations"] = s.iterations;
    if (s.interaction) {
      js["interaction"] = {{"asked", s.interaction->asked},
                           {"completed", s.interaction->completed},
                           {"latencies_s", s.interaction->latencies_s}};
      if (!s.interaction->error.empty()) js["interaction"]["error"] = s.interaction->error;
    }
    for (const StateInterval& iv : s.timeline)
      js["timeline"].push_back({{"t0", iv.t0}, {"t1", iv.t1}, {"state", iv.state}});
    j["sessions"].push_back(js);
  }
  return j;
}

nlohmann::json ConstantsJson(const ResolvedConstants& c) {
  return {{"reconstruction", true},
          {"wait_constant_s", c.wait_constant_s},
          {"wait_constant_derived", c.wait_constant_derived},
          {"wait_constant_sim_fraction", c.wait_constant_sim_fraction},
          {"analysis_share_sigma", c.analysis_share},
          {"expected_slowdown_analysis", 1.0 / c.analysis_share},
          {"slot_overlap", c.slot_overlap},
          {"slot_overlap_derived", c.slot_overlap_derived},
          {"text", DescribeConstants(c)}};
}

// The pulls of the analyses of a scenario's i-th run.
InteractionSummary RunInteraction(const ScenarioResult& s, size_t i) {
  std::vector<InteractionRecord> records;
  if (i < s.runs.size()) {
    for (const SessionRecord& session : s.runs[i].sessions)
      if (session.interaction) records.push_back(*session.interaction);
  }
  return SummarizeInteractions(records);
}

}  // namespace

std::optional<Verdict> ComputeVerdict(const DjsbResults& results) {
  // The same pair the repeats raced (repeat_rule.hpp).
  const VerdictPair pair = PickVerdictPair(RepeatCandidates(results.scenarios));
  if (!pair.best || !pair.baseline) return std::nullopt;
  const ScenarioResult& best = results.scenarios[*pair.best];
  const ScenarioResult& base = results.scenarios[*pair.baseline];
  Verdict v;
  v.best = best.scenario.name;
  v.best_d = best.summary.d;
  v.best_interval = best.summary.d_interval;
  v.baseline = base.scenario.name;
  v.baseline_d = base.summary.d;
  v.baseline_interval = base.summary.d_interval;
  if (!(v.baseline_d > 0)) return std::nullopt;
  v.ratio = v.best_d / v.baseline_d;
  v.apart = Apart(v.best_interval, v.baseline_interval);
  return v;
}

std::string FormatVerdict(const Verdict& v, const std::string& folded) {
  auto with_interval = [](double d, const Interval& i) {
    return "D " + Fixed(d) + " [" + Fixed(i.lo) + ", " + Fixed(i.hi) + "]";
  };
  std::ostringstream out;
  if (!folded.empty()) out << "  " << folded << ":\n";
  out << "  best psched policy: " << v.best << " (" << with_interval(v.best_d, v.best_interval)
      << "), " << Fixed(v.ratio) << "x today's baseline " << v.baseline << " ("
      << with_interval(v.baseline_d, v.baseline_interval) << ")\n";
  if (!v.best_interval.Known() || !v.baseline_interval.Known()) {
    out << "  intervals unknown: one repeat gives none (--repeats 2 or more)\n";
  } else if (v.apart) {
    out << "  the 95% intervals are apart: " << v.best << " "
        << (v.best_d > v.baseline_d ? "beats" : "loses to") << " the baseline beyond the noise\n";
  } else {
    out << "  the 95% intervals overlap: the difference is within the noise of these repeats\n";
  }
  return out.str();
}

std::string FormatInteractions(const DjsbResults& results) {
  std::ostringstream out;
  const InteractionConfig& i = results.config.interaction;
  out << "interactive djsb: every analysis pulls " << i.pulls << " slices of " << i.slice
      << " doubles from the running simulation (latency: request to reply)\n";
  for (const std::string& n : results.name_services) out << "  name service of " << n << "\n";
  std::vector<std::string> complete, incomplete;
  for (const ScenarioResult& s : results.scenarios) {
    if (!s.skipped.empty()) continue;
    const InteractionSummary& x = s.interaction;
    if (x.all_completed()) {
      complete.push_back(s.scenario.name + " (p50 " + Fixed(1000 * x.median_s, 1) + " ms, p95 " +
                         Fixed(1000 * x.p95_s, 1) + " ms)");
    } else {
      incomplete.push_back(s.scenario.name + " (" + std::to_string(x.completed) + " of " +
                           std::to_string(x.asked) + (x.error.empty() ? "" : ": " + x.error) + ")");
    }
  }
  auto list = [](const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& e : v) s += (s.empty() ? "" : "; ") + e;
    return s.empty() ? std::string("none") : s;
  };
  out << "every interaction completed under: " << list(complete) << "\n";
  out << "some did not under: " << list(incomplete) << "\n";
  return out.str();
}

std::string FormatTable(const DjsbResults& results) {
  std::ostringstream out;
  const DjsbConfig& c = results.config;
  out << "djsb (reconstructed metrics) on " << results.host << ": simulation " << c.simulation.ranks
      << "x" << c.simulation.threads << ", " << c.analyses << " analys"
      << (c.analyses == 1 ? "is " : "es ") << c.analysis.ranks << "x" << c.analysis.threads
      << ", submitted at";
  for (double f : results.launch_fractions) out << " " << Fixed(100 * f, 0) << "%";
  out << " of the simulation's iterations (seed " << c.schedule.seed << "), medians of "
      << c.repeats << " to " << c.max_repeats << " repeats (" << c.repeats
      << " of each, then only the two the verdict compares, until their 95% intervals are apart "
         "or within +-"
      << Fixed(100 * c.ci_relative_half_width, 0) << "% of their medians)\n";
  if (!results.calibration.empty()) out << "calibration: " << results.calibration << "\n";
  if (!results.folded.empty()) out << results.folded << " (every figure below)\n";
  out << "\n";

  const size_t label_w = 22, col_w = 16;
  out << PadRight("", label_w);
  for (const ScenarioResult& s : results.scenarios) out << Pad(s.scenario.name, col_w);
  out << "\n";
  struct Row {
    const char* label;
    double Summary::*field;
    int digits;
  };
  const Row rows[] = {
      {"Simulation Efficiency", &Summary::e_sim, 2},
      {"Analysis Efficiency", &Summary::e_ana, 2},
      {"Wait Coefficient", &Summary::w_ana, 2},
      {"Dynamicity Ratio", &Summary::d, 2},
      {"  sim real slowdown", &Summary::sim_real_slowdown, 2},
      {"  ana real slowdown", &Summary::ana_real_slowdown, 2},
      {"  ana wait [s]", &Summary::ana_wait, 2},
      {"  sim execution [s]", &Summary::sim_execution, 2},
  };
  const std::string mark = results.folded.empty() ? "" : "*";
  auto interval_row = [&](const char* label, auto cell) {
    out << PadRight(label, label_w);
    for (const ScenarioResult& s : results.scenarios)
      out << Pad(!s.skipped.empty() ? "-" : cell(s.summary), col_w);
    out << "\n";
  };
  for (const Row& row : rows) {
    if (row.field == &Summary::d) {
      interval_row("Dynamicity Ratio", [&](const Summary& m) { return Fixed(m.d) + mark; });
      interval_row("  D 95% interval", [&](const Summary& m) {
        return m.d_interval.Known()
                   ? "[" + Fixed(m.d_interval.lo) + "," + Fixed(m.d_interval.hi) + "]"
                   : std::string("none");
      });
      interval_row("  repeats", [&](const Summary& m) { return std::to_string(m.repeats); });
      continue;
    }
    out << PadRight(row.label, label_w);
    for (const ScenarioResult& s : results.scenarios) {
      std::string cell =
          !s.skipped.empty() ? "-" : Fixed(s.summary.*(row.field), row.digits) + mark;
      out << Pad(cell, col_w);
    }
    out << "\n";
  }
  if (c.interaction.enabled()) {
    // Beside D: how long an analysis waited for the simulation's answer, over every pull.
    auto interaction_row = [&](const char* label, auto cell) {
      out << PadRight(label, label_w);
      for (const ScenarioResult& s : results.scenarios)
        out << Pad(!s.skipped.empty() ? "-" : cell(s.interaction), col_w);
      out << "\n";
    };
    auto ms = [](double s) { return Fixed(1000 * s, 1); };
    interaction_row("Interaction p50 [ms]", [&](const InteractionSummary& i) {
      return i.latencies > 0 ? ms(i.median_s) : std::string("none");
    });
    interaction_row("Interaction p95 [ms]", [&](const InteractionSummary& i) {
      return i.latencies > 0 ? ms(i.p95_s) : std::string("none");
    });
    interaction_row("  pulls completed", [&](const InteractionSummary& i) {
      return std::to_string(i.completed) + "/" + std::to_string(i.asked);
    });
  }
  out << "\n";
  for (const ScenarioResult& s : results.scenarios)
    if (!s.skipped.empty()) out << "  " << s.scenario.name << ": " << s.skipped << "\n";
  for (const FamilyReferences& f : results.references) {
    out << "  references (" << f.family << "): X_sim alone " << Fixed(f.refs.sim_alone_execution)
        << " s, X_ana alone " << Fixed(f.refs.ana_alone_execution) << " s, static wait "
        << Fixed(f.refs.ana_static_wait, 3) << " s\n";
    out << "  " << DescribeConstants(f.constants) << "\n";
  }
  if (!results.racing.empty()) out << "  " << results.racing << "\n";
  if (!results.stopped_early.empty()) out << "  " << results.stopped_early << "\n";
  if (!results.folded.empty()) out << "  * " << results.folded << "\n";
  if (auto v = ComputeVerdict(results)) out << FormatVerdict(*v, results.folded);
  if (c.interaction.enabled()) out << FormatInteractions(results);
  return out.str();
}

nlohmann::json ToJson(const DjsbResults& r) {
  nlohmann::json j;
  j["benchmark"] = "djsb (reconstruction of the Dynamic Job Scheduler Benchmark metrics)";
  j["host"] = r.host;
  j["folded"] = !r.folded.empty();
  if (!r.folded.empty()) j["folded_note"] = r.folded;
  if (!r.calibration.empty()) j["calibration"] = r.calibration;
  if (!r.stopped_early.empty()) j["stopped_early"] = r.stopped_early;
  if (!r.racing.empty()) j["racing"] = r.racing;
  j["started"] = r.started;
  j["finished"] = r.finished;
  const DjsbConfig& c = r.config;
  auto app = [](const AppConfig& a) {
    return nlohmann::json{{"ranks", a.ranks},
                          {"threads", a.threads},
                          {"array_size", a.array_size},
                          {"iterations", a.iterations}};
  };
  j["config"] = {
      {"simulation", app(c.simulation)},
      {"analysis", app(c.analysis)},
      {"analyses", c.analyses},
      {"repeats", c.repeats},
      {"max_repeats", c.max_repeats},
      {"ci_relative_half_width", c.ci_relative_half_width},
      {"time_budget_s", c.time_budget_s},
      {"sim_target_s", c.sim_target_s},
      {"policies", c.policies},
      {"spread", c.spread},
      {"baseline", c.baseline},
      {"seed", c.schedule.seed},
      {"launcher",
       {{"psched", c.launcher.psched}, {"mpirun", c.launcher.mpirun}, {"srun", c.launcher.srun}}}};
  j["config"]["interaction"] = {{"pulls", c.interaction.pulls}, {"slice", c.interaction.slice}};
  if (c.interaction.enabled()) j["name_services"] = r.name_services;
  j["launch_fractions"] = r.launch_fractions;
  for (const FamilyReferences& f : r.references) {
    nlohmann::json jf;
    jf["family"] = f.family;
    jf["sim_alone_execution"] = f.refs.sim_alone_execution;
    jf["ana_alone_execution"] = f.refs.ana_alone_execution;
    jf["ana_static_wait"] = f.refs.ana_static_wait;
    jf["sim_slots"] = f.refs.sim_slots;
    jf["ana_slots"] = f.refs.ana_slots;
    jf["constants"] = ConstantsJson(f.constants);
    for (const ScenarioRun& run : f.sim_alone) jf["sim_alone_runs"].push_back(RunJson(run));
    for (const ScenarioRun& run : f.ana_alone) jf["ana_alone_runs"].push_back(RunJson(run));
    j["references"].push_back(jf);
  }
  for (const ScenarioResult& s : r.scenarios) {
    nlohmann::json js;
    js["name"] = s.scenario.name;
    js["policy"] = s.scenario.policy;
    js["spread"] = s.scenario.spread;
    js["baseline"] = s.scenario.baseline;
    js["family"] = s.family;
    if (!s.skipped.empty()) js["skipped"] = s.skipped;
    if (const FamilyReferences* f = FindFamily(r, s.family))
      js["constants"] = ConstantsJson(f->constants);
    if (s.skipped.empty()) {
      const Summary& m = s.summary;
      js["median"] = {{"repeats", m.repeats},
                      {"e_sim", m.e_sim},
                      {"e_ana", m.e_ana},
                      {"w_ana", m.w_ana},
                      {"d", m.d},
                      {"d_ci95", {m.d_interval.lo, m.d_interval.hi}},
                      {"d_ci95_known", m.d_interval.Known()},
                      {"sim_execution", m.sim_execution},
                      {"sim_real_slowdown", m.sim_real_slowdown},
                      {"sim_expected_slowdown", m.sim_expected_slowdown},
                      {"sim_slowdown", m.sim_slowdown},
                      {"ana_wait", m.ana_wait},
                      {"ana_execution", m.ana_execution},
                      {"ana_real_slowdown", m.ana_real_slowdown},
                      {"ana_expected_slowdown", m.ana_expected_slowdown},
                      {"ana_slowdown", m.ana_slowdown}};
      if (c.interaction.enabled()) {
        const InteractionSummary& x = s.interaction;
        js["interaction"] = {{"asked", x.asked},
                             {"completed", x.completed},
                             {"all_completed", x.all_completed()},
                             {"median_s", x.median_s},
                             {"p95_s", x.p95_s}};
        if (!x.error.empty()) js["interaction"]["error"] = x.error;
      }
    }
    for (size_t i = 0; i < s.runs.size(); ++i) {
      nlohmann::json jr = RunJson(s.runs[i]);
      if (i < s.metrics.size()) {
        const RunMetrics& m = s.metrics[i];
        jr["metrics"] = {{"e_sim", m.e_sim},
                         {"e_ana", m.e_ana},
                         {"w_ana", m.w_ana},
                         {"d", m.d},
                         {"sim_real_slowdown", m.sim_real_slowdown},
                         {"sim_expected_slowdown", m.sim_expected_slowdown}};
        for (const AnalysisMetrics& a : m.analyses) {
          jr["metrics"]["analyses"].push_back({{"wait", a.wait},
                                               {"execution", a.execution},
                                               {"response", a.response},
                                               {"slowdown", a.slowdown},
                                               {"real_slowdown", a.real_slowdown},
                                               {"expected_slowdown", a.expected_slowdown},
                                               {"efficiency", a.efficiency},
                                               {"wait_coefficient", a.wait_coefficient}});
        }
      }
      js["runs"].push_back(jr);
    }
    j["scenarios"].push_back(js);
  }
  if (auto v = ComputeVerdict(r)) {
    j["verdict"] = {{"best", v->best},
                    {"best_d", v->best_d},
                    {"baseline", v->baseline},
                    {"baseline_d", v->baseline_d},
                    {"ratio", v->ratio},
                    {"best_ci95", {v->best_interval.lo, v->best_interval.hi}},
                    {"baseline_ci95", {v->baseline_interval.lo, v->baseline_interval.hi}},
                    {"intervals_apart", v->apart},
                    {"measures_policy_effects", r.folded.empty()}};
  }
  return j;
}

std::string ToCsv(const DjsbResults& r) {
  std::ostringstream out;
  out << "scenario,repeat,e_sim,e_ana,w_ana,d,sim_execution_s,sim_real_slowdown,"
         "sim_expected_slowdown,ana_wait_s,ana_execution_s,ana_real_slowdown,"
         "wait_constant_s,analysis_share,slot_overlap,d_ci95_lo,d_ci95_hi,"
         "pulls_asked,pulls_completed,latency_p50_s,latency_p95_s,folded\n";
  const char* folded = r.folded.empty() ? "false" : "true";
  // The interactive djsb's pulls (empty cells otherwise): latency over the pulls that
  // completed, "" when none did.
  auto pulls = [&](const InteractionSummary& x) -> std::string {
    if (!r.config.interaction.enabled()) return ",,,";
    const std::string p50 = x.latencies > 0 ? Fixed(x.median_s, 6) : "";
    const std::string p95 = x.latencies > 0 ? Fixed(x.p95_s, 6) : "";
    return std::to_string(x.asked) + "," + std::to_string(x.completed) + "," + p50 + "," + p95;
  };
  for (const ScenarioResult& s : r.scenarios) {
    if (!s.skipped.empty()) continue;
    const FamilyReferences* f = FindFamily(r, s.family);
    std::string consts = f == nullptr ? ",,"
                                      : Fixed(f->constants.wait_constant_s, 4) + "," +
                                            Fixed(f->constants.analysis_share, 4) + "," +
                                            Fixed(f->constants.slot_overlap, 4);
    for (size_t i = 0; i < s.metrics.size(); ++i) {
      const RunMetrics& m = s.metrics[i];
      double wait = 0, x = 0, rs = 0;
      for (const AnalysisMetrics& a : m.analyses) {
        wait += a.wait / m.analyses.size();
        x += a.execution / m.analyses.size();
        rs += a.real_slowdown / m.analyses.size();
      }
      out << s.scenario.name << "," << i + 1 << "," << Fixed(m.e_sim, 4) << "," << Fixed(m.e_ana, 4)
          << "," << Fixed(m.w_ana, 4) << "," << Fixed(m.d, 4) << "," << Fixed(m.sim_execution, 4)
          << "," << Fixed(m.sim_real_slowdown, 4) << "," << Fixed(m.sim_expected_slowdown, 4) << ","
          << Fixed(wait, 4) << "," << Fixed(x, 4) << "," << Fixed(rs, 4) << "," << consts << ",,,"
          << pulls(RunInteraction(s, i)) << "," << folded << "\n";
    }
    const Summary& m = s.summary;
    out << s.scenario.name << ",median," << Fixed(m.e_sim, 4) << "," << Fixed(m.e_ana, 4) << ","
        << Fixed(m.w_ana, 4) << "," << Fixed(m.d, 4) << "," << Fixed(m.sim_execution, 4) << ","
        << Fixed(m.sim_real_slowdown, 4) << "," << Fixed(m.sim_expected_slowdown, 4) << ","
        << Fixed(m.ana_wait, 4) << "," << Fixed(m.ana_execution, 4) << ","
        << Fixed(m.ana_real_slowdown, 4) << "," << consts << "," << Fixed(m.d_interval.lo, 4) << ","
        << Fixed(m.d_interval.hi, 4) << "," << pulls(s.interaction) << "," << folded << "\n";
  }
  return out.str();
}

}  // namespace psched::djsb
