// psched-sim: replays workloads (SWF traces, the auction and IP papers' generators)
// through the shared scheduler code on a virtual clock, and prints the papers' tables.
//
// The shell around the pure simulator: reads traces, builds workloads and schedulers,
// runs the simulations on --jobs threads, writes CSV / JSON / SVG.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "common/command_line.hpp"
#include "common/guarded_main.hpp"
#include "config/load.hpp"
#include "scheduler/sim/generators.hpp"
#include "scheduler/sim/report.hpp"
#include "scheduler/sim/scheduler_spec.hpp"
#include "scheduler/sim/simulator.hpp"
#include "scheduler/sim/swf_file.hpp"
#include "scheduler/sim/tools/allocation_command.hpp"

namespace psched::sim {
namespace {

struct Options {
  std::string swf;
  std::vector<std::string> auction;
  bool esp = false, esp_modified = false, esp_double_z = false;
  std::string machine = "S";
  int nodes = -1, cores_per_node = -1, gpus_per_node = 0;
  int max_jobs = 0, concat = 1, min_cores = 0;
  bool perfect_estimates = false;
  bool strict = false;
  int seeds = 1;
  uint64_t first_seed = 1;
  int max_nodes_per_job = 16;
  std::string auction_sizing = "cores";
  double theoretical_hours = 4;
  std::vector<std::string> schedulers = {"easy"};
  double interval_s = 0;
  std::optional<int> window;  // default: the papers' 100, or the --config file's windows
  int queue_depth = 0;
  int bids_per_job = 0;            // 0: the config default
  double solver_time_limit_s = 0;  // 0: the config default
  std::string solver_clock = "wall";
  bool no_baseline_bids = false;
  bool contiguous_bids_only = false;
  std::string config_path;  // an admin's psched.toml: [allocator] and [priority] defaults
  std::optional<double> multifactor_age_weight, multifactor_size_weight, multifactor_max_age_s;
  int jobs = 1;
  std::string table;
  std::string json_path, csv_dir, svg_path;
  bool quiet = false;
};

struct Task {
  std::shared_ptr<const Workload> workload;
  uint64_t seed = 0;
  SchedulerSpec spec;
};

struct Outcome {
  std::optional<SimResult> result;
  std::optional<Error> error;
  double wall_s = 0;
};

// Queued jobs a window allocator sees per round unless told: MAX_JOB_COUNT of the auction paper.
constexpr int kPapersWindow = 100;

// Invalid input (options, a trace's content) exits 2, as a usage error; anything else
// (a file that cannot be opened or written, a failed simulation) exits 1.
int Die(const std::string& message, int code = psched::kExitUsage) {
  std::cerr << "psched-sim: " << message << "\n";
  return code;
}
int Die(const Error& error) {
  return Die(error.ToString(),
             error.code() == ErrorCode::kInvalidArgument ? psched::kExitUsage : 1);
}

// "I.1" .. "V.3" -> (kind, version); "all" expands to the 15.
Result<std::vector<std::pair<int, int>>> ParseAuctionNames(const std::vector<std::string>& names) {
  static const char* kRoman[] = {"I", "II", "III", "IV", "V"};
  std::vector<std::pair<int, int>> out;
  for (const std::string& name : names) {
    if (name == "all") {
      for (int k = 1; k <= 5; ++k)
        for (int v = 1; v <= 3; ++v) out.emplace_back(k, v);
      continue;
    }
    bool found = false;
    for (int k = 1; k <= 5 && !found; ++k) {
      for (int v = 1; v <= 3 && !found; ++v) {
        if (name == std::string(kRoman[k - 1]) + "." + std::to_string(v)) {
          out.emplace_back(k, v);
          found = true;
        }
      }
    }
    if (!found) {
      return Fail(ErrorCode::kInvalidArgument,
                  "unknown auction workload '" + name + "' (valid: I.1 .. V.3, or all)");
    }
  }
  return out;
}

// Appends `copies` of the trace end to end (ids and times shifted): a long trace for benchmarks.
void Concatenate(Workload& w, int copies) {
  if (copies <= 1 || w.jobs.empty()) return;
  const size_t n = w.jobs.size();
  const double span = w.jobs.back().request.submit_time + 1;
  sched::SessionId max_id = 0;
  for (const SimJob& j : w.jobs) max_id = std::max(max_id, j.request.id);
  for (int c = 1; c < copies; ++c) {
    for (size_t i = 0; i < n; ++i) {
      SimJob j = w.jobs[i];
      j.request.id += c * (max_id + 1);
      j.request.submit_time += c * span;
      w.jobs.push_back(std::move(j));
    }
  }
  w.name += " x" + std::to_string(copies);
}

Result<std::vector<std::shared_ptr<const Workload>>> BuildWorkloads(const Options& o,
                                                                    std::vector<uint64_t>& seeds) {
  std::vector<std::shared_ptr<const Workload>> out;
  const int given = (!o.swf.empty()) + (!o.auction.empty()) + (o.esp || o.esp_modified);
  if (given != 1)
    return Fail(ErrorCode::kInvalidArgument, "give one workload: --swf, --auction or --esp");
  if (o.nodes == 0 || o.nodes < -1)
    return Fail(ErrorCode::kInvalidArgument, "--nodes must be > 0, got " + std::to_string(o.nodes));
  if (o.cores_per_node == 0 || o.cores_per_node < -1) {
    return Fail(ErrorCode::kInvalidArgument,
                "--cores-per-node must be > 0, got " + std::to_string(o.cores_per_node));
  }
  if (o.min_cores < 0) {
    return Fail(ErrorCode::kInvalidArgument,
                "--min-cores must be >= 0, got " + std::to_string(o.min_cores));
  }
  if (!o.swf.empty()) {
    SwfOptions so;
    so.nodes = std::max(0, o.nodes);
    so.cores_per_node = std::max(0, o.cores_per_node);
    so.gpus_per_node = o.gpus_per_node;
    so.max_jobs = o.max_jobs;
    so.min_cores = o.min_cores;
    so.strict = o.strict;
    Result<Workload> w = ReadSwfFile(o.swf, so);
    // A trace that cannot be read is bad input as much as one that does not parse.
    if (!w) return Fail(ErrorCode::kInvalidArgument, w.error().ToString());
    w->name = std::filesystem::path(o.swf).filename().string();
    // What the reader left out is said every time, --quiet or not: results over fewer
    // jobs than the trace holds must not look like results over all of them.
    if (w->skipped.Total() > 0) {
      std::cerr << "psched-sim: " << w->name << ": " << w->jobs.size() << " jobs, "
                << DescribeSkipped(w->skipped, w->machine) << "\n";
    }
    if (o.perfect_estimates) {
      for (SimJob& j : w->jobs) j.request.estimate_s = j.runtime_s;
      w->name += " (perfect estimates)";
    }
    Concatenate(*w, o.concat);
    seeds.push_back(0);
    out.push_back(std::make_shared<const Workload>(std::move(*w)));
    return out;
  }
  for (int s = 0; s < o.seeds; ++s) {
    const uint64_t seed = o.first_seed + s;
    if (!o.auction.empty()) {
      auto names = ParseAuctionNames(o.auction);
      if (!names) return Fail(names.error());
      Result<Machine> m = AuctionMachine(o.machine.size() == 1 ? o.machine[0] : '?');
      if (!m) {
        return Fail(Error(ErrorCode::kInvalidArgument,
                          "unknown auction machine '" + o.machine + "' (valid: S, M, L)"));
      }
      for (auto [kind, version] : *names) {
        AuctionWorkloadSpec spec;
        spec.kind = kind;
        spec.version = version;
        spec.machine = *m;
        spec.seed = seed;
        spec.max_nodes_per_job = o.max_nodes_per_job;
        if (o.auction_sizing == "nodes") {
          spec.sizing = AuctionJobSizing::kByNodes;
        } else if (o.auction_sizing != "cores") {
          return Fail(ErrorCode::kInvalidArgument,
                      "unknown --auction-sizing '" + o.auction_sizing + "' (valid: cores, nodes)");
        }
        spec.theoretical_runtime_s = o.theoretical_hours * 3600;
        Result<Workload> w = MakeAuctionWorkload(spec);
        if (!w) return Fail(w.error());
        seeds.push_back(seed);
        out.push_back(std::make_shared<const Workload>(std::move(*w)));
      }
    } else {
      for (bool modified : {false, true}) {
        if (modified ? !o.esp_modified : !o.esp) continue;
        EspWorkloadSpec spec;
        spec.seed = seed;
        spec.modified_sizes = modified;
        spec.double_z_times = o.esp_double_z;
        Result<Workload> w = MakeEspWorkload(spec);
        if (!w) return Fail(w.error());
        seeds.push_back(seed);
        out.push_back(std::make_shared<const Workload>(std::move(*w)));
      }
    }
  }
  return out;
}

Result<void> WriteFile(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  if (!f) return Fail(Error::FromErrno("open", "cannot write '" + path + "'"));
  f << text;
  if (!f.flush()) return Fail(Error::FromErrno("write", "writing '" + path + "'"));
  return {};
}

std::string FileSafe(std::string s) {
  for (char& c : s)
    if (!isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-') c = '_';
  return s;
}

// What the allocators and priorities run with: the built-in defaults or the admin's
// file, then the flags given.
struct Settings {
  sched::AllocatorConfig allocators;
  sched::PriorityConfig priorities;
  int window = 0;  // queued jobs handed to each round: enough for either window allocator
};

Result<Settings> ResolveSettings(const Options& o) {
  auto invalid = [](const std::string& what) { return Fail(ErrorCode::kInvalidArgument, what); };
  Settings s;
  if (o.config_path.empty()) {
    s.allocators.auction.window = kPapersWindow;
    s.allocators.ipwindow.window = kPapersWindow;
  } else {
    Result<config::Config> c = config::LoadConfigFile(o.config_path);
    if (!c) return Fail(ErrorCode::kInvalidArgument, c.error().ToString());
    s.allocators = c->allocators;
    s.priorities = c->priority;
  }
  if (o.window) {
    if (*o.window < 1) return invalid("--window must be >= 1, got " + std::to_string(*o.window));
    s.allocators.auction.window = *o.window;
    s.allocators.ipwindow.window = *o.window;
  }
  s.window = std::max(s.allocators.auction.window, s.allocators.ipwindow.window);
  if (o.multifactor_age_weight) s.priorities.multifactor_age_weight = *o.multifactor_age_weight;
  if (o.multifactor_size_weight) s.priorities.multifactor_size_weight = *o.multifactor_size_weight;
  if (o.multifactor_max_age_s) s.priorities.multifactor_max_age_s = *o.multifactor_max_age_s;
  if (o.bids_per_job < 0)
    return invalid("--bids-per-job must be > 0, got " + std::to_string(o.bids_per_job));
  if (o.solver_time_limit_s < 0) {
    std::ostringstream m;
    m << "--solver-time-limit must be > 0, got " << o.solver_time_limit_s;
    return invalid(m.str());
  }
  if (o.bids_per_job > 0) s.allocators.auction.max_bids_per_job = o.bids_per_job;
  if (o.solver_time_limit_s > 0) {
    s.allocators.auction.time_limit_s = o.solver_time_limit_s;
    s.allocators.ipwindow.time_limit_s = o.solver_time_limit_s;
  }
  if (o.no_baseline_bids) s.allocators.auction.baseline_bids = false;
  if (o.contiguous_bids_only) s.allocators.auction.contiguous_bids_only = true;
  if (o.solver_clock == "cpu") {
    s.allocators.auction.cpu_time_limit = true;
    s.allocators.ipwindow.cpu_time_limit = true;
  }
  return s;
}

// Runs every task on --jobs threads, each taking the next task not yet taken; progress
// and each run's headline go to stderr unless --quiet.
std::vector<Outcome> RunTasks(const std::vector<Task>& tasks, const Settings& settings,
                              const Options& o) {
  std::vector<Outcome> outcomes(tasks.size());
  std::atomic<size_t> next{0};
  std::atomic<int> done{0};
  std::mutex err_mutex;
  auto say = [&](const std::string& line) {
    if (o.quiet) return;
    std::lock_guard<std::mutex> lock(err_mutex);
    std::cerr << "psched-sim: " << line << "\n";
  };
  auto worker = [&] {
    for (size_t i = next++; i < tasks.size(); i = next++) {
      const Task& t = tasks[i];
      Outcome& out = outcomes[i];
      // multifactor's size factor is a share of this workload's machine.
      sched::PriorityConfig priorities = settings.priorities;
      priorities.machine_cores = t.workload->machine.TotalCores();
      auto parts = BuildScheduler(t.spec, settings.allocators, priorities);
      if (!parts) {
        out.error = parts.error();
        continue;
      }
      SimSetup& setup = (*parts)->setup;
      setup.interval_s = o.interval_s;
      setup.window = settings.window;
      setup.queue_depth = o.queue_depth;
      const std::string label =
          t.workload->name + (t.seed ? " seed " + std::to_string(t.seed) : "") + " " + t.spec.name;
      setup.progress = [&, label](int finished, int all) {
        say(label + ": " + std::to_string(finished) + "/" + std::to_string(all) + " jobs done");
      };
      const auto begin = std::chrono::steady_clock::now();
      Result<SimResult> r = Simulate(*t.workload, setup);
      out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
      if (!r) {
        out.error = r.error();
        continue;
      }
      out.result = std::move(*r);
      AddSolverCounts(**parts, out.result->summary);
      char line[256];
      std::snprintf(line, sizeof line, "[%d/%zu] %s: util %.3f, mean wait %.0f s, %.2f s wall",
                    ++done, tasks.size(), label.c_str(), out.result->summary.utilisation,
                    out.result->summary.wait_s.mean, out.wall_s);
      say(line);
    }
  };
  std::vector<std::thread> threads;
  for (int k = 0; k < std::min<int>(o.jobs, static_cast<int>(tasks.size())); ++k)
    threads.emplace_back(worker);
  for (std::thread& th : threads) th.join();
  return outcomes;
}

// --json, --csv-dir and --svg, each when asked for.
Result<void> WriteOutputs(const Options& o, const std::vector<Task>& tasks,
                          const std::vector<RunReport>& reports, const nlohmann::json& summaries) {
  if (!o.json_path.empty()) {
    if (auto ok = WriteFile(o.json_path, summaries.dump(2) + "\n"); !ok) return ok;
  }
  if (!o.csv_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.csv_dir, ec);
    if (ec) return Fail(ErrorCode::kSystem, "cannot create '" + o.csv_dir + "': " + ec.message());
    for (size_t i = 0; i < tasks.size(); ++i) {
      const std::string file = o.csv_dir + "/" + FileSafe(reports[i].summary.workload) + "_s" +
                               std::to_string(tasks[i].seed) + "_" +
                               FileSafe(reports[i].summary.scheduler) + ".csv";
      if (auto ok = WriteFile(file, JobsCsv(*reports[i].records)); !ok) return ok;
    }
  }
  if (!o.svg_path.empty()) {
    // One figure for the first workload (and seed): its runs under every scheduler.
    std::vector<RunReport> first;
    for (const RunReport& r : reports) {
      if (r.summary.workload == reports.front().summary.workload && r.seed == reports.front().seed)
        first.push_back(r);
    }
    const std::string svg = UtilisationAndWaitSvg(first, tasks.front().workload->machine,
                                                  reports.front().summary.workload);
    if (auto ok = WriteFile(o.svg_path, svg); !ok) return ok;
  }
  return {};
}

int Run(const Options& o) {
  if (o.jobs < 1) return Die("--jobs must be >= 1, got " + std::to_string(o.jobs));
  if (o.seeds < 1) return Die("--seeds must be >= 1, got " + std::to_string(o.seeds));
  if (o.queue_depth < 0) {
    return Die("--queue-depth must be >= 0 (0: the whole queue), got " +
               std::to_string(o.queue_depth));
  }
  if (o.concat < 1) return Die("--concat must be >= 1, got " + std::to_string(o.concat));
  std::vector<SchedulerSpec> specs;
  for (const std::string& name : o.schedulers) {
    Result<SchedulerSpec> s = ParseSchedulerSpec(name);
    if (!s) return Die(s.error());
    specs.push_back(*s);
  }
  std::string table_name = o.table;
  if (table_name.empty())
    table_name = !o.auction.empty() ? "auction" : (o.swf.empty() ? "ip" : "psp");
  Result<TableStyle> style = ParseTableStyle(table_name);
  if (!style) return Die(style.error());
  Result<Settings> settings = ResolveSettings(o);
  if (!settings) return Die(settings.error());
  if (o.solver_clock == "cpu" && o.jobs > 1) {
    std::fprintf(stderr,
                 "psched-sim: note: --solver-clock cpu counts the CPU time of the whole "
                 "process, so with -j %d parallel runs share each solver's limit\n",
                 o.jobs);
  }

  std::vector<uint64_t> seeds;
  auto workloads = BuildWorkloads(o, seeds);
  if (!workloads) return Die(workloads.error());
  std::vector<Task> tasks;
  for (size_t w = 0; w < workloads->size(); ++w)
    for (const SchedulerSpec& spec : specs) tasks.push_back(Task{(*workloads)[w], seeds[w], spec});

  std::vector<Outcome> outcomes = RunTasks(tasks, *settings, o);
  std::vector<RunReport> reports;
  nlohmann::json summaries = nlohmann::json::array();
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (outcomes[i].error) return Die(*outcomes[i].error);
    const SimResult& r = *outcomes[i].result;
    reports.push_back(RunReport{r.summary, tasks[i].seed, &r.records});
    nlohmann::json j = SummaryJson(r.summary);
    j["skipped"] = SkippedJson(tasks[i].workload->skipped);
    j["seed"] = tasks[i].seed;
    j["wall_s"] = outcomes[i].wall_s;
    summaries.push_back(std::move(j));
  }
  std::cout << FormatTable(reports, *style);
  if (auto ok = WriteOutputs(o, tasks, reports, summaries); !ok) return Die(ok.error());
  return 0;
}

}  // namespace
}  // namespace psched::sim

namespace {

int RunCommand(int argc, char** argv) {
  using psched::sim::Options;
  Options o;
  CLI::App app{
      "psched-sim: replay workloads through psched's scheduler code on a virtual clock.\n"
      "Workloads: an SWF trace (gzip or plain), the auction paper's I.1..V.3 generator,\n"
      "or the IP paper's CPU+GPU ESP workload. Prints a table like the papers'."};
  app.add_option("--swf", o.swf, "SWF trace (.swf or .swf.gz)");
  app.add_option("--auction", o.auction, "auction workloads: I.1 .. V.3 or all")->delimiter(',');
  app.add_flag("--esp", o.esp, "IP paper ESP CPU+GPU workload (Table 6)");
  app.add_flag("--esp-modified", o.esp_modified, "ESP with sizes +RAND(-4,4) (Table 7)");
  app.add_flag("--esp-double-z", o.esp_double_z, "ESP: Z jobs at 160/480 min (see docs/sim)");
  app.add_option("--machine", o.machine,
                 "auction machine: S, M or L (128/256/1024 x 8 cores x 2 GPUs)");
  app.add_option("--nodes", o.nodes, "SWF: override the trace's node count");
  app.add_option("--cores-per-node", o.cores_per_node, "SWF: override cores per node");
  app.add_option("--gpus-per-node", o.gpus_per_node, "SWF: GPUs per node");
  app.add_option("--max-jobs", o.max_jobs, "SWF: keep only the first N jobs");
  app.add_option("--min-cores", o.min_cores,
                 "SWF: skip jobs with fewer cores (PSP paper: 2, only parallel jobs)");
  app.add_option("--concat", o.concat, "SWF: the trace N times end to end (benchmarks)");
  app.add_flag("--perfect-estimates", o.perfect_estimates, "SWF: estimates = runtimes");
  app.add_flag("--strict", o.strict,
               "SWF: a record that would be skipped (runtime <= 0, no processor count, wider "
               "than the machine) is an error naming file:line (default: skipped, counted "
               "and said)");
  app.add_option("--seeds", o.seeds, "generators: seeds first-seed .. first-seed+N-1");
  app.add_option("--first-seed", o.first_seed, "generators: first seed");
  app.add_option("--max-nodes-per-job", o.max_nodes_per_job,
                 "auction generator: nodes per job 1..N");
  app.add_option("--auction-sizing", o.auction_sizing,
                 "auction generator: 'cores' (every job asks for k x 8 cores, node and GPU "
                 "jobs spread them at their per-node count; default) or 'nodes' (k nodes)");
  app.add_option("--theoretical-hours", o.theoretical_hours, "auction generator: work in hours");
  std::string scheduler_help = "schedulers DISCIPLINE[/PRIORITY], comma-separated; disciplines: ";
  for (const std::string& n : psched::sim::DisciplineNames()) scheduler_help += n + " ";
  scheduler_help += "; priorities: ";
  for (const std::string& n : psched::sim::PriorityNamesForSim()) scheduler_help += n + " ";
  app.add_option("--scheduler", o.schedulers, scheduler_help)->delimiter(',');
  app.add_option("--interval", o.interval_s,
                 "seconds between scheduling rounds (0: at every event)");
  app.add_option("--config", o.config_path,
                 "an admin's psched.toml: its [allocator.*] (netload, auction, ipwindow) and "
                 "[priority] settings replace the built-in defaults, the flags below still "
                 "override them; which discipline and priority run is --scheduler's choice");
  app.add_option("--window", o.window,
                 "queued jobs a window allocator sees per round (default 100, the auction "
                 "paper's; with --config the file's auction and ipwindow windows)");
  app.add_option("--queue-depth", o.queue_depth,
                 "fcfs/easy: queued jobs considered per round, from the head (SLURM's "
                 "bf_max_job_test; 0: the whole queue, the default)");
  app.add_option("--bids-per-job", o.bids_per_job, "auction: MAXBIDSPERJOB (paper Table 5: 5)");
  app.add_option("--solver-time-limit", o.solver_time_limit_s,
                 "auction/ipwindow: CBC seconds per round (paper: 5)");
  app.add_option("--solver-clock", o.solver_clock,
                 "auction/ipwindow: what the solver limit counts: wall (as in the daemon and "
                 "the papers) or cpu (results independent of machine load)")
      ->check(CLI::IsMember({"wall", "cpu"}));
  app.add_option("--multifactor-age-weight", o.multifactor_age_weight,
                 "multifactor priority: weight per minute waited (default 1)")
      ->check(psched::NonNegative());
  app.add_option("--multifactor-size-weight", o.multifactor_size_weight,
                 "multifactor priority: weight of a whole-machine job, scaled by the job's "
                 "share of the cores (default 10080: a week of waiting)")
      ->check(psched::NonNegative());
  app.add_option("--multifactor-max-age", o.multifactor_max_age_s,
                 "multifactor priority: seconds after which age stops counting (SLURM's "
                 "PriorityMaxAge; default 0: never)")
      ->check(psched::NonNegative());
  app.add_flag("--no-baseline-bids", o.no_baseline_bids,
               "auction: no SLURM best-fit bids (paper Table 8)");
  app.add_flag("--contiguous-bids-only", o.contiguous_bids_only,
               "auction: only contiguous bids (types A, B), as if every job asked for "
               "contiguity (paper Table 8, 'contigonly')");
  app.add_option("-j,--jobs", o.jobs, "simulations run in parallel");
  app.add_option("--table", o.table, "table layout: auction, ip or psp");
  app.add_option("--json", o.json_path, "write the summaries as JSON here");
  app.add_option("--csv-dir", o.csv_dir, "write one per-job CSV per run here");
  app.add_option("--svg", o.svg_path, "write utilisation and waiting-time CDF (SVG) here");
  app.add_flag("-q,--quiet", o.quiet, "no progress lines");
  std::string allocation;
  app.add_option("--allocation", allocation,
                 "allocation mode: replay the sessions of this JSON spec inside one allocation "
                 "through pschedd's leader, once per policy (docs/sim/allocation.md)");
  app.name("psched-sim");
  app.footer(
      "Examples:\n"
      "  psched-sim --swf data/traces/KTH-SP2-1996-2.1-cln.swf.gz --scheduler easy,easy/psp+aging\n"
      "  psched-sim --auction all --machine S --seeds 7 --scheduler easy,auction -j2\n"
      "  psched-sim --esp --esp-modified --scheduler easy,ipwindow --table ip\n"
      "  psched-sim --allocation docs/sim/djsb_4x40.json\n"
      "Nothing runs for real: jobs start and end on a virtual clock (docs/sim/README.md).\n\n"
      "Exit status: 0 the table was printed; 2 a bad option, trace or config (the message\n"
      "says which, with file:line for a trace); 1 the simulation itself failed.");
  if (auto code = psched::ParseCommandLine(app, "psched-sim", argc, argv)) return *code;
  if (!allocation.empty()) return psched::sim::RunAllocationCommand(allocation);
  return psched::sim::Run(o);
}

}  // namespace

int main(int argc, char** argv) {
  return psched::GuardedMain("psched-sim", [&] { return RunCommand(argc, argv); });
}
