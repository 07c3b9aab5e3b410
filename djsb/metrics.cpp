#include "djsb/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace psched::djsb {
namespace {

std::unexpected<Error> Invalid(const std::string& what) {
  return Fail(ErrorCode::kInvalidArgument, "djsb metrics: " + what);
}

double Mean(const std::vector<double>& values) {
  double sum = 0;
  for (double v : values) sum += v;
  return values.empty() ? 0 : sum / static_cast<double>(values.size());
}

Result<void> CheckTimes(const RunTimes& t, const std::string& who) {
  if (!std::isfinite(t.submit) || !std::isfinite(t.begin) || !std::isfinite(t.end))
    return Invalid(who + ": times must be finite");
  if (t.end < t.begin) return Invalid(who + ": end before begin");
  // A begin slightly before submit is clock jitter between processes; clamp, never fail.
  return {};
}

}  // namespace

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

Result<void> CheckConstants(const MetricConstants& c) {
  for (auto [name, v] : {std::pair{"wait_constant_s", c.wait_constant_s},
                         {"wait_constant_sim_fraction", c.wait_constant_sim_fraction},
                         {"analysis_share", c.analysis_share},
                         {"slot_overlap", c.slot_overlap}}) {
    if (!std::isfinite(v))
      return Invalid(std::string("metrics.") + name + " must be a finite number");
  }
  if (!(c.analysis_share > 0 && c.analysis_share <= 1))
    return Invalid("analysis_share (sigma) must be in (0, 1]");
  if (c.wait_constant_s < 0 && !(c.wait_constant_sim_fraction > 0))
    return Invalid("wait_constant_sim_fraction must be > 0");
  if (c.slot_overlap > 1) return Invalid("slot_overlap must be in [0, 1]");
  return {};
}

Result<ResolvedConstants> ResolveConstants(const MetricConstants& c, const References& refs) {
  if (!(refs.sim_alone_execution > 0))
    return Invalid("the simulation's alone execution time must be > 0");
  if (!(refs.ana_alone_execution > 0))
    return Invalid("the analysis's alone execution time must be > 0");
  if (refs.ana_static_wait < 0) return Invalid("the static wait must be >= 0");
  if (auto ok = CheckConstants(c); !ok) return Fail(ok.error());
  ResolvedConstants r;
  r.analysis_share = c.analysis_share;
  r.wait_constant_sim_fraction = c.wait_constant_sim_fraction;
  if (c.wait_constant_s >= 0) {
    if (c.wait_constant_s == 0 && refs.ana_static_wait == 0)
      return Invalid("wait_constant_s 0 with a zero static wait divides by zero");
    r.wait_constant_s = c.wait_constant_s;
  } else {
    r.wait_constant_s = c.wait_constant_sim_fraction * refs.sim_alone_execution;
    r.wait_constant_derived = true;
  }
  if (c.slot_overlap >= 0) {
    r.slot_overlap = c.slot_overlap;
  } else {
    if (refs.sim_slots <= 0 || refs.ana_slots <= 0)
      return Invalid("slot counts must be > 0 to derive slot_overlap");
    r.slot_overlap = std::min(1.0, static_cast<double>(refs.ana_slots) / refs.sim_slots);
    r.slot_overlap_derived = true;
  }
  return r;
}

Result<RunMetrics> ComputeRun(const RunTimes& sim, const std::vector<RunTimes>& analyses,
                              const References& refs, const ResolvedConstants& c) {
  if (auto ok = CheckTimes(sim, "simulation"); !ok) return Fail(ok.error());
  if (analyses.empty()) return Invalid("a run needs at least one analysis");
  RunMetrics m;
  m.sim_wait = std::max(0.0, sim.Wait());
  m.sim_execution = sim.Execution();
  m.sim_response = m.sim_wait + m.sim_execution;
  m.sim_slowdown = m.sim_response / refs.sim_alone_execution;
  m.sim_real_slowdown = m.sim_execution / refs.sim_alone_execution;
  if (!(m.sim_real_slowdown > 0)) return Invalid("the simulation's execution time is zero");

  // ES_sim: under perfect work-conserving sharing the simulation gives up overlap_k of
  // its slots for the length of each analysis.
  double given_up = 0;
  for (size_t k = 0; k < analyses.size(); ++k)
    given_up += c.slot_overlap * refs.ana_alone_execution;
  m.sim_expected_slowdown = (refs.sim_alone_execution + given_up) / refs.sim_alone_execution;
  m.e_sim = m.sim_expected_slowdown / m.sim_real_slowdown;

  std::vector<double> e_ana, w_ana;
  for (size_t k = 0; k < analyses.size(); ++k) {
    const RunTimes& t = analyses[k];
    if (auto ok = CheckTimes(t, "analysis " + std::to_string(k)); !ok) return Fail(ok.error());
    AnalysisMetrics a;
    a.wait = std::max(0.0, t.Wait());
    a.execution = t.Execution();
    if (!(a.execution > 0)) return Invalid("analysis " + std::to_string(k) + ": zero execution");
    a.response = a.wait + a.execution;
    a.slowdown = a.response / refs.ana_alone_execution;
    a.real_slowdown = a.execution / refs.ana_alone_execution;
    a.expected_slowdown = 1.0 / c.analysis_share;
    a.efficiency = a.expected_slowdown / a.real_slowdown;
    a.wait_coefficient = (refs.ana_static_wait + c.wait_constant_s) / (a.wait + c.wait_constant_s);
    e_ana.push_back(a.efficiency);
    w_ana.push_back(a.wait_coefficient);
    m.analyses.push_back(a);
  }
  m.e_ana = Mean(e_ana);
  m.w_ana = Mean(w_ana);
  m.d = m.e_sim * m.e_ana * m.w_ana;
  return m;
}

Result<Summary> Summarize(const std::vector<RunMetrics>& runs) {
  if (runs.empty()) return Invalid("no runs to summarize");
  Summary s;
  s.repeats = static_cast<int>(runs.size());
  auto med = [&](auto field) {
    std::vector<double> v;
    v.reserve(runs.size());
    for (const RunMetrics& r : runs) v.push_back(field(r));
    return Median(std::move(v));
  };
  auto mean_ana = [](const RunMetrics& r, double AnalysisMetrics::*f) {
    std::vector<double> v;
    v.reserve(r.analyses.size());
    for (const AnalysisMetrics& a : r.analyses) v.push_back(a.*f);
    return Mean(v);
  };
  s.e_sim = med([](const RunMetrics& r) { return r.e_sim; });
  s.e_ana = med([](const RunMetrics& r) { return r.e_ana; });
  s.w_ana = med([](const RunMetrics& r) { return r.w_ana; });
  s.d = med([](const RunMetrics& r) { return r.d; });
  std::vector<double> d;
  d.reserve(runs.size());
  for (const RunMetrics& r : runs) d.push_back(r.d);
  s.d_interval = ConfidenceInterval(d);
  s.sim_execution = med([](const RunMetrics& r) { return r.sim_execution; });
  s.sim_real_slowdown = med([](const RunMetrics& r) { return r.sim_real_slowdown; });
  s.sim_expected_slowdown = med([](const RunMetrics& r) { return r.sim_expected_slowdown; });
  s.sim_slowdown = med([](const RunMetrics& r) { return r.sim_slowdown; });
  s.ana_wait = med([&](const RunMetrics& r) { return mean_ana(r, &AnalysisMetrics::wait); });
  s.ana_execution =
      med([&](const RunMetrics& r) { return mean_ana(r, &AnalysisMetrics::execution); });
  s.ana_real_slowdown =
      med([&](const RunMetrics& r) { return mean_ana(r, &AnalysisMetrics::real_slowdown); });
  s.ana_expected_slowdown =
      med([&](const RunMetrics& r) { return mean_ana(r, &AnalysisMetrics::expected_slowdown); });
  s.ana_slowdown =
      med([&](const RunMetrics& r) { return mean_ana(r, &AnalysisMetrics::slowdown); });
  return s;
}

std::string DescribeConstants(const ResolvedConstants& c) {
  char buf[512];
  std::snprintf(
      buf, sizeof buf,
      "djsb metrics are a RECONSTRUCTION (REFERENCES.md): C = %.3f s%s, "
      "sigma (analysis share) = %.3f, ES_ana = %.3f, slot overlap = %.3f%s",
      c.wait_constant_s,
      c.wait_constant_derived
          ? (" (" + std::to_string(c.wait_constant_sim_fraction).substr(0, 5) + " x X_sim alone)")
                .c_str()
          : "",
      c.analysis_share, 1.0 / c.analysis_share, c.slot_overlap,
      c.slot_overlap_derived ? " (analysis slots / simulation slots)" : "");
  return buf;
}

}  // namespace psched::djsb
