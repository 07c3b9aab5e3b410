// Seconds as a double (config values, plan timeouts, a grace sent by the leader) to the
// timeval libevent's timers take, written once. Out-of-range doubles are undefined
// behaviour to convert to time_t, so the value is clamped first.
#pragma once

#include <sys/time.h>

#include <cmath>

namespace psched {

// NaN and negatives give 0 (fire at once); more than a year is held at a year.
inline timeval TimevalFromSeconds(double seconds) {
  constexpr double kMax = 365.0 * 24 * 3600;
  if (!(seconds > 0)) return timeval{0, 0};
  if (seconds > kMax) seconds = kMax;
  const double whole = std::floor(seconds);
  auto usec = static_cast<suseconds_t>(std::lround((seconds - whole) * 1e6));
  auto sec = static_cast<time_t>(whole);
  if (usec >= 1000000) {  // 0.9999997 rounds up to a whole second
    ++sec;
    usec -= 1000000;
  }
  return timeval{sec, usec};
}

}  // namespace psched
