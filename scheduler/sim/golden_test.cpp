// Decisions pinned byte for byte: psched-sim's per-job CSV (start, nodes, fragmentation,
// ... of every job) for EASY with best fit on KTH-SP2, the auction workloads and ESP,
// against CSVs written by psched-sim --csv-dir (tests/golden/sim/README.md says how).
// A change that makes the scheduler faster must leave every one of them unchanged.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "scheduler/sim/generators.hpp"
#include "scheduler/sim/report.hpp"
#include "scheduler/sim/scheduler_spec.hpp"
#include "scheduler/sim/swf_file.hpp"

namespace psched::sim {
namespace {

const std::string kGoldenDir = PSCHED_SIM_GOLDEN_DIR;

// Runs `workload` under plain EASY (best fit, arrival order) as psched-sim does.
std::string EasyCsv(const Workload& workload) {
  auto spec = ParseSchedulerSpec("easy");
  EXPECT_TRUE(spec);
  auto parts = BuildScheduler(*spec, {}, {});
  EXPECT_TRUE(parts);
  Result<SimResult> r = Simulate(workload, (*parts)->setup);
  EXPECT_TRUE(r) << r.error().ToString();
  return r ? JobsCsv(r->records) : "";
}

// Equal, or the first line that differs (a whole 3 MB diff helps nobody).
void ExpectSameCsv(const std::string& actual, const std::string& golden_file) {
  Result<std::string> golden = ReadMaybeGzip(kGoldenDir + "/" + golden_file);
  ASSERT_TRUE(golden) << golden.error().ToString();
  if (actual == *golden) return;
  std::istringstream a(actual), g(*golden);
  std::string la, lg;
  for (int line = 1;; ++line) {
    const bool more_a = static_cast<bool>(std::getline(a, la));
    const bool more_g = static_cast<bool>(std::getline(g, lg));
    if (!more_a && !more_g) break;
    if (la != lg || more_a != more_g) {
      ADD_FAILURE() << golden_file << ":" << line
                    << " differs\n  golden: " << (more_g ? lg : "(end)")
                    << "\n  now:    " << (more_a ? la : "(end)");
      return;
    }
  }
  ADD_FAILURE() << golden_file << ": differs";
}

TEST(SimGolden, KthSp2Easy) {
  Result<Workload> w = ReadSwfFile(PSCHED_KTH_TRACE);
  ASSERT_TRUE(w) << w.error().ToString();
  ExpectSameCsv(EasyCsv(*w), "kth-sp2.easy.csv.gz");
}

// The generators' workloads at psched-sim's defaults (seed 1, Machine-S, 4 h of work):
// contiguous requests (.2, .3), node and GPU jobs (III..V), -N jobs (sizing by nodes).
TEST(SimGolden, AuctionWorkloadsEasy) {
  struct Case {
    int kind, version;
    AuctionJobSizing sizing;
    const char* file;
  };
  for (const Case& c : {Case{1, 2, AuctionJobSizing::kByCores, "auction-I.2.easy.csv.gz"},
                        Case{2, 2, AuctionJobSizing::kByCores, "auction-II.2.easy.csv.gz"},
                        Case{3, 2, AuctionJobSizing::kByCores, "auction-III.2.easy.csv.gz"},
                        Case{4, 2, AuctionJobSizing::kByCores, "auction-IV.2.easy.csv.gz"},
                        Case{5, 3, AuctionJobSizing::kByCores, "auction-V.3.easy.csv.gz"},
                        Case{5, 2, AuctionJobSizing::kByNodes, "auction-V.2-nodes.easy.csv.gz"}}) {
    SCOPED_TRACE(c.file);
    AuctionWorkloadSpec spec;
    spec.kind = c.kind;
    spec.version = c.version;
    spec.sizing = c.sizing;
    Result<Workload> w = MakeAuctionWorkload(spec);
    ASSERT_TRUE(w) << w.error().ToString();
    ExpectSameCsv(EasyCsv(*w), c.file);
  }
}

TEST(SimGolden, EspEasy) {
  for (bool modified : {false, true}) {
    EspWorkloadSpec spec;
    spec.modified_sizes = modified;
    Result<Workload> w = MakeEspWorkload(spec);
    ASSERT_TRUE(w) << w.error().ToString();
    ExpectSameCsv(EasyCsv(*w), modified ? "esp-modified.easy.csv.gz" : "esp.easy.csv.gz");
  }
}

}  // namespace
}  // namespace psched::sim
