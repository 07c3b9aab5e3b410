#include "common/guarded_main.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace psched {
namespace {

TEST(GuardedMain, ReturnsTheBodysExitCode) {
  testing::internal::CaptureStderr();
  EXPECT_EQ(GuardedMain("tool", [] { return 3; }), 3);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST(GuardedMain, AnEscapingExceptionIsAnInternalErrorNamedAfterTheCommand) {
  testing::internal::CaptureStderr();
  EXPECT_EQ(GuardedMain("psched-x", []() -> int { throw std::runtime_error("boom"); }), 70);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "psched-x: internal error: boom\n");
}

TEST(GuardedMain, AnythingElseThrownIsReportedToo) {
  testing::internal::CaptureStderr();
  EXPECT_EQ(GuardedMain("psched-x", []() -> int { throw 42; }), kExitInternalError);
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "psched-x: internal error: unknown exception\n");
}

}  // namespace
}  // namespace psched
