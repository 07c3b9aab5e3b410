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
//    than the machine has. Skipped records are counted per reason (SkippedRecords), never
//    silently lost; with `strict` the first one is an error "source:line: ...";
//  - every other record is a job, whatever its status (failed and cancelled-while-running
//    jobs held their nodes too).
//  - a record with fewer than 18 fields or a non-number field is an error "source:line: ...";
//  - a text with nothing in it (or only blanks) is an error "source: the file is empty",
//    one with only comments "source: no job records".
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
  // A record the reader would skip for a defect (runtime <= 0, no processor count, wider
  // than the machine) is an error naming source:line. min_cores is a choice, not a defect:
  // what it drops is still only counted.
  bool strict = false;
};

// "9 skipped: 9 with runtime <= 0, 0 without a processor count, 0 wider than the machine
// (100 cores)": the reader's account, for people.
std::string DescribeSkipped(const SkippedRecords& skipped, const Machine& machine);

// `source` names the text in error messages (the file name).
Result<Workload> ParseSwf(std::string_view text, const std::string& source,
                          const SwfOptions& options = {});

}  // namespace psched::sim
