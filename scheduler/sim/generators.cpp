#include "scheduler/sim/generators.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

namespace psched::sim {

namespace {

enum class JobType { kCores, kNodes, kOneGpu, kTwoGpus };

// Table 4 of the auction paper: shares of the four job types per workload.
JobType DrawType(int kind, std::mt19937_64& rng) {
  static constexpr double kShares[5][4] = {
      {1.0, 0.0, 0.0, 0.0},
      {0.0, 1.0, 0.0, 0.0},
      {0.5, 0.5, 0.0, 0.0},
      {0.4, 0.4, 0.2, 0.0},
      {1.0 / 3, 1.0 / 3, 1.0 / 6, 1.0 / 6},
  };
  std::discrete_distribution<int> d(std::begin(kShares[kind - 1]), std::end(kShares[kind - 1]));
  return static_cast<JobType>(d(rng));
}

const char* RomanNumeral(int kind) {
  static constexpr const char* kNames[] = {"I", "II", "III", "IV", "V"};
  return kNames[kind - 1];
}

}  // namespace

Result<Machine> AuctionMachine(char size) {
  switch (size) {
    case 'S':
    case 's':
      return Machine{128, 8, 2};
    case 'M':
    case 'm':
      return Machine{256, 8, 2};
    case 'L':
    case 'l':
      return Machine{1024, 8, 2};
  }
  return Fail(ErrorCode::kInvalidArgument,
              std::string("unknown auction machine '") + size + "' (valid: S, M, L)");
}

Result<Workload> MakeAuctionWorkload(const AuctionWorkloadSpec& spec) {
  if (spec.kind < 1 || spec.kind > 5) {
    return Fail(ErrorCode::kInvalidArgument,
                "auction workload must be I..V (1..5), got " + std::to_string(spec.kind));
  }
  if (spec.version < 1 || spec.version > 3) {
    return Fail(ErrorCode::kInvalidArgument,
                "auction workload version must be 1, 2 or 3, got " + std::to_string(spec.version));
  }
  const Machine& m = spec.machine;
  if (m.nodes <= 0 || m.cores_per_node < 8 || m.gpus_per_node < 2) {
    return Fail(ErrorCode::kInvalidArgument,
                "auction workloads need nodes > 0 with at least 8 cores and 2 GPUs each");
  }
  if (spec.max_nodes_per_job < 1 || spec.max_nodes_per_job > m.nodes) {
    return Fail(ErrorCode::kInvalidArgument,
                "max nodes per job must be in 1.." + std::to_string(m.nodes));
  }
  std::mt19937_64 rng(spec.seed);
  std::uniform_real_distribution<double> runtime(spec.min_runtime_s, spec.max_runtime_s);
  std::uniform_int_distribution<int> node_count(1, spec.max_nodes_per_job);
  std::bernoulli_distribution half(0.5);

  Workload w;
  w.name = std::string(RomanNumeral(spec.kind)) + "." + std::to_string(spec.version);
  w.machine = m;
  double work = 0;
  const double target = spec.theoretical_runtime_s * m.TotalCores();
  for (sched::SessionId id = 1; work < target; ++id) {
    SimJob job;
    sched::SessionRequest& r = job.request;
    r.id = id;
    r.owner = OwnerName(id % 16);
    const int k = node_count(rng);
    const int cores = k * m.cores_per_node;
    const JobType type = DrawType(spec.kind, rng);
    if (type == JobType::kCores) {
      r.ranks = cores;
    } else {
      if (type == JobType::kNodes) {
        r.ppn = half(rng) ? 4 : 8;
      } else {
        // 1 or 2 GPUs per node by type, 1 or 2 cores per GPU.
        r.gpus_per_node = type == JobType::kOneGpu ? 1 : 2;
        r.ppn = r.gpus_per_node * (half(rng) ? 1 : 2);
      }
      // ppn divides cores_per_node (4 or 8 of 8; 1, 2 or 4 GPU cores), so nodes is whole;
      // it can exceed the machine only when max_nodes_per_job x cores_per_node does.
      r.nodes = spec.sizing == AuctionJobSizing::kByCores ? std::min(cores / r.ppn, m.nodes) : k;
      r.ranks = r.nodes * r.ppn;
    }
    job.runtime_s = std::round(runtime(rng));  // whole seconds, like `sleep N` jobs
    r.estimate_s = job.runtime_s;
    r.contiguous = spec.version == 3 || (spec.version == 2 && half(rng));
    work += job.runtime_s * r.SlotsNeeded();
    w.jobs.push_back(std::move(job));
  }
  return w;
}

namespace {

struct EspClass {
  char name;
  double fraction;
  int count;
  double runtime_s;
};

// ip-scheduler-ipsched.txt Table 4 (ESP-2).
constexpr EspClass kEspClasses[] = {
    {'A', 0.03125, 75, 257}, {'B', 0.06250, 9, 341},  {'C', 0.50000, 3, 536},
    {'D', 0.25000, 3, 601},  {'E', 0.50000, 3, 312},  {'F', 0.06250, 9, 1846},
    {'G', 0.12500, 6, 1321}, {'H', 0.15820, 6, 1078}, {'I', 0.03125, 24, 1438},
    {'J', 0.06250, 24, 715}, {'K', 0.09570, 15, 495}, {'L', 0.12500, 36, 369},
    {'M', 0.25000, 15, 192},
};
constexpr EspClass kEspZ = {'Z', 1.0, 2, 100};
constexpr int kEspInitialRelease = 50;
constexpr double kEspZSubmitMin[] = {80 * 60.0, 240 * 60.0};

}  // namespace

Result<Workload> MakeEspWorkload(const EspWorkloadSpec& spec) {
  const Machine& m = spec.machine;
  if (m.nodes <= 0 || m.cores_per_node <= 0)
    return Fail(ErrorCode::kInvalidArgument, "ESP workload needs nodes > 0 and cores > 0");
  if (spec.gpu_copies && m.gpus_per_node < 2)
    return Fail(ErrorCode::kInvalidArgument, "ESP GPU copies need 2 GPUs per node");
  if (spec.mean_interarrival_s <= 0 || spec.interarrival_stddev_s < 0)
    return Fail(ErrorCode::kInvalidArgument, "ESP inter-arrival mean must be > 0, stddev >= 0");
  std::mt19937_64 rng(spec.seed);
  std::uniform_int_distribution<int> jitter(-4, 4);
  const int total = m.TotalCores();
  auto cores_of = [&](double fraction) {
    int cores = static_cast<int>(std::lround(total * fraction));
    if (spec.modified_sizes) cores += jitter(rng);
    return std::clamp(cores, 1, total);
  };

  std::vector<SimJob> pool;
  for (const EspClass& c : kEspClasses) {
    for (int i = 0; i < c.count; ++i) {
      for (int copy = 0; copy < (spec.gpu_copies ? 2 : 1); ++copy) {
        SimJob job;
        job.request.command = std::string(1, c.name) + (copy ? "-gpu" : "");
        job.request.ranks = cores_of(c.fraction);
        job.request.gpus_per_node = copy ? 2 : 0;
        job.runtime_s = c.runtime_s;
        job.request.estimate_s = c.runtime_s;
        pool.push_back(std::move(job));
      }
    }
  }
  std::shuffle(pool.begin(), pool.end(), rng);

  const int scale = spec.gpu_copies ? 2 : 1;
  const int initial = std::min<int>(kEspInitialRelease * scale, static_cast<int>(pool.size()));
  std::normal_distribution<double> gap(spec.mean_interarrival_s, spec.interarrival_stddev_s);
  double t = 0;
  for (size_t i = 0; i < pool.size(); ++i) {
    if (static_cast<int>(i) >= initial) t += std::max(0.0, gap(rng));
    pool[i].request.submit_time = t;
  }
  for (int z = 0; z < kEspZ.count; ++z) {
    SimJob job;
    job.request.command = "Z";
    job.request.ranks = total;  // full configuration, never jittered past the machine
    job.runtime_s = kEspZ.runtime_s;
    job.request.estimate_s = kEspZ.runtime_s;
    job.request.submit_time = std::max(kEspZSubmitMin[z] * (spec.double_z_times ? 2 : 1), t);
    pool.push_back(std::move(job));
  }

  Workload w;
  w.name = spec.modified_sizes ? "esp-modified" : "esp";
  w.machine = m;
  w.jobs = std::move(pool);
  std::stable_sort(w.jobs.begin(), w.jobs.end(), [](const SimJob& a, const SimJob& b) {
    return a.request.submit_time < b.request.submit_time;
  });
  sched::SessionId id = 1;
  for (SimJob& job : w.jobs) {
    job.request.id = id++;
    job.request.owner = OwnerName(job.request.id % 16);
  }
  return w;
}

Result<Workload> MakeLanlShapedWorkload(const LanlShapedSpec& spec) {
  if (spec.nodes < 32 || (spec.nodes & (spec.nodes - 1)) != 0) {
    return Fail(ErrorCode::kInvalidArgument,
                "LANL-shaped machine: nodes must be a power of two >= 32, got " +
                    std::to_string(spec.nodes));
  }
  if (spec.jobs < 1) return Fail(ErrorCode::kInvalidArgument, "LANL-shaped: jobs must be >= 1");
  if (!(spec.load > 0)) return Fail(ErrorCode::kInvalidArgument, "LANL-shaped: load must be > 0");
  std::mt19937_64 rng(spec.seed);
  static constexpr double kWidthShares[] = {45, 25, 15, 8, 5, 2};
  std::discrete_distribution<int> width_step(std::begin(kWidthShares), std::end(kWidthShares));
  std::lognormal_distribution<double> estimate(std::log(1800.0), 1.6);
  std::bernoulli_distribution overruns(1.0 / 3);
  std::uniform_real_distribution<double> unit(0, 1);
  Workload w;
  w.name = "lanl-shaped-" + std::to_string(spec.nodes);
  w.machine = Machine{spec.nodes, 1, 0};
  double work = 0;
  for (int k = 0; k < spec.jobs; ++k) {
    SimJob job;
    sched::SessionRequest& r = job.request;
    r.id = k + 1;
    r.ranks = (spec.nodes / 32) << width_step(rng);
    r.estimate_s = std::max(60.0, std::round(std::min(estimate(rng), 7 * 86400.0)));
    const double u = unit(rng);
    const double runtime = overruns(rng) ? r.estimate_s * (1 + 2 * u) : r.estimate_s * u * u;
    job.runtime_s = std::max(1.0, std::round(runtime));
    job.user = static_cast<int>(k % 97);
    r.owner = OwnerName(job.user);
    work += job.runtime_s * r.ranks;
    w.jobs.push_back(std::move(job));
  }
  // Poisson arrivals whose span makes the work `load` of the machine.
  const double mean_gap = work / (spec.load * spec.nodes) / spec.jobs;
  std::exponential_distribution<double> gap(1 / mean_gap);
  double t = 0;
  for (SimJob& job : w.jobs) {
    job.request.submit_time = t;
    t += std::round(gap(rng));
  }
  return w;
}

}  // namespace psched::sim
