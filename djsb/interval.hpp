// How far a scenario's repeated D can be trusted: the median of the repeats and a 95%
// confidence interval, the rule that stops repeating, and whether two scenarios differ.
//
// The interval is Student's t interval of the mean, mean +- t(0.975, n-1) s / sqrt(n), with
// the quantile from Boost.Math. It needs only two repeats; a distribution-free interval of
// the median (order statistics) needs six before any 95% interval exists, more than a
// four-minute demo affords. Pure: numbers in, numbers out.
#pragma once

#include <vector>

namespace psched::djsb {

struct Interval {
  int n = 0;
  double median = 0;
  double lo = 0, hi = 0;  // equal to the median while n < 2: no interval yet
  bool Known() const { return n >= 2; }
};

// The median and the `level` confidence interval of the values' mean.
Interval ConfidenceInterval(const std::vector<double>& values, double level = 0.95);

// The stopping rule: the interval is known and lies within +-relative x |median| of the
// median on both sides.
bool TightEnough(const Interval& interval, double relative);

// Both intervals are known and do not overlap.
bool Apart(const Interval& a, const Interval& b);

}  // namespace psched::djsb
