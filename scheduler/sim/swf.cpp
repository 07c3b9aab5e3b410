#include "scheduler/sim/swf.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <utility>

namespace psched::sim {

namespace {

constexpr int kSwfFields = 18;

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::optional<double> ParseNumber(std::string_view s) {
  double v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

// "; MaxNodes: 100" -> 100 when the comment names `key`.
std::optional<int> HeaderValue(std::string_view comment, std::string_view key) {
  comment = Trim(comment.substr(1));
  if (!comment.starts_with(key)) return std::nullopt;
  comment = Trim(comment.substr(key.size()));
  if (!comment.starts_with(':')) return std::nullopt;
  comment = Trim(comment.substr(1));
  size_t end = comment.find_first_of(" \t");
  auto v = ParseNumber(comment.substr(0, end));
  // Beyond int no machine is that large, and the cast would be undefined: not a header.
  if (!v || *v <= 0 || *v > std::numeric_limits<int>::max()) return std::nullopt;
  return static_cast<int>(*v);
}

// The fields read as integers (job number, processors allocated and requested, user):
// their index and what they are, for the error when one is beyond int.
constexpr std::array<std::pair<int, const char*>, 4> kIntegerFields = {
    {{0, "job number"}, {4, "allocated processors"}, {7, "requested processors"}, {11, "user"}}};

// "-5" for -5.0, "12.5" for 12.5: a trace's number as it was written.
std::string FormatNumber(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

}  // namespace

std::string DescribeSkipped(const SkippedRecords& s, const Machine& machine) {
  std::string out = std::to_string(s.Total()) + " skipped: " + std::to_string(s.no_runtime) +
                    " with runtime <= 0, " + std::to_string(s.no_processors) +
                    " without a processor count, " + std::to_string(s.too_wide) +
                    " wider than the machine (" + std::to_string(machine.TotalCores()) + " cores)";
  if (s.below_min_cores > 0) out += ", " + std::to_string(s.below_min_cores) + " below --min-cores";
  return out;
}

Result<Workload> ParseSwf(std::string_view text, const std::string& source,
                          const SwfOptions& options) {
  Workload w;
  w.name = source;
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
    return Fail(ErrorCode::kInvalidArgument, source + ": the file is empty");
  int max_nodes = 0, max_procs = 0;
  std::vector<SimJob> jobs;
  std::vector<int> lines;  // each job's line, for --strict's errors
  int records = 0;
  size_t pos = 0;
  int line_no = 0;
  auto at = [&](int line) { return source + ":" + std::to_string(line) + ": "; };
  const std::string refused = " (--strict refuses records it would skip)";
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = Trim(text.substr(pos, eol - pos));
    pos = eol + 1;
    ++line_no;
    if (line.empty()) continue;
    if (line.front() == ';') {
      if (auto v = HeaderValue(line, "MaxNodes")) max_nodes = *v;
      if (auto v = HeaderValue(line, "MaxProcs")) max_procs = *v;
      continue;
    }
    std::array<double, kSwfFields> f{};
    int n = 0;
    size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
      if (i == line.size()) break;
      size_t j = i;
      while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
      std::string_view field = line.substr(i, j - i);
      if (n >= kSwfFields) {
        return Fail(ErrorCode::kInvalidArgument,
                    source + ":" + std::to_string(line_no) + ": more than 18 fields");
      }
      auto v = ParseNumber(field);
      if (!v) {
        return Fail(ErrorCode::kInvalidArgument,
                    source + ":" + std::to_string(line_no) + ": field " + std::to_string(n + 1) +
                        " is not a number: '" + std::string(field) + "'");
      }
      f[n++] = *v;
      i = j;
    }
    if (n != kSwfFields) {
      return Fail(ErrorCode::kInvalidArgument, source + ":" + std::to_string(line_no) +
                                                   ": expected 18 fields, found " +
                                                   std::to_string(n));
    }
    for (auto [k, what] : kIntegerFields) {
      if (std::fabs(f[k]) > std::numeric_limits<int>::max()) {
        return Fail(ErrorCode::kInvalidArgument, at(line_no) + "field " + std::to_string(k + 1) +
                                                     " (" + what +
                                                     ") is out of range: " + FormatNumber(f[k]));
      }
    }
    ++records;
    const double runtime = f[3];
    const int procs = static_cast<int>(f[4] > 0 ? f[4] : f[7]);
    if (runtime <= 0 || procs <= 0) {
      if (options.strict) {
        return Fail(ErrorCode::kInvalidArgument,
                    at(line_no) + "job " + FormatNumber(f[0]) +
                        (runtime <= 0 ? " has runtime " + FormatNumber(runtime) + " (<= 0)"
                                      : " has no processor count (fields 5 and 8)") +
                        refused);
      }
      ++(runtime <= 0 ? w.skipped.no_runtime : w.skipped.no_processors);
      continue;
    }
    SimJob job;
    job.request.id = static_cast<sched::SessionId>(f[0]);
    job.request.ranks = procs;
    job.request.submit_time = f[1];
    job.request.estimate_s = f[8] > 0 ? f[8] : runtime;
    job.runtime_s = runtime;
    job.logged_wait_s = f[2] >= 0 ? f[2] : -1;
    job.user = static_cast<int>(f[11]);
    job.request.owner = job.user >= 0 ? OwnerName(job.user) : "";
    jobs.push_back(std::move(job));
    lines.push_back(line_no);
  }
  if (records == 0) return Fail(ErrorCode::kInvalidArgument, source + ": no job records");

  Machine& m = w.machine;
  if (max_nodes > 0) {
    m.nodes = max_nodes;
    m.cores_per_node = std::max(1, max_procs / max_nodes);
  } else {
    m.nodes = max_procs;
    m.cores_per_node = 1;
  }
  if (options.nodes > 0) m.nodes = options.nodes;
  if (options.cores_per_node > 0) m.cores_per_node = options.cores_per_node;
  m.gpus_per_node = options.gpus_per_node;
  if (m.nodes <= 0) {
    return Fail(
        ErrorCode::kInvalidArgument,
        source + ": no machine size: the header has no MaxNodes/MaxProcs and none was given");
  }
  if (Result<void> sized = CheckMachineSize(m, source); !sized) return Fail(sized.error());

  // Filtered in file order (so --strict names the first such line), then sorted stably
  // by submission: the same jobs in the same order as sorting first.
  size_t kept = 0;
  for (size_t k = 0; k < jobs.size(); ++k) {
    const int ranks = jobs[k].request.ranks;
    if (ranks > m.TotalCores()) {
      if (options.strict) {
        return Fail(ErrorCode::kInvalidArgument,
                    at(lines[k]) + "job " + std::to_string(jobs[k].request.id) + " asks for " +
                        std::to_string(ranks) + " cores, the machine has " +
                        std::to_string(m.TotalCores()) + refused);
      }
      ++w.skipped.too_wide;
      continue;
    }
    if (ranks < options.min_cores) {
      ++w.skipped.below_min_cores;
      continue;
    }
    if (kept != k) jobs[kept] = std::move(jobs[k]);
    ++kept;
  }
  jobs.resize(kept);
  std::stable_sort(jobs.begin(), jobs.end(), [](const SimJob& a, const SimJob& b) {
    return a.request.submit_time < b.request.submit_time;
  });
  if (options.max_jobs > 0 && static_cast<int>(jobs.size()) > options.max_jobs)
    jobs.resize(options.max_jobs);
  w.jobs = std::move(jobs);
  if (w.jobs.empty()) {
    return Fail(ErrorCode::kInvalidArgument, source + ": no runnable job in the trace (" +
                                                 std::to_string(records) + " records, " +
                                                 DescribeSkipped(w.skipped, m) + ")");
  }
  // The simulation's clock starts at the first submission.
  const double t0 = w.jobs.front().request.submit_time;
  for (SimJob& job : w.jobs) job.request.submit_time -= t0;
  return w;
}

}  // namespace psched::sim
