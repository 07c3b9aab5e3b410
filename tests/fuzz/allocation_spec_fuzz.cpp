// psched-sim's allocation spec (scheduler/sim/allocation_spec.hpp) on any text: a spec
// within its bounds, or an error naming the field, never a crash, a cast out of range or
// a stream that eats the memory.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "scheduler/sim/allocation_spec.hpp"

namespace {

bool WithinBounds(const psched::sim::AllocationSpec& spec) {
  using namespace psched::sim;
  if (spec.nodes < 1 || spec.nodes > kMaxNodes) return false;
  if (spec.pus_per_node < 1 || spec.pus_per_node > kMaxPusPerNode) return false;
  if (spec.policies.empty() || !(spec.round_s > 0) || !std::isfinite(spec.round_s)) return false;
  if (spec.sessions.empty() || spec.sessions.size() > kMaxSessions) return false;
  for (const AllocationSession& s : spec.sessions) {
    if (s.ranks < 1 || !(s.runtime_s > 0) || !std::isfinite(s.runtime_s)) return false;
    if (!(s.submit_s >= 0) || !std::isfinite(s.submit_s)) return false;
    if (!(s.estimate_s >= 0) || !std::isfinite(s.estimate_s)) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto spec = psched::sim::ParseAllocationSpec(text);
  if (spec) {
    if (!WithinBounds(*spec)) std::abort();
    return 0;
  }
  // Errors say what, after the file's kind: "allocation spec: <json path>: <what>".
  const std::string& message = spec.error().message();
  if (message.rfind("allocation spec: ", 0) != 0 || message.size() <= 17) std::abort();
  return 0;
}
