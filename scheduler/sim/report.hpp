// Output people can read: per-job CSV, summary JSON, tables laid out like the papers',
// and an SVG with utilisation over time and the waiting-time CDF per scheduler.
// Pure: every function returns text; the CLI writes it where the user asked.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "scheduler/sim/metrics.hpp"
#include "scheduler/sim/workload.hpp"

namespace psched::sim {

struct RunReport {
  Summary summary;
  uint64_t seed = 0;
  const std::vector<JobRecord>* records = nullptr;  // for CSV/SVG; may be null
};

std::string JobsCsv(const std::vector<JobRecord>& records);

nlohmann::json SummaryJson(const Summary& summary);

// {"total", "runtime_le_0", "no_processors", "too_wide", "below_min_cores"}: what the
// trace reader left out.
nlohmann::json SkippedJson(const SkippedRecords& skipped);

enum class TableStyle {
  kAuction,  // auction paper Tables 5-8: per workload version and method, averaged over seeds
  kIp,       // IP paper Tables 6-7: per experiment, wait (h) / slowdown / utilisation / packing
  kPsp,      // PSP paper Tables 5-6: average wait (minutes), ratio to the first scheduler, makespan
};
Result<TableStyle> ParseTableStyle(const std::string& name);

// A markdown table over `runs`, grouped by (workload, scheduler) in first-seen order and
// averaged over the runs of a group (seeds). "± x" is the per-run standard deviation over
// jobs, averaged over the group's runs, as the auction paper reports it.
std::string FormatTable(const std::vector<RunReport>& runs, TableStyle style);

// Two panels side by side: busy fraction of the machine over time (binned), and the CDF of
// waiting times, one line per run. Runs should share a workload.
std::string UtilisationAndWaitSvg(const std::vector<RunReport>& runs, const Machine& machine,
                                  const std::string& title);

}  // namespace psched::sim
