#include "daemon/monitor/load_sampler.hpp"

#include <string>

#include "common/read_file.hpp"

namespace psched::daemon::monitor {
namespace {

Result<std::string> ReadProc(const std::string& path) {
  return ReadWholeFile(path, "reading " + path);
}

}  // namespace

LoadSampler::LoadSampler(std::vector<int> cpus) : cpus_(std::move(cpus)) {
  if (auto info = ReadProc("/proc/cpuinfo")) clock_mhz_ = ParseCpuMhz(*info);
}

Result<void> LoadSampler::Sample(double now_s) {
  auto mem_text = ReadProc("/proc/meminfo");
  if (!mem_text) return Fail(mem_text.error());
  auto mem = ParseMeminfo(*mem_text);
  if (!mem) return Fail(mem.error());
  memory_ = *mem;
  auto stat_text = ReadProc("/proc/stat");
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
