// The interactive djsb's figures (stream_interaction.hpp): what each analysis reported of
// its pulls from the simulation, and their summary per scenario. Pure.
#pragma once

#include <string>
#include <vector>

namespace psched::djsb {

// One analysis's pulls: psched-stream's "interactions" object.
struct InteractionRecord {
  int asked = 0;
  int completed = 0;
  std::vector<double> latencies_s;  // request to reply, per completed pull
  std::string error;                // why some did not complete
};

// Over every analysis of every repeat of a scenario.
struct InteractionSummary {
  int asked = 0;
  int completed = 0;
  int latencies = 0;
  double median_s = 0;  // of all latencies; 0 when there is none
  double p95_s = 0;     // nearest-rank 95th percentile
  std::string error;    // the first analysis's reason for an incomplete pull, if any
  bool all_completed() const { return asked > 0 && completed == asked; }
};

InteractionSummary SummarizeInteractions(const std::vector<InteractionRecord>& records);

// Nearest-rank percentile (p in (0, 100]) of a non-empty list.
double Percentile(std::vector<double> values, double p);

}  // namespace psched::djsb
