#include "daemon/net/peer_link.hpp"

#include <event2/event.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "daemon/net/auth.hpp"
#include "daemon/net/tree.hpp"
#include "tests/support/eventually.hpp"

namespace psched::daemon {
namespace {

using psched::testing::TurnUntil;

// A daemon stopping with several children still connected: closing each link runs
// its close callback, which used to erase it from the map being iterated
// (std::_Rb_tree_increment crashed in pschedd at exit).
TEST(PeerLink, StoppingWithSeveralChildrenClosesThemAll) {
  event_base* base = event_base_new();
  auto secret = Secret::Generate();
  ASSERT_TRUE(secret);
  Tree tree{4, 8};
  auto parent = std::make_unique<PeerLink>(base, 0, tree, *secret, PeerLink::Handlers{});
  auto port = parent->Listen("127.0.0.1", 0);
  ASSERT_TRUE(port) << port.error().ToString();
  int ready = 0, lost = 0;
  std::vector<std::unique_ptr<PeerLink>> children;
  for (int node = 1; node <= 3; ++node) {
    PeerLink::Handlers h;
    h.parent_ready = [&] { ++ready; };
    h.parent_lost = [&](const std::string&) { ++lost; };
    children.push_back(std::make_unique<PeerLink>(base, node, tree, *secret, std::move(h)));
    ASSERT_TRUE(children.back()->ConnectParent("127.0.0.1:" + std::to_string(*port)));
  }
  ASSERT_TRUE(TurnUntil(
      base, [&] { return ready == 3; }, 30))
      << ready << " of 3 joined";
  parent.reset();
  EXPECT_TRUE(TurnUntil(
      base, [&] { return lost == 3; }, 30))
      << lost << " of 3 saw it go";
  children.clear();
  event_base_free(base);
}

}  // namespace
}  // namespace psched::daemon
