#include "scheduler/sim/report.hpp"

#include <gtest/gtest.h>

namespace psched::sim {
namespace {

std::vector<JobRecord> TwoJobs() {
  std::vector<JobRecord> rs(2);
  rs[0].id = 1, rs[0].cores = 4, rs[0].submit = 0, rs[0].start = 0, rs[0].end = 100;
  rs[0].runtime = 100, rs[0].estimate = 120, rs[0].nodes_used = 2, rs[0].fragmentation = 1;
  rs[0].spread = 1, rs[0].packing = 1;
  rs[1].id = 2, rs[1].cores = 2, rs[1].submit = 10, rs[1].runtime = 5;  // rejected
  return rs;
}

Summary Make(const std::string& workload, const std::string& scheduler, double util, double wait) {
  Summary s;
  s.workload = workload;
  s.scheduler = scheduler;
  s.utilisation = util;
  s.wait_s.mean = wait;
  s.theoretical_runtime_s = 3600;
  return s;
}

TEST(ReportTest, CsvHasOneRowPerJobAndBlanksForJobsThatNeverRan) {
  std::string csv = JobsCsv(TwoJobs());
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "id,user,cores,gpus_per_node,requested_nodes,contiguous,submit,start,end,wait,runtime,"
            "estimate,slowdown,bounded_slowdown,nodes,fragmentation,spread,packing,logged_wait");
  EXPECT_NE(csv.find("\n1,-1,4,0,0,0,0.000,0.000,100.000,0.000,100.000,120.000,1.0000,1.0000,2,1,"
                     "1.0000,1.0000,\n"),
            std::string::npos);
  EXPECT_NE(csv.find("\n2,-1,2,0,0,0,10.000,,,,5.000,0.000,,,,,,,\n"), std::string::npos);
}

TEST(ReportTest, AuctionTableAveragesSeedsPerWorkloadAndMethod) {
  std::vector<RunReport> runs = {{Make("I.2", "easy", 0.90, 3600), 1, nullptr},
                                 {Make("I.2", "auction", 0.96, 7200), 1, nullptr},
                                 {Make("I.2", "easy", 0.94, 10800), 2, nullptr}};
  std::string t = FormatTable(runs, TableStyle::kAuction);
  // easy: (90 + 94) / 2 = 92%, wait (1 + 3) / 2 = 2 h, 2 runs; workload shown once.
  EXPECT_NE(t.find("| I.2 | 50% | 1.00 | easy | 92% | 0.00 | 2.00 ± 0.00 |"), std::string::npos)
      << t;
  EXPECT_NE(t.find("|  |  |  | auction | 96% |"), std::string::npos) << t;
  EXPECT_NE(t.find("| 2 | - |\n"), std::string::npos);
}

TEST(ReportTest, PspTableGivesRatiosToTheFirstScheduler) {
  std::vector<RunReport> runs = {{Make("kth", "fcfs", 0.7, 6000), 0, nullptr},
                                 {Make("kth", "easy/psp+aging", 0.7, 3000), 0, nullptr}};
  std::string t = FormatTable(runs, TableStyle::kPsp);
  EXPECT_NE(t.find("| kth | fcfs | 100.0 | 1.000 |"), std::string::npos) << t;
  EXPECT_NE(t.find("| kth | easy/psp+aging | 50.0 | 2.000 |"), std::string::npos) << t;
}

TEST(ReportTest, JsonAndStyles) {
  nlohmann::json j = SummaryJson(Make("w", "s", 0.5, 10));
  EXPECT_EQ(j["utilisation"], 0.5);
  EXPECT_EQ(j["wait_s"]["mean"], 10);
  EXPECT_FALSE(j.contains("logged_wait_mean_s"));
  EXPECT_FALSE(j.contains("solver_timeouts"));  // EASY, FCFS: no solver
  Summary with_solver = Make("w", "auction", 0.5, 10);
  with_solver.solver_rounds = 40;
  with_solver.solver_timeouts = 3;
  j = SummaryJson(with_solver);
  EXPECT_EQ(j["solver_rounds"], 40);
  EXPECT_EQ(j["solver_timeouts"], 3);
  std::vector<RunReport> runs = {{with_solver, 1, nullptr}, {with_solver, 2, nullptr}};
  std::string t = FormatTable(runs, TableStyle::kAuction);
  EXPECT_NE(t.find("| 2 | 6/80 |"), std::string::npos) << t;
  EXPECT_TRUE(ParseTableStyle("ip"));
  auto bad = ParseTableStyle("latex");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message(), "unknown table style 'latex' (valid: auction, ip, psp)");
}

TEST(ReportTest, SvgDrawsBothPanelsPerRun) {
  std::vector<JobRecord> records = TwoJobs();
  std::vector<RunReport> runs = {{Make("w", "easy", 1, 0), 1, &records},
                                 {Make("w", "fcfs <1>", 1, 0), 1, &records}};
  std::string svg = UtilisationAndWaitSvg(runs, Machine{1, 4, 0}, "title & co");
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("title &amp; co"), std::string::npos);
  EXPECT_NE(svg.find("fcfs &lt;1&gt;"), std::string::npos);
  size_t lines = 0;
  for (size_t p = svg.find("<polyline"); p != std::string::npos; p = svg.find("<polyline", p + 1))
    ++lines;
  EXPECT_EQ(lines, 4u);  // utilisation and CDF, for each run
  // The one job keeps all 4 cores busy over the whole span: the curve sits at the top (y = 50).
  EXPECT_NE(svg.find(",50.0 "), std::string::npos);
}

}  // namespace
}  // namespace psched::sim
