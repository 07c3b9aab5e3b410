#include "common/error.hpp"

#include <gtest/gtest.h>

namespace psched {
namespace {

TEST(Error, CarriesNodeSessionAndSyscall) {
  Error e = Error::FromErrno("execve", "spawning rank 3", ENOENT);
  e.WithNode(2).WithSession(7).Wrap("launch");
  EXPECT_EQ(e.code(), ErrorCode::kSystem);
  EXPECT_EQ(e.ToString(),
            "node 2, session 7: launch: spawning rank 3: execve: No such file or directory");
}

TEST(Error, ResultHoldsValueOrError) {
  auto parse = [](int v) -> Result<int> {
    if (v < 0) return Fail(ErrorCode::kInvalidArgument, "negative");
    return v * 2;
  };
  EXPECT_EQ(parse(2).value(), 4);
  ASSERT_FALSE(parse(-1).has_value());
  EXPECT_EQ(parse(-1).error().message(), "negative");
}

}  // namespace
}  // namespace psched

#include "common/svg_text.hpp"

namespace psched {
namespace {

TEST(SvgText, EscapesXmlAndFormatsFixed) {
  EXPECT_EQ(XmlEscape("a<b & \"c\">"), "a&lt;b &amp; &quot;c&quot;&gt;");
  EXPECT_EQ(FormatFixed(2.345, 1), "2.3");
  EXPECT_EQ(FormatFixed(1.0, 0), "1");
}

}  // namespace
}  // namespace psched
