// Exponentially damped 1/5/15-minute averages, as the kernel computes its load
// average but for any sampled quantity and any sample spacing. Pure.
#pragma once

namespace psched::daemon::monitor {

struct Averages {
  double m1 = 0, m5 = 0, m15 = 0;
  bool primed = false;  // false until the first sample
};

// Folds `sample`, taken `dt_s` seconds after the previous one, into `avg`: each
// average moves towards the sample by 1 - exp(-dt/period). The first sample sets
// all three (a freshly started daemon reports the present rather than a ramp from
// zero that would take minutes). dt_s <= 0 keeps the averages.
Averages Advance(Averages avg, double sample, double dt_s);

}  // namespace psched::daemon::monitor
