// Test fixture: this node's NodeService on a real event loop, spawning real ranks (all
// bound to PU 0), for the node-side tests of the daemon (node_service_test,
// cosched_node_test).
#pragma once

#include <event2/event.h>
#include <gtest/gtest.h>
#include <sys/types.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "daemon/node/node_service.hpp"
#include "tests/support/eventually.hpp"

namespace psched::daemon {

class NodeServiceFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = event_base_new();
    ranks_ = std::make_unique<NodeService>(base_, 0, std::vector<int>{0},
                                           [](proto::MsgType, const proto::Json&) {});
  }
  void TearDown() override {
    ranks_.reset();  // kills the ranks
    event_base_free(base_);
  }
  // Session `session` of `n` ranks running `argv`; returns once all of them run.
  void Spawn(int64_t session, int n, std::vector<std::string> argv) {
    proto::StartRanksOrder order;
    order.session = session;
    order.argv = std::move(argv);
    order.env = {"PATH=/usr/bin:/bin"};
    order.size = n;
    for (int r = 0; r < n; ++r) order.ranks.push_back({r, 0, r, {}});
    ranks_->StartRanks(order);
    // The spawn may wait for the event loop (launch hooks answer there).
    ASSERT_TRUE(Loop([&] { return ranks_->LocalProcesses(session).size() == size_t(n); }, 20));
  }
  // Runs the event loop until `done` or `seconds` pass.
  bool Loop(const std::function<bool()>& done, double seconds = 20) {
    return psched::testing::TurnUntil(base_, done, seconds);
  }
  // The session's ranks on this node that have not exited.
  std::vector<pid_t> Pids(int64_t session) {
    std::vector<pid_t> pids;
    for (auto [rank, pid] : ranks_->LocalProcesses(session)) pids.push_back(pid);
    return pids;
  }

  event_base* base_ = nullptr;
  std::unique_ptr<NodeService> ranks_;
};

}  // namespace psched::daemon
