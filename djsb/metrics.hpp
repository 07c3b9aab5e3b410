// djsb metrics: a RECONSTRUCTION of the Dynamic Job Scheduler Benchmark's formulas.
//
// The original djsb code and manual are not available. The policy paper names the
// metrics (wait, execution, response, slowdown, expected vs real slowdown,
// E = ES/RS, W = (wait static + C)/(wait dynamic + C), D = E_sim * E_ana * W_ana);
// REFERENCES.md ("djsb") gives the reconstruction implemented here, which reproduces
// the paper's wait-policy and surpass-policy rows. Every constant is configurable
// (MetricConstants) and printed with every result (DescribeConstants).
//
// Pure: plain numbers in, numbers out. Times are seconds on one wall clock.
#pragma once

#include <string>
#include <vector>

#include "common/error.hpp"
#include "djsb/interval.hpp"

namespace psched::djsb {

// One session as the user saw it: submit s (just before the launcher was called),
// begin b (rank 0 after MPI_Init and a barrier), end e (rank 0 after a final barrier).
struct RunTimes {
  double submit = 0;
  double begin = 0;
  double end = 0;

  double Wait() const { return begin - submit; }    // W = b - s
  double Execution() const { return end - begin; }  // X = e - b
  double Response() const { return end - submit; }  // R = W + X
};

// The reconstruction's constants. Negative values mean "derive", as documented per field.
struct MetricConstants {
  // C of the wait coefficient, in seconds. < 0: wait_constant_sim_fraction * X_sim_alone.
  double wait_constant_s = -1;
  // With the default 0.5, an analysis that waits 41% of the simulation's alone time gets
  // W = 0.5 / (0.41 + 0.5) = 0.55, the paper's wait-policy figure.
  double wait_constant_sim_fraction = 0.5;
  // sigma: the analysis's expected share of its slots while it overlaps the simulation;
  // ES_ana = 1 / sigma. 0.5 = two equal sessions sharing the same slots.
  double analysis_share = 0.5;
  // overlap_k in ES_sim: the fraction of the simulation's slots one analysis contends for.
  // < 0: min(1, analysis slots / simulation slots), from the configuration.
  double slot_overlap = -1;
};

// The constants' own rules, checked before any run (--check) and again when resolved:
// finite, sigma in (0, 1], a derived C from a fraction > 0, overlap at most 1.
Result<void> CheckConstants(const MetricConstants& c);

// What the reference runs measured (medians over repeats) and the configured sizes.
struct References {
  double sim_alone_execution = 0;  // X_sim alone
  double ana_alone_execution = 0;  // X_ana alone
  double ana_static_wait = 0;      // the analysis's wait with its slots free: launch overhead
  int sim_slots = 0;               // ranks x threads of the simulation
  int ana_slots = 0;               // ranks x threads of one analysis
};

// Constants with every derived value filled in; what gets printed beside results.
struct ResolvedConstants {
  double wait_constant_s = 0;
  double analysis_share = 0;
  double slot_overlap = 0;
  bool wait_constant_derived = false;
  bool slot_overlap_derived = false;
  double wait_constant_sim_fraction = 0;
};

struct AnalysisMetrics {
  double wait = 0, execution = 0, response = 0;
  double slowdown = 0;           // response / X_ana alone (vs running it alone, at once)
  double real_slowdown = 0;      // RS = X_together / X_alone
  double expected_slowdown = 0;  // ES_ana = 1 / sigma
  double efficiency = 0;         // E = ES / RS
  double wait_coefficient = 0;   // W = (wait static + C) / (wait + C)
};

// One repeat of one scenario (a policy, or the baseline).
struct RunMetrics {
  double sim_wait = 0, sim_execution = 0, sim_response = 0;
  double sim_slowdown = 0;           // response / X_sim alone
  double sim_real_slowdown = 0;      // RS_sim
  double sim_expected_slowdown = 0;  // ES_sim = (X_sim + sum_k overlap_k X_ana_k) / X_sim
  double e_sim = 0;
  std::vector<AnalysisMetrics> analyses;
  double e_ana = 0;  // mean over the run's analyses
  double w_ana = 0;  // mean over the run's analyses
  double d = 0;      // D = E_sim * E_ana * W_ana
};

// Medians over the repeats of one scenario. d is the median of per-repeat D, d_interval
// its 95% confidence interval.
struct Summary {
  int repeats = 0;
  Interval d_interval;
  double e_sim = 0, e_ana = 0, w_ana = 0, d = 0;
  double sim_execution = 0, sim_real_slowdown = 0, sim_expected_slowdown = 0;
  double ana_wait = 0, ana_execution = 0, ana_real_slowdown = 0, ana_expected_slowdown = 0;
  double sim_slowdown = 0, ana_slowdown = 0;
};

// Checks the constants and references and fills in the derived constants.
Result<ResolvedConstants> ResolveConstants(const MetricConstants& constants,
                                           const References& refs);

// Metrics of one repeat: the simulation's times and each analysis's times.
Result<RunMetrics> ComputeRun(const RunTimes& sim, const std::vector<RunTimes>& analyses,
                              const References& refs, const ResolvedConstants& constants);

// Medians over repeats (each metric separately, as the paper reports coefficients).
Result<Summary> Summarize(const std::vector<RunMetrics>& runs);

// Median of a non-empty list (mean of the middle two for an even count).
double Median(std::vector<double> values);

// One line naming the reconstruction and its constants, printed with every result.
std::string DescribeConstants(const ResolvedConstants& constants);

}  // namespace psched::djsb
