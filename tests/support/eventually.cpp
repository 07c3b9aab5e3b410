#include "tests/support/eventually.hpp"

#include <event2/event.h>

#include <chrono>
#include <thread>

namespace psched::testing {

bool Eventually(const std::function<bool()>& cond, double seconds) {
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!cond()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

bool TurnUntil(event_base* base, const std::function<bool()>& cond, double seconds) {
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!cond() && std::chrono::steady_clock::now() < end) {
    event_base_loop(base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return cond();
}

}  // namespace psched::testing
