// psched-djsb's report writers: pure functions from results to text.
//   FormatTable  the terminal table, laid out like the paper's (a column per policy and
//                the baseline; rows E_sim, E_ana, W_ana, D), with the constants
//   ToJson       everything: config, constants, references, per-run times and metrics
//   ToCsv        one row per scenario and repeat, plus a median row per scenario
//   RenderSvg    (svg_report.hpp)
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "djsb/results.hpp"

namespace psched::djsb {

std::string FormatTable(const DjsbResults& results);
nlohmann::json ToJson(const DjsbResults& results);
std::string ToCsv(const DjsbResults& results);

// The psched scenario with the highest median D, and its D over the baseline's;
// nullopt when either is missing. Used by the table's closing lines.
struct Verdict {
  std::string best;
  double best_d = 0;
  Interval best_interval;
  std::string baseline;
  double baseline_d = 0;
  Interval baseline_interval;
  double ratio = 0;
  bool apart = false;  // both intervals known and not overlapping
};
std::optional<Verdict> ComputeVerdict(const DjsbResults& results);

// The verdict's lines: "best psched policy: NAME (D x [lo, hi]), Rx today's baseline BASE
// (D y [lo, hi])", then whether the intervals are apart; labelled when folded.
std::string FormatVerdict(const Verdict& verdict, const std::string& folded);

// The interactive djsb's closing lines: whose name service each launcher used, under which
// scenarios every interaction completed (with the latencies) and under which not (why).
std::string FormatInteractions(const DjsbResults& results);

}  // namespace psched::djsb
