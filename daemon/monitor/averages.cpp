#include "daemon/monitor/averages.hpp"

#include <cmath>

namespace psched::daemon::monitor {
namespace {

double Damp(double average, double sample, double dt_s, double period_s) {
  double keep = std::exp(-dt_s / period_s);
  return average * keep + sample * (1.0 - keep);
}

}  // namespace

Averages Advance(Averages avg, double sample, double dt_s) {
  if (!avg.primed) return {sample, sample, sample, true};
  if (dt_s <= 0) return avg;
  avg.m1 = Damp(avg.m1, sample, dt_s, 60);
  avg.m5 = Damp(avg.m5, sample, dt_s, 300);
  avg.m15 = Damp(avg.m15, sample, dt_s, 900);
  return avg;
}

}  // namespace psched::daemon::monitor
