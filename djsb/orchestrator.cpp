#include "djsb/orchestrator.hpp"

#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "djsb/proc_sampler.hpp"
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
  double offset = 0;  // seconds after the anchor: the run's start, or the simulation's begin
  std::optional<LaunchedSession> launched;
};

}  // namespace

void Orchestrator::Progress(const std::string& line) {
  progress_ << "[djsb +" << Fixed(WallClockNow() - started_, 1) << "s] " << line << std::endl;
}

Result<ScenarioRun> Orchestrator::RunOnce(const std::string& name, int repeat,
                                          const Launcher& launcher, bool with_sim,
                                          const std::vector<double>& fractions,
                                          double x_sim_alone) {
  const std::string run_id = Sanitize(name) + "-r" + std::to_string(repeat);
  const std::string runs_dir = config_.output_dir + "/runs";
  std::vector<Pending> pending;
  if (with_sim) pending.push_back({"sim", &config_.simulation, 0, std::nullopt});
  for (size_t k = 0; k < fractions.size(); ++k) {
    pending.push_back({"ana" + std::to_string(k), &config_.analysis,
                       with_sim ? fractions[k] * x_sim_alone : 0.0, std::nullopt});
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
  // The analyses' offsets count from the simulation's begin as psched-stream announces it,
  // not from its submit: the reference X_sim was measured earlier, and a launch slowed by
  // a change of load since then would otherwise let an analysis arrive before the
  // simulation computes at all.
  std::optional<double> anchor;
  if (!with_sim) anchor = start;
  auto due_at = [&](const Pending& p) -> std::optional<double> {
    if (p.name == "sim") return start;
    if (!anchor) return std::nullopt;
    return *anchor + p.offset;
  };
  size_t next = 0;
  while (true) {
    const double now = WallClockNow();
    if (!anchor && pending[0].launched) {
      if (auto begin = AnnouncedBegin(*pending[0].launched, tags[0])) {
        anchor = *begin;
      } else if (PollExited(*pending[0].launched)) {
        anchor = now;  // it failed before computing: its error is reported at the end
      }
    }
    // Submit every session whose time has come, in schedule order.
    while (next < pending.size() && due_at(pending[next]) && now >= *due_at(pending[next])) {
      Pending& p = pending[next];
      const AppConfig& app = *p.app;
      std::string command = tools_.stream + " --array-size " + std::to_string(app.array_size) +
                            " --iterations " + std::to_string(app.iterations) + " --tag " +
                            tags[next];
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
                    ? " at +" + Fixed(now - start, 1) + "s, " + Fixed(now - *anchor, 1) +
                          " s after the simulation began (" +
                          Fixed(100 * p.offset / x_sim_alone, 0) + "% of the simulation alone)"
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
    double until_next = 1e9;
    if (next < pending.size())
      if (auto due = due_at(pending[next])) until_next = *due - WallClockNow();
    SleepSeconds(std::min(config_.sample_interval_s, std::max(0.0, until_next)));
  }

  std::vector<RunTimes> relative;
  for (size_t i = 0; i < pending.size(); ++i) {
    auto times = ReadStreamTimes(*pending[i].launched);
    if (!times) {
      return Fail(
          times.error().Wrap(name + " #" + std::to_string(repeat + 1) + ": " + pending[i].name));
    }
    SessionRecord rec;
    rec.name = pending[i].name;
    rec.tag = tags[i];
    rec.times = *times;
    rec.output_path = pending[i].launched->output_path;
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

Result<FamilyReferences> Orchestrator::RunReferences(const Launcher& launcher) {
  FamilyReferences fam;
  fam.family = launcher.family;
  std::vector<double> sim_x, ana_x, ana_wait;
  for (int r = 0; r < config_.repeats; ++r) {
    auto sim = RunOnce("alone-sim-" + launcher.family, r, launcher, true, {}, 0);
    if (!sim) return Fail(sim.error());
    sim_x.push_back(sim->sessions[0].times.Execution());
    Progress("simulation alone (" + launcher.family + ") #" + std::to_string(r + 1) +
             ": X = " + Fixed(sim_x.back()) + " s");
    fam.sim_alone.push_back(*sim);
    auto ana = RunOnce("alone-ana-" + launcher.family, r, launcher, false, {0.0}, 0);
    if (!ana) return Fail(ana.error());
    ana_x.push_back(ana->sessions[0].times.Execution());
    ana_wait.push_back(std::max(0.0, ana->sessions[0].times.Wait()));
    Progress("analysis alone (" + launcher.family + ") #" + std::to_string(r + 1) +
             ": X = " + Fixed(ana_x.back()) +
             " s, static wait (launch overhead) = " + Fixed(ana_wait.back(), 3) + " s");
    fam.ana_alone.push_back(*ana);
  }
  fam.refs.sim_alone_execution = Median(sim_x);
  fam.refs.ana_alone_execution = Median(ana_x);
  fam.refs.ana_static_wait = Median(ana_wait);
  fam.refs.sim_slots = config_.simulation.Slots();
  fam.refs.ana_slots = config_.analysis.Slots();
  auto constants = ResolveConstants(config_.constants, fam.refs);
  if (!constants) return Fail(constants.error().Wrap("reference runs (" + launcher.family + ")"));
  fam.constants = *constants;
  Progress("references (" + launcher.family + "): X_sim alone " +
           Fixed(fam.refs.sim_alone_execution) + " s, X_ana alone " +
           Fixed(fam.refs.ana_alone_execution) + " s; " + DescribeConstants(fam.constants));
  return fam;
}

Result<DjsbResults> Orchestrator::Run() {
  started_ = WallClockNow();
  DjsbResults results;
  results.config = config_;
  results.started = started_;
  results.launch_fractions = LaunchFractions(config_);
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

  for (const Scenario& s : scenarios) {
    ScenarioResult sr;
    sr.scenario = s;
    Launcher launcher = launcher_for(s);
    sr.family = launcher.family;
    if (launcher.family == "psched" && !psched_available) {
      sr.skipped = "psched-exec not found";
      results.scenarios.push_back(std::move(sr));
      continue;
    }
    // References once per launcher family (psched-exec's overhead is not mpirun's).
    auto fam_it =
        std::find_if(results.references.begin(), results.references.end(),
                     [&](const FamilyReferences& f) { return f.family == launcher.family; });
    if (fam_it == results.references.end()) {
      Launcher ref = launcher;
      ref.policy = "wait";  // alone, every policy behaves alike
      ref.spread = false;
      auto fam = RunReferences(ref);
      if (!fam) {
        Progress("reference runs (" + launcher.family + ") failed: " + fam.error().ToString());
        sr.skipped = "reference runs failed: " + fam.error().ToString();
        results.scenarios.push_back(std::move(sr));
        continue;
      }
      results.references.push_back(std::move(*fam));
      fam_it = results.references.end() - 1;
    }
    const FamilyReferences& fam = *fam_it;
    for (int r = 0; r < config_.repeats && sr.skipped.empty(); ++r) {
      auto run = RunOnce(s.name, r, launcher, true, results.launch_fractions,
                         fam.refs.sim_alone_execution);
      if (!run) {
        Progress(s.name + " failed: " + run.error().ToString());
        sr.skipped = "failed: " + run.error().ToString();
        break;
      }
      std::vector<RunTimes> ana;
      for (size_t i = 1; i < run->sessions.size(); ++i) ana.push_back(run->sessions[i].times);
      auto m = ComputeRun(run->sessions[0].times, ana, fam.refs, fam.constants);
      if (!m) {
        sr.skipped = "metrics: " + m.error().ToString();
        break;
      }
      Progress(s.name + " #" + std::to_string(r + 1) + ": E_sim " + Fixed(m->e_sim) + ", E_ana " +
               Fixed(m->e_ana) + ", W_ana " + Fixed(m->w_ana) + ", D " + Fixed(m->d) +
               " (states from " + run->state_source + ")");
      sr.runs.push_back(std::move(*run));
      sr.metrics.push_back(std::move(*m));
    }
    if (sr.skipped.empty()) {
      auto summary = Summarize(sr.metrics);
      if (summary) sr.summary = *summary;
    }
    results.scenarios.push_back(std::move(sr));
  }
  results.finished = WallClockNow();
  return results;
}

}  // namespace psched::djsb
