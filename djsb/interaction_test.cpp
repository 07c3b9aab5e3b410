#include "djsb/interaction.hpp"

#include <gtest/gtest.h>

namespace psched::djsb {
namespace {

TEST(DjsbInteraction, PercentileIsNearestRank) {
  std::vector<double> v;
  for (int i = 20; i >= 1; --i) v.push_back(i);
  EXPECT_EQ(Percentile(v, 95), 19);
  EXPECT_EQ(Percentile(v, 100), 20);
  EXPECT_EQ(Percentile(v, 50), 10);
  EXPECT_EQ(Percentile({7}, 95), 7);
}

TEST(DjsbInteraction, SummaryPoolsEveryAnalysisAndKeepsTheFirstReason) {
  InteractionSummary s = SummarizeInteractions(
      {{5, 5, {0.01, 0.02, 0.03, 0.04, 0.05}, ""},
       {5, 2, {0.2, 0.3}, "no simulation serves 'x' (it has ended, or never served)"},
       {5, 0, {}, "later reason"}});
  EXPECT_EQ(s.asked, 15);
  EXPECT_EQ(s.completed, 7);
  EXPECT_EQ(s.latencies, 7);
  EXPECT_DOUBLE_EQ(s.median_s, 0.04);
  EXPECT_DOUBLE_EQ(s.p95_s, 0.3);
  EXPECT_FALSE(s.all_completed());
  EXPECT_EQ(s.error, "no simulation serves 'x' (it has ended, or never served)");

  EXPECT_TRUE(SummarizeInteractions({{3, 3, {1, 2, 3}, ""}}).all_completed());
  InteractionSummary none = SummarizeInteractions({});
  EXPECT_FALSE(none.all_completed());  // nothing asked is not "every interaction completed"
  EXPECT_EQ(none.median_s, 0);
}

}  // namespace
}  // namespace psched::djsb
