#include "djsb/interval.hpp"

#include <boost/math/distributions/students_t.hpp>
#include <cmath>

#include "djsb/metrics.hpp"

namespace psched::djsb {

Interval ConfidenceInterval(const std::vector<double>& values, double level) {
  Interval out;
  out.n = static_cast<int>(values.size());
  out.median = Median(values);
  out.lo = out.hi = out.median;
  if (out.n < 2) return out;
  double mean = 0;
  for (double v : values) mean += v;
  mean /= out.n;
  double ss = 0;
  for (double v : values) ss += (v - mean) * (v - mean);
  const double sd = std::sqrt(ss / (out.n - 1));
  const boost::math::students_t dist(out.n - 1);
  const double t = boost::math::quantile(boost::math::complement(dist, (1 - level) / 2));
  const double half = t * sd / std::sqrt(static_cast<double>(out.n));
  out.lo = mean - half;
  out.hi = mean + half;
  return out;
}

bool TightEnough(const Interval& interval, double relative) {
  if (!interval.Known()) return false;
  const double allowed = relative * std::fabs(interval.median);
  return interval.hi - interval.median <= allowed && interval.median - interval.lo <= allowed;
}

bool Apart(const Interval& a, const Interval& b) {
  return a.Known() && b.Known() && (a.lo > b.hi || b.lo > a.hi);
}

}  // namespace psched::djsb
