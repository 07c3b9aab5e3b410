// The report writers: table like the paper's, JSON, CSV and a well-formed SVG.
#include "djsb/report.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "djsb/svg_report.hpp"

namespace psched::djsb {
namespace {

ScenarioResult MakeScenario(const std::string& name, const std::string& baseline,
                            const RunTimes& sim, const RunTimes& ana, const References& refs,
                            const ResolvedConstants& c) {
  ScenarioResult s;
  s.scenario = {name, baseline.empty() ? name : "", false, baseline};
  s.family = baseline.empty() ? "psched" : baseline;
  ScenarioRun run;
  run.scenario = name;
  run.start = 0;
  run.state_source = "/proc";
  run.sessions.push_back({"sim", "t-sim", sim, {0, 1}, {{0, 10, "running"}}, false, "x"});
  run.sessions.push_back(
      {"ana0", "t-ana0", ana, {1}, {{ana.submit, ana.end, "running"}}, false, "y"});
  s.runs.push_back(run);
  auto m = ComputeRun(sim, {ana}, refs, c);
  EXPECT_TRUE(m.has_value());
  s.metrics.push_back(*m);
  s.summary = *Summarize(s.metrics);
  return s;
}

DjsbResults PaperLikeResults() {
  DjsbResults r;
  r.host = "testhost";
  r.launch_fractions = {0.59};
  References refs{100, 21.2, 0, 160, 32};
  FamilyReferences fam;
  fam.family = "psched";
  fam.refs = refs;
  fam.constants = *ResolveConstants({}, refs);
  r.references.push_back(fam);
  fam.family = "mpirun";
  r.references.push_back(fam);
  r.scenarios.push_back(
      MakeScenario("wait", "", {0, 0, 100}, {59, 100, 121.2}, refs, fam.constants));
  r.scenarios.push_back(
      MakeScenario("surpass", "", {0, 0, 121.2}, {59, 59, 80.2}, refs, fam.constants));
  r.scenarios.push_back(
      MakeScenario("baseline-mpirun", "mpirun", {0, 0, 130}, {59, 59, 160}, refs, fam.constants));
  ScenarioResult skipped;
  skipped.scenario = {"sidestep", "sidestep", false, ""};
  skipped.family = "psched";
  skipped.skipped = "psched-exec not found";
  r.scenarios.push_back(skipped);
  return r;
}

TEST(DjsbReport, TableHasThePapersRowsAColumnPerScenarioAndTheConstants) {
  std::string t = FormatTable(PaperLikeResults());
  for (const char* s : {"Simulation Efficiency", "Analysis Efficiency", "Wait Coefficient",
                        "Dynamicity Ratio", "wait", "surpass", "baseline-mpirun", "sidestep",
                        "RECONSTRUCTION", "psched-exec not found"})
    EXPECT_NE(t.find(s), std::string::npos) << s << "\n" << t;
  EXPECT_NE(t.find("1.15"), std::string::npos) << t;  // wait's D
  EXPECT_NE(t.find("1.72"), std::string::npos) << t;  // surpass's D
  EXPECT_NE(t.find("best psched policy: surpass"), std::string::npos) << t;
}

// The interactive djsb: latency rows beside D, and the closing lines say under which
// scenarios every pull completed and why not elsewhere.
TEST(DjsbReport, InteractiveTableShowsLatenciesAndWhatDidNotComplete) {
  DjsbResults r = PaperLikeResults();
  r.config.interaction.pulls = 5;
  r.name_services = {"psched: the leader pschedd's"};
  r.scenarios[0].interaction = SummarizeInteractions({{5, 0, {}, "no simulation serves 'x'"}});
  r.scenarios[1].interaction = SummarizeInteractions({{5, 5, {0.01, 0.02, 0.03, 0.04, 0.2}, ""}});
  r.scenarios[2].interaction = SummarizeInteractions({{5, 5, {0.05, 0.05, 0.05, 0.05, 0.05}, ""}});
  std::string t = FormatTable(r);
  const std::string completed =
      "every interaction completed under: surpass (p50 30.0 ms, p95 200.0 ms); "
      "baseline-mpirun (p50 50.0 ms, p95 50.0 ms)";
  for (const std::string& s :
       {std::string("Interaction p50 [ms]"), std::string("Interaction p95 [ms]"),
        std::string("pulls completed"), std::string("0/5"), std::string("5/5"),
        std::string("name service of psched: the leader pschedd's"), completed,
        std::string("some did not under: wait (0 of 5: no simulation serves 'x')")})
    EXPECT_NE(t.find(s), std::string::npos) << s << "\n" << t;
  auto j = ToJson(r);
  EXPECT_EQ(j["scenarios"][1]["interaction"]["all_completed"], true);
  EXPECT_DOUBLE_EQ(j["scenarios"][1]["interaction"]["p95_s"].get<double>(), 0.2);
  EXPECT_EQ(j["scenarios"][0]["interaction"]["error"], "no simulation serves 'x'");
  const std::string svg = RenderSvg(r);
  EXPECT_NE(svg.find("5 of 5 pulls completed, p50 30.0 ms, p95 200.0 ms"), std::string::npos);
  EXPECT_NE(svg.find("0 of 5 pulls completed: no simulation serves"), std::string::npos);
  // Not interactive: no such rows.
  EXPECT_EQ(FormatTable(PaperLikeResults()).find("Interaction"), std::string::npos);
  EXPECT_EQ(RenderSvg(PaperLikeResults()).find("Interaction"), std::string::npos);
}

TEST(DjsbReport, VerdictComparesTheBestPolicyWithTheBaseline) {
  auto v = ComputeVerdict(PaperLikeResults());
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->best, "surpass");
  EXPECT_EQ(v->baseline, "baseline-mpirun");
  EXPECT_NEAR(v->ratio, v->best_d / v->baseline_d, 1e-12);
}

// Three repeats per scenario: the verdict line carries both intervals and says whether
// they are apart.
TEST(DjsbReport, VerdictShowsIntervalsAndWhetherTheyAreApart) {
  DjsbResults r = PaperLikeResults();
  for (ScenarioResult& s : r.scenarios) {
    if (!s.skipped.empty()) continue;
    RunMetrics m = s.metrics[0];
    for (double f : {0.98, 1.02}) {
      RunMetrics copy = m;
      copy.d = m.d * f;
      s.metrics.push_back(copy);
    }
    s.summary = *Summarize(s.metrics);
  }
  auto v = ComputeVerdict(r);
  ASSERT_TRUE(v.has_value());
  EXPECT_TRUE(v->apart);
  std::string t = FormatTable(r);
  EXPECT_NE(t.find("best psched policy: surpass (D 1.72 [1.63, 1.81]), "), std::string::npos) << t;
  EXPECT_NE(t.find("x today's baseline baseline-mpirun (D "), std::string::npos) << t;
  EXPECT_NE(t.find("the 95% intervals are apart: surpass beats the baseline"), std::string::npos)
      << t;
  EXPECT_NE(t.find("D 95% interval"), std::string::npos) << t;
  // Overlapping: the baseline made as good as surpass.
  r.scenarios[2].metrics = r.scenarios[1].metrics;
  r.scenarios[2].summary = r.scenarios[1].summary;
  EXPECT_NE(FormatTable(r).find("the 95% intervals overlap"), std::string::npos);
  // One repeat: no interval, and the verdict says so.
  EXPECT_NE(FormatTable(PaperLikeResults()).find("intervals unknown"), std::string::npos);
}

// --allow-folded: the table, every D, the verdict, JSON, CSV and SVG say that nothing
// measures policy effects.
TEST(DjsbReport, FoldedResultsAreLabelledEverywhere) {
  DjsbResults r = PaperLikeResults();
  r.folded =
      "FOLDED: the simulation's 8 slots share this host's 2 real PUs, so no figure "
      "measures policy effects";
  std::string t = FormatTable(r);
  EXPECT_NE(t.find(r.folded + " (every figure below)"), std::string::npos) << t;
  EXPECT_NE(t.find("1.72*"), std::string::npos) << t;
  EXPECT_NE(t.find("  " + r.folded + ":\n  best psched policy: surpass"), std::string::npos) << t;
  auto j = ToJson(r);
  EXPECT_EQ(j["folded"], true);
  EXPECT_EQ(j["verdict"]["measures_policy_effects"], false);
  EXPECT_NE(ToCsv(r).find(",true\n"), std::string::npos);
  EXPECT_NE(RenderSvg(r).find("FOLDED"), std::string::npos);
  EXPECT_EQ(FormatTable(PaperLikeResults()).find("FOLDED"), std::string::npos);
  EXPECT_EQ(ToJson(PaperLikeResults())["verdict"]["measures_policy_effects"], true);
}

TEST(DjsbReport, JsonCarriesMediansRunsAndConstants) {
  auto j = ToJson(PaperLikeResults());
  ASSERT_EQ(j["scenarios"].size(), 4u);
  EXPECT_NEAR(j["scenarios"][0]["median"]["d"].get<double>(), 1.145, 0.01);
  EXPECT_EQ(j["scenarios"][0]["constants"]["reconstruction"], true);
  EXPECT_DOUBLE_EQ(j["scenarios"][0]["constants"]["wait_constant_s"].get<double>(), 50);
  EXPECT_EQ(j["scenarios"][3]["skipped"], "psched-exec not found");
  EXPECT_EQ(j["scenarios"][1]["runs"][0]["sessions"][1]["name"], "ana0");
  EXPECT_EQ(j["verdict"]["best"], "surpass");
}

TEST(DjsbReport, CsvHasOneRowPerRepeatAndAMedianRow) {
  std::string csv = ToCsv(PaperLikeResults());
  EXPECT_EQ(csv.rfind("scenario,repeat,e_sim,e_ana,w_ana,d,", 0), 0u);
  EXPECT_NE(csv.find("\nwait,1,"), std::string::npos);
  EXPECT_NE(csv.find("\nwait,median,"), std::string::npos);
  EXPECT_NE(csv.find("\nsurpass,median,0.8"), std::string::npos) << csv;
  EXPECT_EQ(csv.find("sidestep"), std::string::npos);  // skipped: no rows
}

// The interactive djsb's pulls are in the CSV too, per run and in the median row, as in
// the table and the JSON; empty cells when the run was not interactive.
TEST(DjsbReport, CsvHasThePullsOfEachRunAndTheirSummary) {
  const std::string plain = ToCsv(PaperLikeResults());
  EXPECT_NE(
      plain.find(",d_ci95_hi,pulls_asked,pulls_completed,latency_p50_s,latency_p95_s,folded\n"),
      std::string::npos)
      << plain;
  EXPECT_NE(plain.find("\nsurpass,1,"), std::string::npos);
  EXPECT_NE(plain.find(",,,,false\n"), std::string::npos) << plain;

  DjsbResults r = PaperLikeResults();
  r.config.interaction.pulls = 5;
  r.scenarios[0].runs[0].sessions[1].interaction = {5, 0, {}, "no simulation serves 'x'"};
  r.scenarios[1].runs[0].sessions[1].interaction = {5, 5, {0.01, 0.02, 0.03, 0.04, 0.2}, ""};
  r.scenarios[0].interaction = SummarizeInteractions({{5, 0, {}, "no simulation serves 'x'"}});
  r.scenarios[1].interaction = SummarizeInteractions({{5, 5, {0.01, 0.02, 0.03, 0.04, 0.2}, ""}});
  const std::string csv = ToCsv(r);
  // wait: no pull completed, no latency; surpass: 5 of 5, p50 30 ms, p95 200 ms.
  EXPECT_NE(csv.find(",5,0,,,false\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",5,5,0.030000,0.200000,false\n"), std::string::npos) << csv;
  const size_t median = csv.find("\nsurpass,median,");
  ASSERT_NE(median, std::string::npos);
  EXPECT_NE(csv.find(",5,5,0.030000,0.200000,false\n", median), std::string::npos) << csv;
  // Every row has as many cells as the header.
  size_t header_cells = 0, line_start = 0;
  for (size_t end = csv.find('\n'); end != std::string::npos; end = csv.find('\n', line_start)) {
    const std::string line = csv.substr(line_start, end - line_start);
    const size_t cells = std::count(line.begin(), line.end(), ',') + 1;
    if (header_cells == 0) header_cells = cells;
    EXPECT_EQ(cells, header_cells) << line;
    line_start = end + 1;
  }
}

TEST(DjsbReport, SvgIsSelfContainedWithBarsTimelinesAndLegend) {
  std::string svg = RenderSvg(PaperLikeResults());
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_EQ(svg.find("href"), std::string::npos);  // nothing external
  for (const char* s : {"node 0", "node 1", "suspended (SIGSTOP)", "sidestepped", "overbooked",
                        "1.72", "baseline-mpirun", "not run: psched-exec not found"})
    EXPECT_NE(svg.find(s), std::string::npos) << s;
}

}  // namespace
}  // namespace psched::djsb
