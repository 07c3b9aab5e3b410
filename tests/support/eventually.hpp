// Waiting in tests: poll a condition with a generous deadline, never sleep a guess.
#pragma once

#include <functional>

namespace psched::testing {

// Polls `cond` (every 10 ms) until it holds or `seconds` pass; returns whether it held.
bool Eventually(const std::function<bool()>& cond, double seconds = 20);

}  // namespace psched::testing
