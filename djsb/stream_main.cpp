// psched-stream: the synthetic application of djsb, an MPI + OpenMP STREAM.
//
// Canonical STREAM kernels (Copy c=a, Scale b=s*c, Add c=a+b, Triad a=b+s*c) over
// arrays of N doubles split across the ranks, each kernel timed between barriers,
// the first iteration skipped, bandwidth = 1e-6 * bytes / min-time MB/s.
// Rank 0 records wall-clock (CLOCK_REALTIME) begin and end so the orchestrator can
// compare them with the submit time it recorded before calling the launcher.
#include <mpi.h>
#include <omp.h>
#include <time.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/command_line.hpp"
#include "common/guarded_main.hpp"
#include "djsb/stream_interaction.hpp"
#include "djsb/stream_protocol.hpp"

namespace psched::djsb {
namespace {

constexpr double kScalar = 3.0;  // STREAM's scalar
constexpr int kKernels = 4;
constexpr std::array<const char*, kKernels> kKernelNames = {"copy", "scale", "add", "triad"};
constexpr std::array<int, kKernels> kArraysTouched = {2, 2, 3, 3};

struct StreamOptions {
  int64_t array_size = 2'000'000;  // total N over all ranks
  int iterations = 10;
  std::string tag;  // opaque label so the orchestrator can find this session's processes
  // The interactive djsb (stream_interaction.hpp): serve slices under this name (the
  // simulation), or pull `pulls` slices of `slice` doubles from it (an analysis).
  std::string serve, interact;
  int pulls = 5;
  int64_t slice = 4096;
};

double WallClock() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Canonical STREAM validation: replay the scalar recurrence and compare the average
// absolute error of each array against epsilon (1e-13 for doubles).
bool Validate(const std::vector<double>& a, const std::vector<double>& b,
              const std::vector<double>& c, int64_t n_total, int iterations, MPI_Comm comm,
              std::string* why) {
  double aj = 1.0, bj = 2.0, cj = 0.0;
  aj = 2.0 * aj;  // the initial timing pass of canonical STREAM
  for (int k = 0; k < iterations; ++k) {
    cj = aj;
    bj = kScalar * cj;
    cj = aj + bj;
    aj = bj + kScalar * cj;
  }
  std::array<double, 3> local_err = {0, 0, 0};
  for (size_t j = 0; j < a.size(); ++j) {
    local_err[0] += std::fabs(a[j] - aj);
    local_err[1] += std::fabs(b[j] - bj);
    local_err[2] += std::fabs(c[j] - cj);
  }
  std::array<double, 3> err = {0, 0, 0};
  MPI_Allreduce(local_err.data(), err.data(), 3, MPI_DOUBLE, MPI_SUM, comm);
  const std::array<double, 3> expected = {aj, bj, cj};
  const char* names = "abc";
  bool ok = true;
  for (int i = 0; i < 3; ++i) {
    double avg = err[i] / static_cast<double>(n_total);
    if (std::fabs(avg / expected[i]) > 1e-13) {
      ok = false;
      *why += std::string("array ") + names[i] + " average relative error " +
              std::to_string(std::fabs(avg / expected[i])) + " exceeds 1e-13; ";
    }
  }
  return ok;
}

int RunStream(const StreamOptions& opt, MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);

  MPI_Barrier(comm);
  const double begin = WallClock();

  // Split N over the ranks; the first N % size ranks take one more element.
  const int64_t base = opt.array_size / size;
  const int64_t n = base + (rank < opt.array_size % size ? 1 : 0);
  std::vector<double> a(n), b(n), c(n);
#pragma omp parallel for schedule(static)
  for (int64_t j = 0; j < n; ++j) {
    a[j] = 1.0;
    b[j] = 2.0;
    c[j] = 0.0;
  }
  // Canonical STREAM doubles a once before the timed loop (its timer-granularity pass).
#pragma omp parallel for schedule(static)
  for (int64_t j = 0; j < n; ++j) a[j] = 2.0 * a[j];

  std::array<double, kKernels> min_time;
  min_time.fill(std::numeric_limits<double>::max());
  std::array<double, kKernels> sum_time{};
  // Rank 0 talks to the other sessions (MPI_COMM_SELF): the other ranks keep computing.
  SliceServer server;
  std::optional<std::string> not_serving;
  std::optional<SlicePuller> puller;
  if (rank == 0 && !opt.serve.empty()) not_serving = server.Open(opt.serve);
  if (rank == 0 && !opt.interact.empty())
    puller.emplace(opt.interact, opt.tag + "." + std::to_string(getpid()), opt.pulls, opt.slice);
  double* pa = a.data();
  double* pb = b.data();
  double* pc = c.data();
  for (int k = 0; k < opt.iterations; ++k) {
    if (puller) puller->MaybePull(k, opt.iterations);
    std::array<double, kKernels> t{};
    for (int kernel = 0; kernel < kKernels; ++kernel) {
      MPI_Barrier(comm);
      const double t0 = MPI_Wtime();
      switch (kernel) {
        case 0:
#pragma omp parallel for schedule(static)
          for (int64_t j = 0; j < n; ++j) pc[j] = pa[j];
          break;
        case 1:
#pragma omp parallel for schedule(static)
          for (int64_t j = 0; j < n; ++j) pb[j] = kScalar * pc[j];
          break;
        case 2:
#pragma omp parallel for schedule(static)
          for (int64_t j = 0; j < n; ++j) pc[j] = pa[j] + pb[j];
          break;
        case 3:
#pragma omp parallel for schedule(static)
          for (int64_t j = 0; j < n; ++j) pa[j] = pb[j] + kScalar * pc[j];
          break;
      }
      MPI_Barrier(comm);
      t[kernel] = MPI_Wtime() - t0;
    }
    // Ranks' clocks differ slightly: the slowest rank's time is the kernel's time.
    std::array<double, kKernels> tmax{};
    MPI_Allreduce(t.data(), tmax.data(), kKernels, MPI_DOUBLE, MPI_MAX, comm);
    // After the reduction every rank has finished iteration k: report the progress.
    if (rank == 0) {
      std::printf("%s %s %d %.6f\n", kStreamIterationMarker, opt.tag.c_str(), k + 1, WallClock());
      std::fflush(stdout);
      server.Serve(a);
    }
    if (k == 0) continue;  // the first iteration is skipped, as in STREAM
    for (int kernel = 0; kernel < kKernels; ++kernel) {
      min_time[kernel] = std::min(min_time[kernel], tmax[kernel]);
      sum_time[kernel] += tmax[kernel];
    }
  }

  std::optional<PullReport> pulled;
  if (puller) pulled = puller->Finish();
  std::string why;
  const bool valid = Validate(a, b, c, opt.array_size, opt.iterations, comm, &why);
  MPI_Barrier(comm);
  const double end = WallClock();

  if (rank == 0) {
    nlohmann::json out;
    out["program"] = "psched-stream";
    out["tag"] = opt.tag;
    out["begin"] = begin;
    out["end"] = end;
    out["ranks"] = size;
    out["threads"] = omp_get_max_threads();
    out["array_size"] = opt.array_size;
    out["iterations"] = opt.iterations;
    out["valid"] = valid;
    if (!valid) out["validation_error"] = why;
    if (!opt.serve.empty()) {
      out["served"] = server.served();
      if (not_serving) out["serving_error"] = *not_serving;
    }
    if (pulled) {
      out["interactions"] = {{"asked", pulled->asked},
                             {"completed", pulled->completed},
                             {"latencies_s", pulled->latencies_s}};
      if (!pulled->error.empty()) out["interactions"]["error"] = pulled->error;
    }
    for (int kernel = 0; kernel < kKernels; ++kernel) {
      const double bytes = static_cast<double>(kArraysTouched[kernel]) * sizeof(double) *
                           static_cast<double>(opt.array_size);
      nlohmann::json k;
      k["mb_per_s"] = 1e-6 * bytes / min_time[kernel];
      k["min_s"] = min_time[kernel];
      k["avg_s"] = sum_time[kernel] / (opt.iterations - 1);
      out["kernels"][kKernelNames[kernel]] = k;
    }
    std::printf("%s\n", out.dump().c_str());
    std::fflush(stdout);
    if (!valid) std::fprintf(stderr, "psched-stream: validation failed: %s\n", why.c_str());
    // Analyses still connected are answered until they are done; the simulation's end
    // time above is its computation's.
    server.Close(a);
  }
  return valid ? 0 : 3;
}

}  // namespace
}  // namespace psched::djsb

namespace {

int RunCommand(int argc, char** argv) {
  psched::djsb::StreamOptions opt;
  CLI::App app{
      "psched-stream: MPI + OpenMP STREAM (Copy, Scale, Add, Triad) for djsb.\n"
      "Prints one JSON line on rank 0 with wall-clock begin/end and MB/s per kernel.\n"
      "Threads per rank come from OMP_NUM_THREADS."};
  app.add_option("-n,--array-size", opt.array_size, "total doubles per array, split over ranks")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  app.add_option("-i,--iterations", opt.iterations, "iterations (the first is not timed)")
      ->check(CLI::Range(2, 1'000'000));
  app.add_option("--tag", opt.tag, "label echoed in the JSON and visible in /proc/PID/cmdline");
  app.add_option("--serve", opt.serve,
                 "publish a port under this name and serve slices of the arrays to analyses "
                 "between iterations (the interactive djsb's simulation)");
  auto* interact = app.add_option("--interact", opt.interact,
                                  "pull slices from the simulation serving under this name "
                                  "(the interactive djsb's analysis)");
  app.add_option("--pulls", opt.pulls, "with --interact: how many slices, spread over the run")
      ->check(CLI::Range(1, 1'000'000))
      ->needs(interact);
  app.add_option("--slice", opt.slice, "with --interact: doubles per slice")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 24))
      ->needs(interact);
  // Parse before MPI_Init so --help and bad options work without a launcher.
  if (auto code = psched::ParseCommandLine(app, "psched-stream", argc, argv)) return *code;
  int provided = 0;
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    std::fprintf(stderr, "psched-stream: MPI_Init_thread failed\n");
    return 2;
  }
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (opt.array_size < size) {
    if (rank == 0)
      std::fprintf(stderr, "psched-stream: --array-size %lld is smaller than the %d ranks\n",
                   static_cast<long long>(opt.array_size), size);
    MPI_Finalize();
    return 1;
  }
  int rc = psched::djsb::RunStream(opt, MPI_COMM_WORLD);
  MPI_Finalize();
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  return psched::GuardedMain("psched-stream", [&] { return RunCommand(argc, argv); });
}
