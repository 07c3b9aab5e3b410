#include "scheduler/sim/swf.hpp"

#include <gtest/gtest.h>

namespace psched::sim {
namespace {

constexpr const char* kTrace =
    "; Version: 2.2\n"
    "; MaxNodes: 4\n"
    "; MaxProcs: 8\n"
    "  1   10  5  100  4 -1 -1  4  200 -1 1  3 1 -1 -1 -1 -1 -1\n"
    "  2    0 -1   50 -1 -1 -1  2   -1 -1 0  4 1 -1 -1 -1 -1 -1\n"  // procs from field 8, no
                                                                    // estimate
    "  3   20  0    0  2 -1 -1  2   60 -1 5  3 1 -1 -1 -1 -1 -1\n"  // cancelled before running
    "  4   30  0   10 16 -1 -1 16   60 -1 1  3 1 -1 -1 -1 -1 -1\n"  // bigger than the machine
    "\n";

TEST(SwfTest, ParsesJobsMachineAndChoices) {
  Result<Workload> w = ParseSwf(kTrace, "t.swf");
  ASSERT_TRUE(w) << w.error().ToString();
  EXPECT_EQ(w->machine.nodes, 4);
  EXPECT_EQ(w->machine.cores_per_node, 2);
  ASSERT_EQ(w->jobs.size(), 2u);
  EXPECT_EQ(w->skipped.Total(), 2);
  EXPECT_EQ(w->skipped.no_runtime, 1);
  EXPECT_EQ(w->skipped.too_wide, 1);
  // Sorted by submit, clock starting at the first submission.
  EXPECT_EQ(w->jobs[0].request.id, 2);
  EXPECT_EQ(w->jobs[0].request.submit_time, 0);
  EXPECT_EQ(w->jobs[0].request.ranks, 2);
  EXPECT_EQ(w->jobs[0].request.estimate_s, 50);  // no estimate: the runtime
  EXPECT_EQ(w->jobs[0].logged_wait_s, -1);
  EXPECT_EQ(w->jobs[1].request.id, 1);
  EXPECT_EQ(w->jobs[1].request.submit_time, 10);
  EXPECT_EQ(w->jobs[1].request.ranks, 4);
  EXPECT_EQ(w->jobs[1].request.estimate_s, 200);
  EXPECT_EQ(w->jobs[1].runtime_s, 100);
  EXPECT_EQ(w->jobs[1].logged_wait_s, 5);
  EXPECT_EQ(w->jobs[1].user, 3);
  EXPECT_DOUBLE_EQ(TotalWork(*w), 2 * 50 + 4 * 100);
}

TEST(SwfTest, OptionsOverrideMachineAndLimitJobs) {
  SwfOptions o;
  o.nodes = 8;
  o.cores_per_node = 1;
  o.max_jobs = 1;
  Result<Workload> w = ParseSwf(kTrace, "t.swf", o);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->machine.nodes, 8);
  EXPECT_EQ(w->machine.cores_per_node, 1);
  EXPECT_EQ(w->jobs.size(), 1u);
}

// A machine larger than psched-sim models is refused with its size, not overflowed: 2^20
// nodes of 2^12 PUs would wrap an int's count of PUs to 0.
TEST(SwfTest, AMachineBeyondTheModelledSizeIsRefused) {
  SwfOptions o;
  o.nodes = 1 << 20;
  o.cores_per_node = 1 << 12;
  Result<Workload> w = ParseSwf(kTrace, "t.swf", o);
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().message(),
            "t.swf: 1048576 nodes x 4096 PUs is more than psched-sim models (268435456 PUs)");
  o.nodes = 65536;  // the largest allowed: 65,536 x 4,096
  EXPECT_TRUE(ParseSwf(kTrace, "t.swf", o));
}

// The PSP paper's instances keep only parallel jobs: min_cores drops (and counts) the rest.
TEST(SwfTest, MinCoresSkipsSmallerJobs) {
  SwfOptions o;
  o.min_cores = 3;
  Result<Workload> w = ParseSwf(kTrace, "t.swf", o);
  ASSERT_TRUE(w);
  ASSERT_EQ(w->jobs.size(), 1u);
  EXPECT_EQ(w->jobs[0].request.id, 1);  // 4 cores; job 2 (2 cores) is skipped
  EXPECT_EQ(w->skipped.Total(), 3);
  EXPECT_EQ(w->skipped.below_min_cores, 1);
  EXPECT_EQ(w->jobs[0].request.submit_time, 0);  // the clock starts at the first kept job
}

TEST(SwfTest, NoHeaderMeansProcsAsNodes) {
  Result<Workload> w =
      ParseSwf("; MaxProcs: 3\n1 0 0 5 1 -1 -1 1 5 -1 1 1 1 -1 -1 -1 -1 -1\n", "x");
  ASSERT_TRUE(w);
  EXPECT_EQ(w->machine.nodes, 3);
  EXPECT_EQ(w->machine.cores_per_node, 1);
}

TEST(SwfTest, MalformedLinesNameFileAndLine) {
  Result<Workload> w = ParseSwf("; MaxProcs: 4\n1 0 0 5 1\n", "a.swf");
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().message(), "a.swf:2: expected 18 fields, found 5");
  w = ParseSwf("; MaxProcs: 4\n\n1 0 0 5x 1 -1 -1 1 5 -1 1 1 1 -1 -1 -1 -1 -1\n", "b.swf");
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().message(), "b.swf:3: field 4 is not a number: '5x'");
  w = ParseSwf("1 0 0 5 1 -1 -1 1 5 -1 1 1 1 -1 -1 -1 -1 -1 7\n", "c.swf");
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().message(), "c.swf:1: more than 18 fields");
}

// Numbers beyond int where the reader keeps ints: casting them was undefined (UBSan in
// swf_fuzz: "4.66667e+43 is outside the range of representable values of type 'int'",
// from a MaxProcs header). A header that large names no machine; a record's field is an
// error naming the line and the field.
TEST(SwfTest, IntegersBeyondIntAreRefusedNotCast) {
  Result<Workload> w = ParseSwf(
      "; MaxProcs: 46666666666666666666666666666666666666666666\n; MaxProcs: 4\n"
      "1 0 0 5 1 -1 -1 1 5 -1 1 1 1 -1 -1 -1 -1 -1\n",
      "h.swf");
  ASSERT_TRUE(w) << w.error().ToString();
  EXPECT_EQ(w->machine.nodes, 4);
  w = ParseSwf("; MaxProcs: 4\n1 0 0 5 1e44 -1 -1 1 5 -1 1 1 1 -1 -1 -1 -1 -1\n", "p.swf");
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().message(), "p.swf:2: field 5 (allocated processors) is out of range: 1e+44");
  w = ParseSwf("; MaxProcs: 4\n1 0 0 5 1 -1 -1 1 5 -1 1 -3e9 1 -1 -1 -1 -1 -1\n", "u.swf");
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().message(), "u.swf:2: field 12 (user) is out of range: -3000000000");
}

TEST(SwfTest, NoMachineOrNoJobsIsAnError) {
  Result<Workload> w = ParseSwf("1 0 0 5 1 -1 -1 1 5 -1 1 1 1 -1 -1 -1 -1 -1\n", "c.swf");
  ASSERT_FALSE(w);
  EXPECT_NE(w.error().message().find("no machine size"), std::string::npos);
  w = ParseSwf("; MaxProcs: 4\n", "d.swf");
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().message(), "d.swf: no job records");
  w = ParseSwf("; MaxProcs: 4\n1 0 0 -1 1 -1 -1 1 5 -1 1 1 1 -1 -1 -1 -1 -1\n", "e.swf");
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().message(),
            "e.swf: no runnable job in the trace (1 records, 1 skipped: 1 with runtime <= 0, 0 "
            "without a processor count, 0 wider than the machine (4 cores))");
}

TEST(SwfTest, AnEmptyFileIsCalledEmpty) {
  for (const char* text : {"", "\n\n", "  \t\r\n"}) {
    Result<Workload> w = ParseSwf(text, "empty.swf");
    ASSERT_FALSE(w);
    EXPECT_EQ(w.error().message(), "empty.swf: the file is empty");
  }
}

// Each reason a record is left out is counted apart, each record once (its first reason).
TEST(SwfTest, SkippedRecordsAreCountedPerReason) {
  const char* text =
      "; MaxNodes: 2\n; MaxProcs: 4\n"
      "1 0 0 -5 2 -1 -1  2 9 -1 1 1 1 -1 -1 -1 -1 -1\n"   // negative runtime
      "2 0 0  0 2 -1 -1  2 9 -1 1 1 1 -1 -1 -1 -1 -1\n"   // zero runtime
      "3 0 0 -1 -1 -1 -1 -1 9 -1 1 1 1 -1 -1 -1 -1 -1\n"  // both: counted as runtime
      "4 0 0 10 -1 -1 -1 -1 9 -1 1 1 1 -1 -1 -1 -1 -1\n"  // no processors
      "5 0 0 10 8 -1 -1  8 9 -1 1 1 1 -1 -1 -1 -1 -1\n"   // wider than 4 cores
      "6 0 0 10 1 -1 -1  1 9 -1 1 1 1 -1 -1 -1 -1 -1\n"   // below --min-cores 2
      "7 0 0 10 4 -1 -1  4 9 -1 1 1 1 -1 -1 -1 -1 -1\n";  // runs
  SwfOptions o;
  o.min_cores = 2;
  Result<Workload> w = ParseSwf(text, "s.swf", o);
  ASSERT_TRUE(w) << w.error().ToString();
  ASSERT_EQ(w->jobs.size(), 1u);
  EXPECT_EQ(w->skipped.no_runtime, 3);
  EXPECT_EQ(w->skipped.no_processors, 1);
  EXPECT_EQ(w->skipped.too_wide, 1);
  EXPECT_EQ(w->skipped.below_min_cores, 1);
  EXPECT_EQ(w->skipped.Total(), 6);
  EXPECT_EQ(DescribeSkipped(w->skipped, w->machine),
            "6 skipped: 3 with runtime <= 0, 1 without a processor count, 1 wider than the "
            "machine (4 cores), 1 below --min-cores");
}

// --strict: the first record that would be skipped is an error naming its line.
TEST(SwfTest, StrictRefusesWhatItWouldSkipNamingTheLine) {
  SwfOptions strict;
  strict.strict = true;
  const std::string header = "; MaxNodes: 2\n; MaxProcs: 4\n";
  const std::string good = "1 0 0 10 2 -1 -1 2 9 -1 1 1 1 -1 -1 -1 -1 -1\n";
  Result<Workload> w =
      ParseSwf(header + good + "2 5 0 -17 2 -1 -1 2 9 -1 1 1 1 -1 -1 -1 -1 -1\n", "n.swf", strict);
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().message(),
            "n.swf:4: job 2 has runtime -17 (<= 0) (--strict refuses records it would skip)");
  w = ParseSwf(header + good + "3 5 0 10 -1 -1 -1 -1 9 -1 1 1 1 -1 -1 -1 -1 -1\n", "p.swf", strict);
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().message(),
            "p.swf:4: job 3 has no processor count (fields 5 and 8) (--strict refuses records it "
            "would skip)");
  // Wider than the machine is known only once the whole header is read; still its own line.
  w = ParseSwf(header + "9 9 0 10 2 -1 -1 2 9 -1 1 1 1 -1 -1 -1 -1 -1\n" +
                   "4 1 0 10 6 -1 -1 6 9 -1 1 1 1 -1 -1 -1 -1 -1\n" + good,
               "w.swf", strict);
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().message(),
            "w.swf:4: job 4 asks for 6 cores, the machine has 4 (--strict refuses records it "
            "would skip)");
  // What --min-cores drops is the user's choice, not a defect: counted, not refused.
  strict.min_cores = 2;
  w = ParseSwf(header + good + "5 1 0 10 1 -1 -1 1 9 -1 1 1 1 -1 -1 -1 -1 -1\n", "m.swf", strict);
  ASSERT_TRUE(w) << w.error().ToString();
  EXPECT_EQ(w->skipped.below_min_cores, 1);
}

}  // namespace
}  // namespace psched::sim
