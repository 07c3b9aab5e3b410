#include "daemon/monitor/proc_parse.hpp"

#include <gtest/gtest.h>

namespace psched::daemon::monitor {
namespace {

constexpr const char* kStat =
    "cpu  400 0 200 1000 100 0 0 0 0 0\n"
    "cpu0 100 0 50 500 50 0 0 0 0 0\n"
    "cpu1 300 0 150 500 50 0 0 0 0 0\n"
    "intr 12345 0 0\n"
    "ctxt 999\n";

TEST(ProcStat, SumsOnlyTheNodesCpus) {
  auto one = ParseProcStat(kStat, {1});
  ASSERT_TRUE(one) << one.error().message();
  EXPECT_EQ(one->busy, 450u);  // user + system; idle and iowait are not busy
  EXPECT_EQ(one->total, 1000u);
  auto both = ParseProcStat(kStat, {0, 1});
  ASSERT_TRUE(both);
  EXPECT_EQ(both->busy, 600u);
  EXPECT_EQ(both->total, 1700u);
}

TEST(ProcStat, MissingCpuIsAnError) {
  auto r = ParseProcStat(kStat, {0, 7});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("cpu 7"), std::string::npos) << r.error().message();
}

TEST(ProcStat, UtilisationBetweenReadings) {
  EXPECT_DOUBLE_EQ(Utilisation({100, 1000}, {175, 1100}), 0.75);
  EXPECT_DOUBLE_EQ(Utilisation({100, 1000}, {100, 1000}), 0);  // no time passed
  EXPECT_DOUBLE_EQ(Utilisation({100, 1000}, {50, 1100}), 0);   // counters went back
}

TEST(Meminfo, TotalAndAvailableInMegabytes) {
  auto m =
      ParseMeminfo("MemTotal:       2048000 kB\nMemFree:  10 kB\nMemAvailable:   1024000 kB\n");
  ASSERT_TRUE(m) << m.error().message();
  EXPECT_DOUBLE_EQ(m->total_mb, 2000);
  EXPECT_DOUBLE_EQ(m->available_mb, 1000);
}

TEST(Meminfo, MissingFieldIsAnError) {
  auto m = ParseMeminfo("MemTotal: 100 kB\nMemFree: 10 kB\n");
  ASSERT_FALSE(m);
  EXPECT_NE(m.error().message().find("MemAvailable"), std::string::npos);
}

TEST(CpuInfo, FirstClockOrZero) {
  EXPECT_DOUBLE_EQ(ParseCpuMhz("processor\t: 0\ncpu MHz\t\t: 2894.562\ncpu MHz : 1000\n"),
                   2894.562);
  EXPECT_DOUBLE_EQ(ParseCpuMhz("processor\t: 0\nBogoMIPS : 50\n"), 0);
}

}  // namespace
}  // namespace psched::daemon::monitor
