// The Standard Workload Format reader (scheduler/sim/swf.hpp) on any text, with the
// options psched-sim passes picked by the first byte: a workload or an error naming
// source:line, never a crash.
#include <cstdint>
#include <cstdlib>

#include "scheduler/sim/swf.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  psched::fuzz::Input in(data, size);
  const uint8_t shape = in.Byte();
  psched::sim::SwfOptions options;
  options.strict = (shape & 1) != 0;
  options.min_cores = (shape & 2) != 0 ? 2 : 0;
  options.max_jobs = (shape & 4) != 0 ? 3 : 0;
  if ((shape & 8) != 0) {
    options.nodes = 4;
    options.cores_per_node = 2;
  }
  auto workload = psched::sim::ParseSwf(in.Rest(), "fuzz.swf", options);
  if (!workload && workload.error().message().empty()) std::abort();  // errors say what
  return 0;
}
