// psched-sim's speed where it matters: the CPU seconds EASY with best fit takes on
// KTH-SP2 (100 nodes) and on a trace of LANL-CM5's shape (1024 nodes, 122,055 jobs),
// and how that cost grows with the machine at a fixed job count (128, 1024, 8192 nodes).
// CPU time of this process (CLOCK_PROCESS_CPUTIME_ID), not wall time: the machine is
// shared, and the load average it had is printed beside the figures.
//
//   build/bin/sim_scale [--kth TRACE] [--jobs N] [--repeat R] [--load L] [--swf-out FILE]
//   [--scaling-only]
// --swf-out writes the 1024-node trace as SWF (for psched-sim or another simulator).
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "scheduler/sim/generators.hpp"
#include "scheduler/sim/scheduler_spec.hpp"
#include "scheduler/sim/swf_file.hpp"

namespace psched::sim {
namespace {

double CpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

std::string LoadAverage() {
  std::ifstream f("/proc/loadavg");
  std::string one, five;
  f >> one >> five;
  return one + " (1 min), " + five + " (5 min)";
}

struct Measured {
  double cpu_s = 0;  // the least of the repetitions
  double mean_wait_s = 0;
};

Measured Measure(const Workload& w, int repeat) {
  Measured m{1e300, 0};
  for (int k = 0; k < repeat; ++k) {
    auto parts = BuildScheduler(*ParseSchedulerSpec("easy"), {}, {});
    const double begin = CpuSeconds();
    Result<SimResult> r = Simulate(w, (*parts)->setup);
    const double spent = CpuSeconds() - begin;
    if (!r) {
      std::fprintf(stderr, "sim_scale: %s\n", r.error().ToString().c_str());
      std::exit(1);
    }
    m.cpu_s = std::min(m.cpu_s, spent);
    m.mean_wait_s = r->summary.wait_s.mean;
  }
  return m;
}

void Row(const char* what, const Workload& w, const Measured& m) {
  std::printf("| %s | %d | %zu | %.3f | %.0f | %.0f |\n", what, w.machine.nodes, w.jobs.size(),
              m.cpu_s, static_cast<double>(w.jobs.size()) / m.cpu_s, m.mean_wait_s);
}

void WriteSwf(const Workload& w, const std::string& path) {
  std::ofstream f(path);
  f << "; LANL-CM5-shaped trace from psched's bench/sim/sim_scale (not LANL's jobs)\n"
    << "; MaxNodes: " << w.machine.nodes << "\n; MaxProcs: " << w.machine.TotalCores() << "\n";
  for (const SimJob& j : w.jobs) {
    f << j.request.id << ' ' << j.request.submit_time << " -1 " << j.runtime_s << ' '
      << j.request.ranks << " -1 -1 " << j.request.ranks << ' ' << j.request.estimate_s << " -1 1 "
      << j.user << " 1 -1 -1 -1 -1 -1\n";
  }
  if (!f.flush()) {
    std::fprintf(stderr, "sim_scale: cannot write %s: %s\n", path.c_str(), std::strerror(errno));
    std::exit(1);
  }
}

Workload Lanl(int nodes, int jobs, double load) {
  LanlShapedSpec spec;
  spec.nodes = nodes;
  spec.jobs = jobs;
  spec.load = load;
  Result<Workload> w = MakeLanlShapedWorkload(spec);
  if (!w) {
    std::fprintf(stderr, "sim_scale: %s\n", w.error().ToString().c_str());
    std::exit(2);
  }
  return std::move(*w);
}

int Main(int argc, char** argv) {
  std::string kth = PSCHED_SIM_BENCH_TRACE, swf_out;
  int jobs = 30000, repeat = 3;
  double load = LanlShapedSpec{}.load;
  bool scaling_only = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 < argc && a == "--kth") {
      kth = argv[++i];
    } else if (i + 1 < argc && a == "--jobs") {
      jobs = std::atoi(argv[++i]);
    } else if (i + 1 < argc && a == "--repeat") {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--scaling-only") {
      scaling_only = true;
    } else if (i + 1 < argc && a == "--load") {
      load = std::atof(argv[++i]);
    } else if (i + 1 < argc && a == "--swf-out") {
      swf_out = argv[++i];
    } else {
      std::fprintf(stderr,
                   "usage: sim_scale [--kth TRACE] [--jobs N] [--repeat R] "
                   "[--load L] [--swf-out FILE] [--scaling-only]\n");
      return 2;
    }
  }
  std::printf(
      "EASY with best fit; CPU-s of this process, least of %d runs; load average "
      "before: %s on %ld CPUs\n\n",
      repeat, LoadAverage().c_str(), sysconf(_SC_NPROCESSORS_ONLN));
  std::printf(
      "| workload | nodes | jobs | CPU-s | jobs per CPU-s | mean wait (s) |\n"
      "|---|---|---|---|---|---|\n");
  if (!scaling_only) {
    Result<Workload> k = ReadSwfFile(kth);
    if (!k) {
      std::fprintf(stderr, "sim_scale: %s\n", k.error().ToString().c_str());
      return 2;
    }
    Row("KTH-SP2", *k, Measure(*k, repeat));
    const Workload lanl = Lanl(1024, 122055, load);
    if (!swf_out.empty()) WriteSwf(lanl, swf_out);
    Row("LANL-CM5-shaped", lanl, Measure(lanl, repeat));
  }
  std::printf("\nScaling at %d jobs (widths nodes/32 .. nodes, the same offered load):\n\n", jobs);
  std::printf(
      "| workload | nodes | jobs | CPU-s | jobs per CPU-s | mean wait (s) |\n"
      "|---|---|---|---|---|---|\n");
  for (int nodes : {128, 1024, 8192}) {
    const Workload w = Lanl(nodes, jobs, load);
    Row("LANL-CM5-shaped", w, Measure(w, repeat));
  }
  std::printf("\nload average after: %s\n", LoadAverage().c_str());
  return 0;
}

}  // namespace
}  // namespace psched::sim

int main(int argc, char** argv) {
  return psched::sim::Main(argc, argv);
}
