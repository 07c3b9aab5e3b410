#include "common/prefix_lines.hpp"

#include <gtest/gtest.h>

namespace psched {
namespace {

TEST(PrefixLines, EveryLineIncludingAnUnfinishedLastOne) {
  EXPECT_EQ(PrefixLines("[1] ", "a\nb\n"), "[1] a\n[1] b\n");
  EXPECT_EQ(PrefixLines("[1] ", "a\npart"), "[1] a\n[1] part\n");  // ended: see the header
  EXPECT_EQ(PrefixLines("[1] ", "\n\n"), "[1] \n[1] \n");
  EXPECT_EQ(PrefixLines("[1] ", ""), "");
}

}  // namespace
}  // namespace psched
