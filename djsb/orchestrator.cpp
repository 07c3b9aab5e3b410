#include "djsb/orchestrator.hpp"

#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "djsb/paired_metrics.hpp"
#include "djsb/proc_sampler.hpp"
#include "djsb/repeat_rule.hpp"
#include "djsb/session_process.hpp"
#include "djsb/timeline.hpp"

namespace psched::djsb {
namespace {

void SleepSeconds(double s) {
  if (s <= 0) return;
  timespec ts{static_cast<time_t>(s), static_cast<long>((s - static_cast<time_t>(s)) * 1e9)};
  nanosleep(&ts, nullptr);
}

std::string Fixed(double v, int digits = 2) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string Sanitize(std::string s) {
  for (char& c : s)
    if (c == '+' || c == ' ' || c == '/') c = '_';
  return s;
}

// One session to start during a run.
struct Pending {
  std::string name;
  const AppConfig* app = nullptr;
  int after_iterations = 0;  // submitted once the simulation completed this many (0: at once)
  std::optional<LaunchedSession> launched;
};

}  // namespace

void Orchestrator::Progress(const std::string& line) {
  progress_ << "[djsb +" << Fixed(WallClockNow() - started_, 1) << "s] " << line << std::endl;
}

Result<ScenarioRun> Orchestrator::RunOnce(const std::string& name, int repeat,
                                          const Launcher& launcher, bool with_sim,
                                          const std::vector<double>& fractions) {
  const std::string run_id = Sanitize(name) + "-r" + std::to_string(repeat);
  const std::string runs_dir = config_.output_dir + "/runs";
  const int sim_iterations = config_.simulation.iterations;
  std::vector<Pending> pending;
  if (with_sim) pending.push_back({"sim", &config_.simulation, 0, std::nullopt});
  for (size_t k = 0; k < fractions.size(); ++k) {
    pending.push_back({"ana" + std::to_string(k), &config_.analysis,
                       with_sim ? SubmitIteration(fractions[k], sim_iterations) : 0, std::nullopt});
  }
  std::vector<std::string> tags;
  tags.reserve(pending.size());
  for (const Pending& p : pending) tags.push_back("djsb-" + run_id + "-" + p.name);

  const bool use_ctl = launcher.family == "psched" && !tools_.psched_ctl.empty();
  std::vector<SampleTick> ticks;
  std::vector<std::set<int>> nodes(pending.size());
  bool ctl_answered = false;
  ScenarioRun run;
  run.scenario = name;
  run.repeat = repeat;

  auto kill_all = [&] {
    for (Pending& p : pending)
      if (p.launched) KillSession(*p.launched);
  };
  const double start = WallClockNow();
  run.start = start;
  size_t next = 0;
  while (true) {
    const double now = WallClockNow();
    // The analyses are due on the simulation's own progress (its reported iterations), so
    // no submit time depends on another run's duration or on how long the launch took.
    size_t completed = 0;
    bool sim_gone = false;
    if (with_sim && pending[0].launched) {
      completed = ReportedIterations(*pending[0].launched, tags[0]).size();
      sim_gone = PollExited(*pending[0].launched);  // failed early: its error comes at the end
    }
    auto due = [&](const Pending& p) {
      return p.name == "sim" || !with_sim || sim_gone ||
             (pending[0].launched && static_cast<int>(completed) >= p.after_iterations);
    };
    // Submit every session whose time has come, in schedule order.
    while (next < pending.size() && due(pending[next])) {
      Pending& p = pending[next];
      const AppConfig& app = *p.app;
      std::string command = tools_.stream + " --array-size " + std::to_string(app.array_size) +
                            " --iterations " + std::to_string(app.iterations) + " --tag " +
                            tags[next];
      // The interactive djsb: the simulation serves, the analyses pull (never alone: an
      // analysis's reference run computes only).
      if (config_.interaction.enabled() && with_sim) {
        const std::string service = "djsb-" + std::to_string(getpid()) + "-" + run_id;
        command += p.name == "sim" ? " --serve " + service
                                   : " --interact " + service + " --pulls " +
                                         std::to_string(config_.interaction.pulls) + " --slice " +
                                         std::to_string(config_.interaction.slice);
      }
      auto cmd = ExpandTemplate(launcher.templ, app, launcher.policy, launcher.spread, command,
                                tools_.psched_dir);
      if (!cmd) {
        kill_all();
        return Fail(cmd.error());
      }
      std::vector<std::string> env = {"OMP_NUM_THREADS=" + std::to_string(app.threads)};
      if (!config_.omp_wait_policy.empty())
        env.push_back("OMP_WAIT_POLICY=" + config_.omp_wait_policy);
      if (config_.mpi_yield_when_idle) env.push_back("OMPI_MCA_mpi_yield_when_idle=1");
      if (launcher.family == "mpirun" && !name_server_uri_.empty())
        env.push_back("OMPI_MCA_pmix_server_uri=file:" + name_server_uri_);
      if (geteuid() == 0) {
        env.push_back("OMPI_ALLOW_RUN_AS_ROOT=1");
        env.push_back("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1");
      }
      auto launched = LaunchSession(*cmd, env, runs_dir + "/" + tags[next] + ".out");
      if (!launched) {
        kill_all();
        return Fail(launched.error().Wrap(name + ": " + p.name));
      }
      p.launched = *launched;
      Progress(name + " #" + std::to_string(repeat + 1) + ": submitted " + p.name +
               (with_sim && p.name != "sim"
                    ? " at +" + Fixed(now - start, 1) + "s, after the simulation's iteration " +
                          std::to_string(completed) + " of " + std::to_string(sim_iterations) +
                          (sim_gone ? " (it had exited)" : "")
                    : "") +
               ": " + *cmd);
      ++next;
    }
    SampleTick tick;
    tick.t = now - start;
    tick.sessions = SampleProcesses(tags, &nodes);
    if (use_ctl && SamplePschedCtl(tools_.psched_ctl, tags, &tick.sessions, &nodes))
      ctl_answered = true;
    ticks.push_back(std::move(tick));

    bool all_done = next == pending.size();
    for (Pending& p : pending)
      if (p.launched && !PollExited(*p.launched)) all_done = false;
    if (all_done) break;
    if (now - start > config_.session_timeout_s) {
      kill_all();
      return Fail(ErrorCode::kTimeout, name + " #" + std::to_string(repeat + 1) +
                                           ": still running after session_timeout_s = " +
                                           Fixed(config_.session_timeout_s, 0) + " s; killed");
    }
    SleepSeconds(config_.sample_interval_s);
  }

  std::vector<RunTimes> relative;
  for (size_t i = 0; i < pending.size(); ++i) {
    std::optional<InteractionRecord> interaction;
    auto times = ReadStreamTimes(*pending[i].launched, &interaction);
    if (!times) {
      return Fail(
          times.error().Wrap(name + " #" + std::to_string(repeat + 1) + ": " + pending[i].name));
    }
    SessionRecord rec;
    rec.name = pending[i].name;
    rec.tag = tags[i];
    rec.times = *times;
    rec.interaction = std::move(interaction);
    rec.output_path = pending[i].launched->output_path;
    rec.iterations = ReportedIterations(*pending[i].launched, tags[i]);
    rec.nodes.assign(nodes[i].begin(), nodes[i].end());
    if (rec.nodes.empty()) rec.nodes.push_back(0);
    for (const SampleTick& t : ticks) {
      if (t.sessions[i].procs > 0 && t.sessions[i].stopped == t.sessions[i].procs)
        rec.observed_stopped = true;
    }
    relative.push_back({times->submit - start, times->begin - start, times->end - start});
    run.sessions.push_back(std::move(rec));
  }
  // Keep the raw samples beside the launchers' output: the timeline can be checked.
  {
    std::ofstream samples(runs_dir + "/" + run_id + ".samples.jsonl");
    for (const SampleTick& t : ticks) {
      nlohmann::json line{{"t", t.t}};
      for (size_t i = 0; i < t.sessions.size(); ++i) {
        line[pending[i].name] = {{"procs", t.sessions[i].procs},
                                 {"stopped", t.sessions[i].stopped},
                                 {"cpus", t.sessions[i].cpus},
                                 {"ctl", t.sessions[i].ctl_state}};
      }
      samples << line.dump() << "\n";
    }
  }
  auto timelines = BuildTimelines(relative, ticks);
  for (size_t i = 0; i < run.sessions.size(); ++i) run.sessions[i].timeline = timelines[i];
  run.state_source = ctl_answered ? "psched-ctl" : (ticks.size() > 1 ? "/proc" : "begin/end");
  return run;
}

// One repeat of a family's reference runs: the simulation alone, then the analysis alone.
Result<void> Orchestrator::RunReferences(const Launcher& launcher, int round,
                                         FamilyReferences* fam) {
  auto sim = RunOnce("alone-sim-" + launcher.family, round, launcher, true, {});
  if (!sim) return Fail(sim.error());
  Progress("simulation alone (" + launcher.family + ") #" + std::to_string(round + 1) +
           ": X = " + Fixed(sim->sessions[0].times.Execution()) + " s");
  fam->sim_alone.push_back(std::move(*sim));
  auto ana = RunOnce("alone-ana-" + launcher.family, round, launcher, false, {0.0});
  if (!ana) return Fail(ana.error());
  Progress("analysis alone (" + launcher.family + ") #" + std::to_string(round + 1) + ": X = " +
           Fixed(ana->sessions[0].times.Execution()) + " s, static wait (launch overhead) = " +
           Fixed(std::max(0.0, ana->sessions[0].times.Wait()), 3) + " s");
  fam->ana_alone.push_back(std::move(*ana));
  return {};
}

Result<void> Orchestrator::Calibrate(const Launcher& launcher, DjsbResults* results) {
  constexpr int kProbeIterations = 6;
  const int configured = config_.simulation.iterations;
  config_.simulation.iterations = kProbeIterations;
  auto run = RunOnce("calibrate", 0, launcher, true, {});
  config_.simulation.iterations = configured;
  if (!run) return Fail(run.error().Wrap("calibration run of the simulation"));
  const std::vector<double>& t = run->sessions[0].iterations;
  if (t.size() < 3 || !(t.back() > t[1])) {
    return Fail(ErrorCode::kProtocol,
                "calibration run: the simulation reported too few iterations");
  }
  // From the second iteration on: the first one also faults the arrays' pages in.
  const double per_iteration = (t.back() - t[1]) / static_cast<double>(t.size() - 2);
  AppConfig& sim = config_.simulation;
  AppConfig& ana = config_.analysis;
  sim.iterations = std::max(4, static_cast<int>(std::lround(config_.sim_target_s / per_iteration)));
  const double ana_work =
      config_.analysis_work_share * static_cast<double>(sim.array_size) * sim.iterations;
  ana.iterations =
      std::max(2, static_cast<int>(std::lround(ana_work / static_cast<double>(ana.array_size))));
  results->calibration = "an iteration of the simulation alone took " + Fixed(per_iteration, 3) +
                         " s (" + launcher.family + "): " + std::to_string(sim.iterations) +
                         " iterations for about " + Fixed(config_.sim_target_s, 0) +
                         " s; the analysis " + std::to_string(ana.iterations) + " iterations, " +
                         Fixed(100 * config_.analysis_work_share, 0) + "% of the simulation's work";
  Progress("calibration: " + results->calibration);
  return {};
}

// Metrics of every run so far, each against its own round's references
// (paired_metrics.hpp); the table shows the medians of every round's.
void Orchestrator::Recompute(DjsbResults* results) {
  for (FamilyReferences& fam : results->references) fam.refs = ReferencesOf(fam, config_, -1);
  for (ScenarioResult& sr : results->scenarios) {
    if (!sr.skipped.empty() || sr.runs.empty()) continue;
    auto fam = std::find_if(results->references.begin(), results->references.end(),
                            [&](const FamilyReferences& f) { return f.family == sr.family; });
    if (fam == results->references.end()) continue;
    auto constants = ResolveConstants(config_.constants, fam->refs);
    if (!constants) {
      sr.skipped = "reference runs (" + sr.family + "): " + constants.error().ToString();
      continue;
    }
    fam->constants = *constants;
    auto metrics = PairedMetrics(sr.runs, *fam, config_);
    if (!metrics) {
      sr.skipped = "metrics: " + metrics.error().ToString();
      continue;
    }
    sr.metrics = std::move(*metrics);
    if (auto summary = Summarize(sr.metrics)) sr.summary = *summary;
    std::vector<InteractionRecord> pulls;
    for (const ScenarioRun& run : sr.runs) {
      for (const SessionRecord& s : run.sessions)
        if (s.interaction) pulls.push_back(*s.interaction);
    }
    sr.interaction = SummarizeInteractions(pulls);
  }
}

void Orchestrator::StartNameServer(const std::vector<Scenario>& scenarios, DjsbResults* results) {
  if (!config_.interaction.enabled()) return;
  std::set<std::string> families;
  for (const Scenario& s : scenarios) families.insert(s.baseline.empty() ? "psched" : s.baseline);
  if (families.contains("psched")) {
    results->name_services.push_back(
        "psched: the leader pschedd's (MPI_Publish_name and MPI_Lookup_name are PMIx's, served "
        "by the allocation's first daemon)");
  }
  if (families.contains("srun")) {
    results->name_services.push_back(
        "srun: none is set up between job steps; an analysis that finds no simulation says so "
        "(interactions column)");
  }
  if (!families.contains("mpirun")) return;
  const std::string uri = config_.output_dir + "/runs/ompi-server.uri";
  unlink(uri.c_str());
  std::vector<std::string> env;
  if (geteuid() == 0) env = {"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"};
  auto server = LaunchSession("exec ompi-server --no-daemonize -r " + uri, env,
                              config_.output_dir + "/runs/ompi-server.out");
  std::string why;
  if (server) {
    name_server_ = *server;
    for (int i = 0; i < 100 && name_server_uri_.empty(); ++i) {
      struct stat st {};
      if (stat(uri.c_str(), &st) == 0 && st.st_size > 0) {
        name_server_uri_ = uri;
      } else if (PollExited(*name_server_)) {
        break;
      } else {
        SleepSeconds(0.05);
      }
    }
    if (name_server_uri_.empty()) why = "ompi-server wrote no URI (see runs/ompi-server.out)";
  } else {
    why = server.error().ToString();
  }
  results->name_services.push_back(
      name_server_uri_.empty()
          ? "mpirun: none shared between mpirun jobs (" + why +
                "); an analysis that finds no simulation says so"
          : "mpirun: Open MPI's ompi-server (every mpirun with OMPI_MCA_pmix_server_uri=file:" +
                uri + ")");
  Progress("interactive djsb, name services: " + results->name_services.back());
}

void Orchestrator::StopNameServer() {
  if (name_server_) KillSession(*name_server_);
  name_server_.reset();
  name_server_uri_.clear();
}

Result<DjsbResults> Orchestrator::Run() {
  started_ = WallClockNow();
  DjsbResults results;
  results.launch_fractions = LaunchFractions(config_);
  results.folded = folded_;
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  results.host = host;
  mkdir(config_.output_dir.c_str(), 0755);
  if (mkdir((config_.output_dir + "/runs").c_str(), 0755) != 0 && errno != EEXIST)
    return Fail(Error::FromErrno("mkdir", config_.output_dir + "/runs"));

  const std::vector<Scenario> scenarios = PlanScenarios(config_, tools_.in_slurm);
  const bool psched_available = !tools_.psched_dir.empty();
  bool any_policy = false;
  for (const Scenario& s : scenarios)
    if (s.baseline.empty()) any_policy = true;
  if (any_policy && !psched_available) {
    if (tools_.require_psched) {
      return Fail(
          ErrorCode::kNotFound,
          "psched-exec not found (beside psched-djsb or on PATH); the policy columns need it");
    }
    Progress("MISSING psched-exec (beside psched-djsb or on PATH): the policy columns are skipped");
  }

  auto launcher_for = [&](const Scenario& s) {
    Launcher l;
    if (s.baseline.empty()) {
      l.family = "psched";
      l.templ = config_.launcher.psched;
      l.policy = s.policy;
      l.spread = s.spread;
    } else {
      l.family = s.baseline;
      l.templ = s.baseline == "srun" ? config_.launcher.srun : config_.launcher.mpirun;
    }
    return l;
  };
  // Reference runs: alone, every policy behaves alike.
  auto reference_launcher = [&](const std::string& family) {
    for (const Scenario& s : scenarios) {
      Launcher l = launcher_for(s);
      if (l.family != family) continue;
      l.policy = "wait";
      l.spread = false;
      return l;
    }
    return Launcher{};
  };

  for (const Scenario& s : scenarios) {
    ScenarioResult sr;
    sr.scenario = s;
    sr.family = launcher_for(s).family;
    if (sr.family == "psched" && !psched_available) sr.skipped = "psched-exec not found";
    results.scenarios.push_back(std::move(sr));
  }
  for (const ScenarioResult& sr : results.scenarios) {
    if (!sr.skipped.empty()) continue;
    auto known = std::find_if(results.references.begin(), results.references.end(),
                              [&](const FamilyReferences& f) { return f.family == sr.family; });
    if (known != results.references.end()) continue;
    FamilyReferences fam;
    fam.family = sr.family;
    results.references.push_back(std::move(fam));
  }
  if (results.references.empty()) {
    results.config = config_;
    results.finished = WallClockNow();
    return results;
  }
  StartNameServer(scenarios, &results);
  struct StopAtReturn {
    Orchestrator* self;
    ~StopAtReturn() { self->StopNameServer(); }
  } stop_name_server{this};
  if (config_.sim_target_s > 0) {
    if (auto ok = Calibrate(reference_launcher(results.references[0].family), &results); !ok)
      return Fail(ok.error());
  }
  results.config = config_;

  // Rounds: each scenario the repeat rule names runs once per round beside its family's
  // reference runs, and is compared with that round's references, so a drift of the
  // machine's speed between rounds hits a scenario and its references alike. The rule
  // (repeat_rule.hpp): `repeats` of every scenario, then only the verdict's two.
  std::map<std::string, double> seconds_of;  // last duration of each kind of run
  // What the runs from `from` on of a round of `ordered` take: what each took last time (a
  // scenario not run yet: as long as its family's reference runs), plus the reference runs
  // of each family whose first scenario is at `refs_from` or later.
  auto round_estimate = [&](const std::vector<size_t>& ordered, size_t from, size_t refs_from) {
    double total = 0;
    std::set<std::string> seen;
    for (size_t k = 0; k < ordered.size(); ++k) {
      const ScenarioResult& sr = results.scenarios[ordered[k]];
      if (seen.insert(sr.family).second && k >= refs_from) {
        auto it = seconds_of.find("alone-" + sr.family);
        if (it != seconds_of.end()) total += it->second;
      }
      if (k < from) continue;
      auto it = seconds_of.find(sr.scenario.name);
      if (it == seconds_of.end()) it = seconds_of.find("alone-" + sr.family);
      if (it != seconds_of.end()) total += it->second;
    }
    return total;
  };
  for (int round = 0; round < config_.max_repeats; ++round) {
    const RepeatPlan plan = PlanRepeats(RepeatCandidates(results.scenarios), config_.repeats,
                                        config_.max_repeats, config_.ci_relative_half_width);
    if (!plan.racing.empty()) {
      Progress((plan.repeat.empty() ? "after round " + std::to_string(round)
                                    : "round " + std::to_string(round + 1)) +
               ": " + plan.racing);
      if (results.racing.empty()) {
        results.racing = "after " + std::to_string(config_.repeats) +
                         " repeats of each scenario: " + plan.racing;
      } else if (plan.repeat.empty()) {
        results.racing += "; then " + plan.racing;
      }
    }
    // Each family's reference runs right before its scenarios: a scenario is compared with
    // references measured as close to it in time as the round allows.
    std::vector<size_t> open;
    for (const FamilyReferences& fam : results.references) {
      for (size_t i : plan.repeat)
        if (results.scenarios[i].family == fam.family) open.push_back(i);
    }
    if (open.empty()) break;
    // The time budget ends the repeats early, never before `repeats`: when this round (as
    // long as its runs took last time) would overrun it.
    if (config_.time_budget_s > 0 && round >= config_.repeats) {
      const double next_round = round_estimate(open, 0, 0);
      const double spent = WallClockNow() - started_;
      if (spent + next_round > config_.time_budget_s) {
        results.stopped_early = "stopped after " + std::to_string(round) + " rounds: another (~" +
                                Fixed(next_round, 0) + " s) would overrun the time budget of " +
                                Fixed(config_.time_budget_s, 0) + " s; intervals wider than +-" +
                                Fixed(100 * config_.ci_relative_half_width, 0) +
                                "% are shown as they are";
        Progress(results.stopped_early);
        break;
      }
    }
    auto eta = [&](size_t from) -> std::string {
      if (seconds_of.empty()) return "ETA after the first round";
      const double rest = round_estimate(open, from, from + 1);
      const double whole = round_estimate(open, 0, 0);
      const int min_more = std::max(0, config_.repeats - round - 1);
      const int max_more = config_.max_repeats - round - 1;
      return "ETA " + Fixed(rest + min_more * whole, 0) + " s (at most " +
             Fixed(rest + max_more * whole, 0) + " s if every open scenario needs " +
             std::to_string(config_.max_repeats) + " repeats)";
    };
    std::string refs_done;
    for (size_t k = 0; k < open.size(); ++k) {
      ScenarioResult& sr = results.scenarios[open[k]];
      if (sr.family != refs_done) {
        refs_done = sr.family;
        auto fam = std::find_if(results.references.begin(), results.references.end(),
                                [&](const FamilyReferences& f) { return f.family == sr.family; });
        const double t0 = WallClockNow();
        if (auto ok = RunReferences(reference_launcher(sr.family), round, &*fam); !ok) {
          Progress("reference runs (" + sr.family + ") failed: " + ok.error().ToString());
          for (size_t i : open) {
            if (results.scenarios[i].family == sr.family)
              results.scenarios[i].skipped = "reference runs failed: " + ok.error().ToString();
          }
        } else {
          seconds_of["alone-" + sr.family] = WallClockNow() - t0;
        }
      }
      if (!sr.skipped.empty()) continue;
      Progress("round " + std::to_string(round + 1) + ", scenario " + std::to_string(k + 1) +
               " of " + std::to_string(open.size()) + ": " + sr.scenario.name + " repeat " +
               std::to_string(sr.runs.size() + 1) + "; " + eta(k));
      const double t0 = WallClockNow();
      auto run = RunOnce(sr.scenario.name, round, launcher_for(sr.scenario), true,
                         results.launch_fractions);
      if (!run) {
        Progress(sr.scenario.name + " failed: " + run.error().ToString());
        sr.skipped = "failed: " + run.error().ToString();
        continue;
      }
      seconds_of[sr.scenario.name] = WallClockNow() - t0;
      sr.runs.push_back(std::move(*run));
    }
    Recompute(&results);
    for (size_t i : open) {
      ScenarioResult& sr = results.scenarios[i];
      if (!sr.skipped.empty() || sr.metrics.empty()) continue;
      const RunMetrics& m = sr.metrics.back();
      const Interval& d = sr.summary.d_interval;
      const bool tight = d.n >= config_.repeats && TightEnough(d, config_.ci_relative_half_width);
      Progress(sr.scenario.name + " #" + std::to_string(d.n) + ": E_sim " + Fixed(m.e_sim) +
               ", E_ana " + Fixed(m.e_ana) + ", W_ana " + Fixed(m.w_ana) + ", D " + Fixed(m.d) +
               " (states from " + sr.runs.back().state_source + "); D median " + Fixed(d.median) +
               " [" + Fixed(d.lo) + ", " + Fixed(d.hi) + "] over " + std::to_string(d.n) +
               (tight ? ": within +-" + Fixed(100 * config_.ci_relative_half_width, 0) + "%"
                      : ": wider"));
    }
  }
  results.finished = WallClockNow();
  return results;
}

}  // namespace psched::djsb
