// psched-djsb's imperative shell: models the user of the allocation. Runs the reference
// runs (simulation alone, analysis alone) and each scenario's repeats, launching the
// analyses at the seeded times through the launcher command templates, sampling the
// processes' states meanwhile, and computing the metrics.
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include "common/error.hpp"
#include "djsb/config.hpp"
#include "djsb/results.hpp"
#include "djsb/session_process.hpp"

namespace psched::djsb {

// Where the programs are, found by the caller (main) once.
struct Tools {
  std::string stream;           // psched-stream
  std::string psched_dir;       // directory of psched-exec; empty when it was not found
  std::string psched_ctl;       // psched-ctl; empty when not found
  bool in_slurm = false;        // SLURM_JOB_ID set: the baseline is srun --overlap
  bool require_psched = false;  // missing psched-exec is an error, not a skipped column
};

class Orchestrator {
 public:
  // folded: not empty when the simulation's slots outnumber the real PUs (--allow-folded);
  // it goes into the results and labels every figure.
  Orchestrator(DjsbConfig config, Tools tools, std::string folded, std::ostream& progress)
      : config_(std::move(config)),
        tools_(std::move(tools)),
        folded_(std::move(folded)),
        progress_(progress) {}

  // Runs everything. Scenarios that fail are recorded (ScenarioResult::skipped) and the
  // rest still run; an error is returned only when nothing meaningful can be measured.
  Result<DjsbResults> Run();

 private:
  struct Launcher {
    std::string family;  // "psched", "mpirun", "srun"
    std::string templ;
    std::string policy;
    bool spread = false;
  };

  // One run: the simulation (if with_sim) and `fractions.size()` analyses, each submitted
  // once the simulation has completed SubmitIteration(fraction) of its iterations
  // (immediately without a simulation).
  Result<ScenarioRun> RunOnce(const std::string& name, int repeat, const Launcher& launcher,
                              bool with_sim, const std::vector<double>& fractions);
  // Appends one simulation-alone and one analysis-alone run to the family's references.
  Result<void> RunReferences(const Launcher& launcher, int round, FamilyReferences* fam);
  // Chooses the iterations for config_.sim_target_s from a short run of the simulation.
  Result<void> Calibrate(const Launcher& launcher, DjsbResults* results);
  // References, constants, metrics and summaries from every run so far.
  void Recompute(DjsbResults* results);
  void Progress(const std::string& line);
  // The interactive djsb under mpirun: separate mpirun jobs share no name service, so one
  // ompi-server serves them all (OMPI_MCA_pmix_server_uri). Says whose service each
  // launcher family uses in `results`.
  void StartNameServer(const std::vector<Scenario>& scenarios, DjsbResults* results);
  void StopNameServer();

  DjsbConfig config_;
  Tools tools_;
  std::string folded_;
  std::ostream& progress_;
  double started_ = 0;
  std::optional<LaunchedSession> name_server_;
  std::string name_server_uri_;  // ompi-server's URI file, once it has written it
};

}  // namespace psched::djsb
