#include "proto/pmix_wire.hpp"

#include <gtest/gtest.h>

#include <string>

namespace psched::proto {
namespace {

template <typename T>
T RoundTrip(const T& message, const char* service) {
  auto back = DecodePmix<T>(EncodePmix(message), service);
  EXPECT_TRUE(back) << (back ? "" : back.error().ToString());
  return back ? *back : T{};
}

// The message `j` as T: "decoded", or the protocol error's message.
template <typename T>
std::string Error(const Json& j, const char* service) {
  auto m = DecodePmix<T>(EncodePmixJson(j), service);
  if (m) return "decoded";
  EXPECT_EQ(m.error().code(), ErrorCode::kProtocol);
  return m.error().message();
}

TEST(PmixWire, InteractRoundTrips) {
  PmixInteract m{.ns = {"psched.1", "psched.2"}};
  EXPECT_EQ(RoundTrip(m, "pmix.interact").ns, m.ns);
}

// The format before versions were written is version 1: a daemon of this build reads it.
TEST(PmixWire, AMessageWithoutVersionIsVersionOne) {
  auto m = DecodePmix<PmixInteract>(EncodePmixJson({{"ns", {"a", "b"}}}), "pmix.interact");
  ASSERT_TRUE(m) << m.error().ToString();
  EXPECT_EQ(m->version, 1);
  EXPECT_EQ(m->ns.size(), 2u);
}

TEST(PmixWire, MalformedMessagesAreProtocolErrorsSayingWhat) {
  EXPECT_EQ(Error<PmixInteract>({{"ns", "a"}}, "pmix.interact"),
            "malformed pmix.interact message: 'ns' is not a list: \"a\"");
  EXPECT_EQ(Error<PmixInteract>({{"ns", {"a", 1e300}}}, "pmix.interact"),
            "malformed pmix.interact message: 'ns[1]' is not a string: 1e+300");
  EXPECT_EQ(Error<PmixInteract>({{"version", 2}}, "pmix.interact"),
            "pmix.interact version 2, this daemon speaks version 1");
  EXPECT_EQ(Error<PmixInteract>({{"version", 1.0}}, "pmix.interact"),
            "malformed pmix.interact message: 'version' is not an integer: 1.0");
  EXPECT_EQ(Error<PmixInteract>(Json::array({1}), "pmix.interact"),
            "malformed pmix.interact message: not a MessagePack map");
  const std::string cut = EncodePmix(PmixInteract{.ns = {"a", "b"}});
  EXPECT_FALSE(DecodePmix<PmixInteract>(cut.substr(0, cut.size() - 1), "pmix.interact"));
}

}  // namespace
}  // namespace psched::proto
