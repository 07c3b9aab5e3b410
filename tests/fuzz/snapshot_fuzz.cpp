// The snapshot JSON psched-place reads (scheduler/tools/snapshot_json.hpp) on any text:
// values, or an error naming the JSON path, never a crash or an exception.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "scheduler/tools/snapshot_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto input = psched::sched::place::ParseSnapshot(text, "fuzz.json");
  if (!input && input.error().message().empty()) std::abort();
  return 0;
}
