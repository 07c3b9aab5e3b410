#include "djsb/interaction.hpp"

#include <algorithm>
#include <cmath>

#include "djsb/metrics.hpp"

namespace psched::djsb {

double Percentile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  const auto n = static_cast<double>(values.size());
  const auto rank = static_cast<size_t>(std::ceil(p / 100.0 * n));
  return values[std::clamp<size_t>(rank, 1, values.size()) - 1];
}

InteractionSummary SummarizeInteractions(const std::vector<InteractionRecord>& records) {
  InteractionSummary s;
  std::vector<double> all;
  for (const InteractionRecord& r : records) {
    s.asked += r.asked;
    s.completed += r.completed;
    all.insert(all.end(), r.latencies_s.begin(), r.latencies_s.end());
    if (s.error.empty() && !r.error.empty()) s.error = r.error;
  }
  s.latencies = static_cast<int>(all.size());
  if (!all.empty()) {
    s.median_s = Median(all);
    s.p95_s = Percentile(all, 95);
  }
  return s;
}

}  // namespace psched::djsb
