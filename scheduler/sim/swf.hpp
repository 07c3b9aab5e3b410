// Standard Workload Format (Parallel Workloads Archive) parsing.
//
// Pure: parses text already in memory. Reading a (gzip) file is swf_file.hpp's job.
//
// Choices, for traces as they are (documented in docs/sim/README.md too):
//  - ';' lines are header comments; "MaxNodes: N" and "MaxProcs: P" give the machine
//    (N nodes of P/N cores; without MaxNodes, P nodes of 1 core).
//  - a job's cores are field 5 (allocated processors), or field 8 (requested) when 5 is -1:
//    the trace's allocation is what the job really occupied;
//  - its estimate is field 9 (requested time), or its runtime when that is -1;
//  - a record with runtime <= 0 or no processor count is skipped (jobs cancelled
//    before they started, which occupied nothing); so is a record asking for more cores
//    than the machine has. Skipped records are counted, never silently lost;
//  - every other record is a job, whatever its status (failed and cancelled-while-running
//    jobs held their nodes too).
//  - a record with fewer than 18 fields or a non-number field is an error "source:line: ...".
#pragma once

#include <string>
#include <string_view>

#include "common/error.hpp"
#include "scheduler/sim/workload.hpp"

namespace psched::sim {

struct SwfOptions {
  int nodes = 0;           // >0: override the header's machine
  int cores_per_node = 0;  // >0: override
  int gpus_per_node = 0;
  int max_jobs = 0;  // >0: keep only the first max_jobs jobs
  // >0: skip (and count) jobs with fewer cores; the PSP paper kept "only jobs that use
  // more than one core" (min_cores = 2).
  int min_cores = 0;
};

// `source` names the text in error messages (the file name).
Result<Workload> ParseSwf(std::string_view text, const std::string& source,
                          const SwfOptions& options = {});

}  // namespace psched::sim
