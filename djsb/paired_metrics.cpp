#include "djsb/paired_metrics.hpp"

#include <algorithm>

namespace psched::djsb {

References ReferencesOf(const FamilyReferences& family, const DjsbConfig& config, int round) {
  std::vector<double> sim_x, ana_x, ana_wait;
  for (const ScenarioRun& r : family.sim_alone)
    if (round < 0 || r.repeat == round) sim_x.push_back(r.sessions[0].times.Execution());
  for (const ScenarioRun& r : family.ana_alone) {
    if (round >= 0 && r.repeat != round) continue;
    ana_x.push_back(r.sessions[0].times.Execution());
    ana_wait.push_back(std::max(0.0, r.sessions[0].times.Wait()));
  }
  References refs;
  refs.sim_alone_execution = Median(sim_x);
  refs.ana_alone_execution = Median(ana_x);
  refs.ana_static_wait = Median(ana_wait);
  refs.sim_slots = config.simulation.Slots();
  refs.ana_slots = config.analysis.Slots();
  return refs;
}

Result<std::vector<RunMetrics>> PairedMetrics(const std::vector<ScenarioRun>& runs,
                                              const FamilyReferences& family,
                                              const DjsbConfig& config) {
  const References all = ReferencesOf(family, config, -1);
  auto all_constants = ResolveConstants(config.constants, all);
  if (!all_constants) return Fail(all_constants.error());
  std::vector<RunMetrics> out;
  for (const ScenarioRun& run : runs) {
    References refs = ReferencesOf(family, config, run.repeat);
    auto constants = ResolveConstants(config.constants, refs);
    if (!constants) {
      refs = all;
      constants = all_constants;
    }
    std::vector<RunTimes> ana;
    for (size_t i = 1; i < run.sessions.size(); ++i) ana.push_back(run.sessions[i].times);
    auto m = ComputeRun(run.sessions[0].times, ana, refs, *constants);
    if (!m) return Fail(m.error());
    out.push_back(std::move(*m));
  }
  return out;
}

}  // namespace psched::djsb
