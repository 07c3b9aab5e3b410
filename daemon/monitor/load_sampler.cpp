#include "daemon/monitor/load_sampler.hpp"

#include <fstream>
#include <sstream>
#include <string>

namespace psched::daemon::monitor {
namespace {

Result<std::string> Slurp(const char* path) {
  std::ifstream in(path);
  if (!in) return Fail(Error::FromErrno("open", std::string("reading ") + path));
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

}  // namespace

LoadSampler::LoadSampler(std::vector<int> cpus) : cpus_(std::move(cpus)) {
  if (auto info = Slurp("/proc/cpuinfo")) clock_mhz_ = ParseCpuMhz(*info);
}

Result<void> LoadSampler::Sample(double now_s) {
  auto mem_text = Slurp("/proc/meminfo");
  if (!mem_text) return Fail(mem_text.error());
  auto mem = ParseMeminfo(*mem_text);
  if (!mem) return Fail(mem.error());
  memory_ = *mem;
  auto stat_text = Slurp("/proc/stat");
  if (!stat_text) return Fail(stat_text.error());
  auto times = ParseProcStat(*stat_text, cpus_);
  if (!times) return Fail(times.error());
  if (have_times_) {
    double u = Utilisation(times_, *times);
    double dt = now_s - last_s_;
    utilisation_ = Advance(utilisation_, u, dt);
    load_ = Advance(load_, u * static_cast<double>(cpus_.size()), dt);
  }
  have_times_ = true;
  times_ = *times;
  last_s_ = now_s;
  return {};
}

}  // namespace psched::daemon::monitor
