// Waiting in tests: poll a condition with a generous deadline, never sleep a guess.
#pragma once

#include <functional>

struct event_base;

namespace psched::testing {

// Polls `cond` (every 10 ms) until it holds or `seconds` pass; returns whether it held.
bool Eventually(const std::function<bool()>& cond, double seconds = 20);

// The same for in-process daemons: turns `base` (without blocking, 200 us apart) until
// `cond` holds or `seconds` pass; returns whether it held.
bool TurnUntil(event_base* base, const std::function<bool()>& cond, double seconds);

}  // namespace psched::testing
