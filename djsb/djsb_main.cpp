// psched-djsb: the Dynamic Job Scheduler Benchmark (reconstructed metrics) for psched.
//
// Models the user of an allocation: starts a long simulation, submits short analyses at
// seeded times, under each psched policy and under today's baseline (mpirun
// --oversubscribe side by side, or srun --overlap inside salloc), and reports the
// efficiency coefficients, wait coefficient and dynamicity ratio as a table, JSON, CSV
// and an SVG.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "common/command_line.hpp"
#include "common/guarded_main.hpp"
#include "common/read_file.hpp"
#include "djsb/config.hpp"
#include "djsb/demo_plan.hpp"
#include "djsb/machine.hpp"
#include "djsb/orchestrator.hpp"
#include "djsb/report.hpp"
#include "djsb/svg_report.hpp"

namespace psched::djsb {
namespace {

constexpr int kExitBadConfig = 1;
constexpr int kExitRunFailed = 2;
constexpr int kExitFolded = 2;
constexpr int kExitScenarioFailed = 3;

struct Overrides {
  std::string config_file;
  std::optional<int> sim_ranks, sim_threads, ana_ranks, ana_threads, analyses, repeats, iterations,
      max_repeats, pulls;
  std::optional<int64_t> sim_size, ana_size;
  std::optional<uint64_t> seed;
  std::vector<double> at;
  std::vector<std::string> policies;
  bool no_spread = false, no_baseline = false, baseline_only = false;
  std::optional<std::string> output_dir, stream;
  std::optional<double> timeout, wait_constant, analysis_share, sim_target, time_budget;
  bool require_psched = false;
  bool check_only = false;
  bool allow_folded = false;
  bool machine_sized = false;
  bool demo_allocation = false;
};

std::string ExeDir() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  std::string path(buf, static_cast<size_t>(n));
  return path.substr(0, path.rfind('/'));
}

// `name` beside this binary, else the first executable on PATH; empty when absent.
std::string FindProgram(const std::string& name, const std::string& exe_dir) {
  std::string beside = exe_dir + "/" + name;
  if (access(beside.c_str(), X_OK) == 0) return beside;
  const char* path = std::getenv("PATH");
  std::stringstream ss(path == nullptr ? "" : path);
  for (std::string dir; std::getline(ss, dir, ':');) {
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

Result<DjsbConfig> BuildConfig(const Overrides& o) {
  DjsbConfig c;
  if (!o.config_file.empty()) {
    auto text = ReadWholeFile(o.config_file, "reading config " + o.config_file);
    if (!text) return Fail(text.error());
    auto parsed = ParseConfigToml(*text, o.config_file);
    if (!parsed) return parsed;
    c = *parsed;
  }
  // The demo's sizes from this machine's cores; explicit options still override them.
  if (o.machine_sized) {
    auto cores = AllowedRealCores();
    if (!cores) return Fail(cores.error());
    DemoPlan plan = PlanDemo(*cores);
    ApplyDemoPlan(plan, &c);
    std::cout << "psched-djsb: sized for " << plan.real_cores << " real cores: " << plan.nodes
              << " nodes x " << plan.pus_per_node << " PUs\n";
    if (!plan.note.empty()) std::cout << "psched-djsb: " << plan.note << "\n";
  }
  if (o.sim_ranks) c.simulation.ranks = *o.sim_ranks;
  if (o.sim_threads) c.simulation.threads = *o.sim_threads;
  if (o.sim_size) c.simulation.array_size = *o.sim_size;
  if (o.ana_ranks) c.analysis.ranks = *o.ana_ranks;
  if (o.ana_threads) c.analysis.threads = *o.ana_threads;
  if (o.ana_size) c.analysis.array_size = *o.ana_size;
  if (o.iterations) c.simulation.iterations = c.analysis.iterations = *o.iterations;
  if (o.analyses) c.analyses = *o.analyses;
  if (o.repeats) c.repeats = *o.repeats;
  if (o.max_repeats) c.max_repeats = *o.max_repeats;
  // --repeats alone fixes the count; with --max-repeats it is the minimum.
  if (o.repeats && !o.max_repeats) c.max_repeats = c.repeats;
  if (o.sim_target) c.sim_target_s = *o.sim_target;
  if (o.time_budget) c.time_budget_s = *o.time_budget;
  if (o.allow_folded) c.allow_folded = true;
  if (o.pulls) c.interaction.pulls = *o.pulls;
  if (o.seed) c.schedule.seed = *o.seed;
  if (!o.at.empty()) c.schedule.at = o.at;
  if (!o.policies.empty()) c.policies = o.policies;
  if (o.no_spread) c.spread = false;
  if (o.no_baseline) c.baseline = false;
  if (o.baseline_only) c.policies.clear();
  if (o.output_dir) c.output_dir = *o.output_dir;
  if (o.stream) c.stream_binary = *o.stream;
  if (o.timeout) c.session_timeout_s = *o.timeout;
  if (o.wait_constant) c.constants.wait_constant_s = *o.wait_constant;
  if (o.analysis_share) c.constants.analysis_share = *o.analysis_share;
  if (auto ok = ValidateConfig(c); !ok) return Fail(ok.error());
  return c;
}

Result<void> WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  if (!out) return Fail(Error::FromErrno("open", "writing " + path));
  out << text;
  if (!out) return Fail(Error::FromErrno("write", "writing " + path));
  return {};
}

int RunCommand(int argc, char** argv) {
  Overrides o;
  CLI::App app{
      "psched-djsb: the Dynamic Job Scheduler Benchmark for psched (metrics are a "
      "reconstruction, see REFERENCES.md).\n"
      "Runs the simulation alone, the analysis alone, then the scenario under each policy\n"
      "(and with --spread for overbook/sidestep) and under today's baseline (mpirun\n"
      "--oversubscribe, or srun --overlap when SLURM_JOB_ID is set); writes djsb.json,\n"
      "djsb.csv and djsb.svg into the output directory and prints the table."};
  app.add_option("-c,--config", o.config_file, "TOML configuration (see djsb/demo.toml)");
  app.add_option("--sim-ranks", o.sim_ranks, "simulation ranks");
  app.add_option("--sim-threads", o.sim_threads, "simulation OpenMP threads per rank");
  app.add_option("--sim-size", o.sim_size, "simulation STREAM array size (doubles, total)");
  app.add_option("--ana-ranks", o.ana_ranks, "analysis ranks");
  app.add_option("--ana-threads", o.ana_threads, "analysis OpenMP threads per rank");
  app.add_option("--ana-size", o.ana_size, "analysis STREAM array size (doubles, total)");
  app.add_option("--iterations", o.iterations, "STREAM iterations of both applications");
  app.add_option("--analyses", o.analyses, "number of analyses per run");
  app.add_option("--seed", o.seed, "seed of the launch schedule");
  app.add_option("--at", o.at, "explicit submit points, fractions of the simulation's iterations")
      ->delimiter(',');
  app.add_option("--repeats", o.repeats,
                 "repeats per scenario (alone: exactly; with --max-repeats: at least)");
  app.add_option("--max-repeats", o.max_repeats,
                 "repeat the best policy and the baseline until their D's 95% intervals are "
                 "apart or within +-10% of their medians (config: ci_relative_half_width), at "
                 "most this often");
  app.add_option("--sim-target", o.sim_target,
                 "seconds the simulation should take alone: a calibration run picks the "
                 "iterations (0: as configured)");
  app.add_option("--time-budget", o.time_budget,
                 "seconds: no further round of repeats (beyond --repeats) that would end later");
  app.add_flag("--machine-sized", o.machine_sized,
               "size the applications from this machine's cores as scripts/demo.sh does "
               "(see --demo-allocation)");
  app.add_flag("--demo-allocation", o.demo_allocation,
               "print the emulated allocation for this machine (\"NODES TOPOLOGY\": one real "
               "core per emulated PU) and exit");
  app.add_flag("--allow-folded", o.allow_folded,
               "run even when the simulation's slots outnumber the real PUs; every figure then "
               "says it does not measure policy effects");
  app.add_option("--pulls", o.pulls,
                 "the interactive djsb: every analysis pulls this many slices from the running "
                 "simulation through MPI (0: none; see djsb/interactive.toml)");
  app.add_option("--policies", o.policies, "policies to compare: wait,surpass,overbook,sidestep")
      ->delimiter(',');
  app.add_flag("--no-spread", o.no_spread, "do not add overbook/sidestep with --spread");
  app.add_flag("--no-baseline", o.no_baseline, "do not run today's baseline");
  app.add_flag("--baseline-only", o.baseline_only, "run only today's baseline (no psched)");
  app.add_option("-o,--output-dir", o.output_dir, "where djsb.json/.csv/.svg and run logs go");
  app.add_option("--stream", o.stream, "psched-stream binary (default: beside psched-djsb)");
  app.add_option("--timeout", o.timeout, "seconds before a stuck run is killed (an error)");
  app.add_option("--wait-constant", o.wait_constant, "C of the wait coefficient, seconds");
  app.add_option("--analysis-share", o.analysis_share, "sigma: ES_ana = 1/sigma");
  app.add_flag("--require-psched", o.require_psched,
               "missing psched-exec is an error (default: skip the policy columns)");
  app.add_flag("--check", o.check_only, "validate the configuration, print the plan, exit");
  app.name("psched-djsb");
  app.footer(
      "Run it inside an allocation: it starts its sessions with psched-exec. scripts/demo.sh\n"
      "reads NODES and TOPOLOGY from `psched-djsb --demo-allocation`, then runs\n"
      "  psched-alloc -N NODES --topology TOPOLOGY psched-djsb -c djsb/demo.toml --machine-sized\n"
      "--check prints the plan (scenarios, submit points, sizes) without running it.\n\n"
      "Exit status: 0 every scenario ran and the verdict was printed; 1 a bad configuration;\n"
      "2 it could not run (a folded allocation without --allow-folded, a bad option, a\n"
      "failed calibration); 3 some scenario failed (the table says which and why).");
  if (auto code = psched::ParseCommandLine(app, "psched-djsb", argc, argv)) return *code;

  if (o.demo_allocation) {
    auto cores = AllowedRealCores();
    if (!cores) {
      std::cerr << "psched-djsb: " << cores.error().ToString() << "\n";
      return kExitRunFailed;
    }
    DemoPlan plan = PlanDemo(*cores);
    std::cout << plan.nodes << " " << plan.Topology() << "\n";
    return 0;
  }
  auto config = BuildConfig(o);
  if (!config) {
    std::cerr << "psched-djsb: " << config.error().ToString() << "\n";
    return kExitBadConfig;
  }
  const std::string exe_dir = ExeDir();
  Tools tools;
  tools.stream =
      config->stream_binary.empty() ? FindProgram("psched-stream", exe_dir) : config->stream_binary;
  if (tools.stream.empty() || access(tools.stream.c_str(), X_OK) != 0) {
    std::cerr << "psched-djsb: psched-stream not found or not executable ('" << tools.stream
              << "'; looked beside " << exe_dir << " and on PATH; set --stream)\n";
    return kExitBadConfig;
  }
  std::string exec = FindProgram("psched-exec", exe_dir);
  if (!exec.empty()) tools.psched_dir = exec.substr(0, exec.rfind('/'));
  tools.psched_ctl = FindProgram("psched-ctl", exe_dir);
  tools.in_slurm = std::getenv("SLURM_JOB_ID") != nullptr;
  tools.require_psched = o.require_psched;

  // Outside Slurm every slot is on this host: more simulation slots than real PUs fold
  // onto shared CPUs, where pinning, sidestep and overbook decide nothing the hardware sees.
  std::string folded;
  const int real_pus = AllowedRealPus();
  if (!tools.in_slurm && config->simulation.Slots() > real_pus) {
    folded = "FOLDED: the simulation's " + std::to_string(config->simulation.Slots()) +
             " slots share this host's " + std::to_string(real_pus) +
             " real PUs, so no figure measures policy effects";
    if (!config->allow_folded) {
      std::cerr << "psched-djsb: the simulation's " << config->simulation.Slots()
                << " slots would fold onto the " << real_pus
                << " real PUs this process may use: pinning, sidestep and overbook would decide "
                   "nothing the hardware sees, and no figure would measure a policy. Size the "
                   "allocation to the real cores (scripts/demo.sh does: psched-djsb "
                   "--demo-allocation, --machine-sized), or pass --allow-folded to run anyway "
                   "with every figure labelled.\n";
      return kExitFolded;
    }
  }
  std::cout << "psched-djsb: simulation " << config->simulation.ranks << "x"
            << config->simulation.threads << " (" << config->simulation.Slots()
            << " slots), analysis " << config->analysis.ranks << "x" << config->analysis.threads
            << ", " << real_pus << " real PUs here";
  if (config->sim_target_s > 0) {
    std::cout << "; iterations calibrated for a " << config->sim_target_s << " s simulation";
  } else {
    std::cout << "; " << config->simulation.iterations << " and " << config->analysis.iterations
              << " iterations";
  }
  std::cout << "\npsched-djsb: repeats " << config->repeats << " to " << config->max_repeats << ": "
            << config->repeats
            << " of each scenario, then only of the best policy and the baseline until their "
               "95% intervals are apart or within +-"
            << 100 * config->ci_relative_half_width << "% of their medians\n";
  if (!folded.empty()) std::cout << "psched-djsb: " << folded << "\n";
  std::cout << "psched-djsb: scenarios:";
  for (const Scenario& s : PlanScenarios(*config, tools.in_slurm)) std::cout << " " << s.name;
  std::cout << "\npsched-djsb: analyses submitted at";
  for (double f : LaunchFractions(*config)) std::cout << " " << f;
  std::cout << " of the simulation's iterations (seed " << config->schedule.seed << ")\n";
  std::cout << "psched-djsb: psched-exec " << (exec.empty() ? "MISSING" : exec) << ", psched-ctl "
            << (tools.psched_ctl.empty() ? "MISSING (states sampled from /proc)" : tools.psched_ctl)
            << "\n";
  if (o.check_only) return 0;

  Orchestrator orchestrator(*config, tools, folded, std::cout);
  auto results = orchestrator.Run();
  if (!results) {
    std::cerr << "psched-djsb: " << results.error().ToString() << "\n";
    return kExitRunFailed;
  }
  const std::string dir = config->output_dir;
  for (auto [name, text] : {std::pair{"djsb.json", ToJson(*results).dump(2) + "\n"},
                            {"djsb.csv", ToCsv(*results)},
                            {"djsb.svg", RenderSvg(*results)}}) {
    if (auto ok = WriteFile(dir + "/" + name, text); !ok) {
      std::cerr << "psched-djsb: " << ok.error().ToString() << "\n";
      return kExitRunFailed;
    }
  }
  std::cout << "\n" << FormatTable(*results) << "\n";
  std::cout << "psched-djsb: wrote " << dir << "/djsb.json, " << dir << "/djsb.csv\n";
  std::cout << "psched-djsb: SVG report: " << dir << "/djsb.svg\n";
  bool any_ran = false, any_failed = false;
  for (const ScenarioResult& s : results->scenarios) {
    if (s.skipped.empty()) {
      any_ran = true;
    } else if (s.skipped != "psched-exec not found") {
      any_failed = true;
    }
  }
  if (!any_ran) {
    std::cerr << "psched-djsb: no scenario ran\n";
    return kExitRunFailed;
  }
  return any_failed ? kExitScenarioFailed : 0;
}

}  // namespace
}  // namespace psched::djsb

int main(int argc, char** argv) {
  return psched::GuardedMain("psched-djsb", [&] { return psched::djsb::RunCommand(argc, argv); });
}
