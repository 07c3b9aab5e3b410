// psched-cosched's script reader (scheduler/leader/replay.hpp) on any text: each event
// read and stepped through the leader (its policies, rounds, failures), the plans printed,
// or an error naming the script and the event's field; never a crash, a sanitizer report
// or a hang. The same script prints the same text twice: the policy golden tests diff it.
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "scheduler/leader/replay.hpp"

namespace {

// Allocations of at most this many slots: the reader takes up to 4096 x 4096, whose
// every step copies 16 M slot counts, seconds an input that find nothing a small one
// would not. The golden scripts have 4 to 16.
constexpr long kMaxSlots = 256;

bool Small(std::string_view text) {
  const nlohmann::json script = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!script.is_object()) return true;  // the reader's error, at once
  const auto nodes = script.find("nodes");
  const auto cores = script.find("cores");
  if (nodes == script.end() || cores == script.end() || !nodes->is_number_integer() ||
      !cores->is_number_integer())
    return true;
  const long n = nodes->get<long>();
  const long c = cores->get<long>();
  return n <= kMaxSlots && c <= kMaxSlots && n * c <= kMaxSlots;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (!Small(text)) return -1;  // not kept in the corpus
  auto printed = psched::sched::leader::ReplayScript(text, "fuzz.events");
  if (!printed) {
    // "<script>: <json path>: <what>"
    const std::string& message = printed.error().message();
    if (message.rfind("fuzz.events: ", 0) != 0 || message.size() <= 13) std::abort();
    return 0;
  }
  if (printed->rfind("allocation ", 0) != 0) std::abort();
  auto again = psched::sched::leader::ReplayScript(text, "fuzz.events");
  if (!again || *again != *printed) std::abort();
  return 0;
}
