// psched-djsb configuration: what the modelled user runs, how often, under which policies.
//
// Read from TOML (ParseConfigToml), overridden by the command line, then checked by
// ValidateConfig. Pure: strings in, values or errors out.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "djsb/metrics.hpp"

namespace psched::djsb {

// One synthetic application: ranks x OpenMP threads of psched-stream.
struct AppConfig {
  int ranks = 1;
  int threads = 1;
  int64_t array_size = 4'000'000;  // total doubles per array over all ranks
  int iterations = 10;
  int Slots() const { return ranks * threads; }
};

// When the analyses are submitted, as fractions of the simulation's iterations: an analysis
// at 0.3 of a 40-iteration simulation is submitted once psched-stream has reported its
// 12th completed iteration (SubmitIteration). Counted on the simulation's own progress, so
// no submit time depends on another run's duration. Either explicit (`at`) or drawn from
// `seed` uniformly in [earliest, latest].
struct ScheduleConfig {
  uint64_t seed = 1;
  double earliest = 0.1;
  double latest = 0.7;     // the paper's scenario: every analysis before ~70% of the simulation
  std::vector<double> at;  // explicit fractions; overrides seed/earliest/latest when set
};

// Command templates. Placeholders: {ranks} {threads} {policy} {spread} {command}.
// {spread} becomes " --spread" or "". The environment carries OMP_NUM_THREADS.
struct LauncherConfig {
  std::string psched =
      "{bin}/psched-exec -n {ranks} -c {threads} --policy {policy}{spread} {command}";
  std::string mpirun =
      "mpirun --oversubscribe -x OMP_NUM_THREADS -x OMP_WAIT_POLICY -n {ranks} {command}";
  std::string srun = "srun --overlap -n {ranks} -c {threads} {command}";
};

// The interactive djsb (stream_interaction.hpp): every analysis connects to the running
// simulation through MPI's name service and pulls `pulls` slices of `slice` doubles,
// spread over its run. 0 pulls: the classic djsb, no message between sessions.
struct InteractionConfig {
  int pulls = 0;
  int64_t slice = 4096;
  bool enabled() const { return pulls > 0; }
};

struct DjsbConfig {
  AppConfig simulation{4, 2, 8'000'000, 10};
  AppConfig analysis{2, 1, 2'000'000, 10};
  int analyses = 1;
  ScheduleConfig schedule;
  // Repeats per scenario: at least `repeats`, then more until the 95% confidence
  // interval of D is within +-ci_relative_half_width of its median, at most max_repeats.
  int repeats = 3;
  int max_repeats = 7;
  double ci_relative_half_width = 0.10;
  // > 0: no new round of repeats (beyond `repeats`) that would end after this many seconds
  // from the start; the report says which intervals it left wide.
  double time_budget_s = 0;
  // > 0: the simulation's iterations are chosen (one short calibration run) so that it
  // takes about this long alone, and the analysis's so that its work (array size x
  // iterations) is analysis_work_share of the simulation's.
  double sim_target_s = 0;
  double analysis_work_share = 0.2;
  // More simulation slots than real PUs fold several onto one CPU: refused unless this is
  // set, and then every figure says it does not measure policy effects.
  bool allow_folded = false;
  std::vector<std::string> policies = {"wait", "surpass", "overbook", "sidestep"};
  bool spread = true;    // also run overbook and sidestep with --spread
  bool baseline = true;  // today's way: mpirun --oversubscribe (srun --overlap inside Slurm)
  LauncherConfig launcher;
  std::string stream_binary;  // empty: psched-stream beside psched-djsb
  std::string output_dir = "djsb-results";
  double session_timeout_s = 600;  // a session still running after this is killed: an error
  double sample_interval_s = 0.1;  // how often process states are sampled for the timeline
  // OMP_WAIT_POLICY of every session: "passive" keeps idle OpenMP threads from spinning on
  // oversubscribed cores (the same for every policy and the baseline, so the comparison
  // stays fair); empty leaves the variable alone.
  std::string omp_wait_policy = "passive";
  // OMPI_MCA_mpi_yield_when_idle=1 for every session. On an emulated allocation more
  // logical slots than real cores are busy; MPI ranks spinning in barriers then starve the
  // OpenMP threads (measured: 14.5 s instead of 2.9 s for the same STREAM under psched).
  // mpirun --oversubscribe sets it itself, so this keeps the comparison fair.
  bool mpi_yield_when_idle = true;
  MetricConstants constants;
  InteractionConfig interaction;
};

// The policy names psched-exec accepts. One list; the orchestrator and its errors use it.
const std::vector<std::string>& KnownPolicies();

// One column of the report: a policy with or without spread, or the baseline.
struct Scenario {
  std::string name;    // "wait", "overbook+spread", "baseline-mpirun"
  std::string policy;  // empty for a baseline
  bool spread = false;
  std::string baseline;  // "mpirun" or "srun"; empty for a psched policy
};

// The scenarios to run, in report order: each policy, then overbook/sidestep with spread,
// then the baseline (srun inside Slurm when in_slurm, else mpirun).
std::vector<Scenario> PlanScenarios(const DjsbConfig& config, bool in_slurm);

// Parses a TOML document (see djsb/demo.toml) on top of the defaults.
Result<DjsbConfig> ParseConfigToml(std::string_view toml_text, std::string_view source_name);

// Rejects configurations that cannot give a meaningful run; the message names the field.
Result<void> ValidateConfig(const DjsbConfig& config);

// Analysis submit points as fractions of the simulation's iterations, sorted.
// Deterministic for a given seed.
std::vector<double> LaunchFractions(const DjsbConfig& config);

// The simulation iteration after whose completion an analysis at `fraction` is submitted:
// round(fraction x iterations), at least 1 (the simulation computes) and at most
// iterations - 1 (it has not ended).
int SubmitIteration(double fraction, int iterations);

// Fills a launcher template. Unknown placeholders are an error naming them.
Result<std::string> ExpandTemplate(const std::string& templ, const AppConfig& app,
                                   const std::string& policy, bool spread,
                                   const std::string& command, const std::string& bin_dir);

}  // namespace psched::djsb
