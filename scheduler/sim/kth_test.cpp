// Pins the SWF reader and the simulator to KTH-SP2 facts that no scheduler changes.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "scheduler/sim/scheduler_spec.hpp"
#include "scheduler/sim/swf_file.hpp"

namespace psched::sim {
namespace {

class KthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // The trace is in the repository (data/traces/): missing means a broken checkout.
    ASSERT_TRUE(std::filesystem::exists(PSCHED_KTH_TRACE)) << "no " << PSCHED_KTH_TRACE;
  }
};

// Figures from the trace itself (awk over the 18 fields): 28,476 records, 8 with runtime 0
// and 1 without a processor count, 2,016,591,520 core-seconds, submissions spanning 28,763,768 s.
constexpr int kJobs = 28467;
constexpr double kWork = 2016591520.0;
constexpr double kSubmitSpan = 29363618.0 - 599850.0;
constexpr int kPrefixJobs = 6000;

TEST_F(KthTest, TraceFacts) {
  Result<Workload> w = ReadSwfFile(PSCHED_KTH_TRACE);
  ASSERT_TRUE(w) << w.error().ToString();
  EXPECT_EQ(w->machine.nodes, 100);
  EXPECT_EQ(w->machine.cores_per_node, 1);
  EXPECT_EQ(static_cast<int>(w->jobs.size()), kJobs);
  EXPECT_EQ(w->skipped.Total(), 28476 - kJobs);
  EXPECT_EQ(w->skipped.no_runtime, 8);     // runtime 0 (lines 2476, 4370, ...)
  EXPECT_EQ(w->skipped.no_processors, 1);  // line 27323: -1 in fields 5 and 8
  EXPECT_DOUBLE_EQ(TotalWork(*w), kWork);
  EXPECT_DOUBLE_EQ(w->jobs.back().request.submit_time, kSubmitSpan);
  // The trace's own waits (EASY in production), kept for the comparison: 15,291 s on average.
  double logged = 0;
  for (const SimJob& j : w->jobs) logged += j.logged_wait_s;
  EXPECT_NEAR(logged / kJobs, 15291.209, 0.01);
}

// A trace whose gzip stream was cut short (an interrupted download or copy) is refused
// with what happened, not replayed as if its jobs were all the trace had: zlib reads a
// cut stream as a clean end. The whole trace cut in half, and without its 8-byte trailer.
TEST_F(KthTest, TruncatedGzipTraceIsRefused) {
  std::ifstream in(PSCHED_KTH_TRACE, std::ios::binary);
  const std::string whole((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(whole.size(), 1000u);
  const auto dir = std::filesystem::temp_directory_path();
  const std::string cut = (dir / ("psched-cut-" + std::to_string(getpid()) + ".swf.gz")).string();
  for (size_t keep : {whole.size() / 2, whole.size() - 8}) {
    std::ofstream(cut, std::ios::binary) << whole.substr(0, keep);
    Result<Workload> w = ReadSwfFile(cut);
    ASSERT_FALSE(w) << "read " << w->jobs.size() << " jobs from " << keep << " bytes";
    EXPECT_NE(w.error().message().find("gzip stream is truncated"), std::string::npos)
        << w.error().ToString();
  }
  std::filesystem::remove(cut);
  EXPECT_TRUE(ReadSwfFile(PSCHED_KTH_TRACE));
}

// The whole replay is bench/sim's (a Debug build takes ~15 s); the first 6000 jobs here.
TEST_F(KthTest, EasyReplayKeepsWorkAndTheUtilisationBound) {
  SwfOptions prefix;
  prefix.max_jobs = kPrefixJobs;
  Result<Workload> w = ReadSwfFile(PSCHED_KTH_TRACE, prefix);
  ASSERT_TRUE(w);
  const double work = TotalWork(*w);
  const double span = w->jobs.back().request.submit_time;
  auto spec = ParseSchedulerSpec("easy");
  auto parts = BuildScheduler(*spec, {}, {});
  ASSERT_TRUE(parts);
  Result<SimResult> r = Simulate(*w, (*parts)->setup);
  ASSERT_TRUE(r) << r.error().ToString();
  const Summary& s = r->summary;
  EXPECT_EQ(s.jobs, kPrefixJobs);
  EXPECT_EQ(s.rejected, 0);
  EXPECT_DOUBLE_EQ(s.theoretical_runtime_s, work / 100);
  // Runtime is at least the submission span, so utilisation is at most work / (100 x span).
  EXPECT_GE(s.makespan_s, span);
  EXPECT_LE(s.utilisation, work / (100 * span));
  EXPECT_GT(s.utilisation, 0.5 * work / (100 * span));
  for (const JobRecord& j : r->records) EXPECT_GE(j.start, j.submit);
}

}  // namespace
}  // namespace psched::sim
