// RunOutLeftoverLoopExit (pmix_server.hpp): an exit left active on a base by the loop's
// previous owner must not end the next loop run on it.
#include <event2/event.h>
#include <gtest/gtest.h>

#include "pmix/pmix_server.hpp"

namespace psched::pmix {
namespace {

struct Loop {
  Loop() : base(event_base_new()) {}
  ~Loop() { event_base_free(base); }
  // Runs the loop until a 50 ms timer ends it: true when the timer did.
  bool RunsUntilItsOwnTimer() {
    fired = false;
    auto on_timer = [](evutil_socket_t, short, void* arg) {
      auto* self = static_cast<Loop*>(arg);
      self->fired = true;
      event_base_loopbreak(self->base);
    };
    event* timer = evtimer_new(base, on_timer, this);
    timeval ms50{0, 50000};
    evtimer_add(timer, &ms50);
    event_base_dispatch(base);
    event_free(timer);
    return fired;
  }
  event_base* base;
  bool fired = false;
};

TEST(RunOutLeftoverLoopExit, AnExitLeftActiveDoesNotEndTheNextLoop) {
  Loop loop;
  event_base_loopexit(loop.base, nullptr);  // what PMIx's pause may leave behind
  RunOutLeftoverLoopExit(loop.base);
  EXPECT_TRUE(loop.RunsUntilItsOwnTimer());
}

// The premise: without the pass, the leftover exit ends the loop before its timer.
TEST(RunOutLeftoverLoopExit, WithoutItTheLeftoverEndsTheLoopAtOnce) {
  Loop loop;
  event_base_loopexit(loop.base, nullptr);
  EXPECT_FALSE(loop.RunsUntilItsOwnTimer());
  EXPECT_TRUE(event_base_got_exit(loop.base));
}

TEST(RunOutLeftoverLoopExit, NothingLeftIsHarmless) {
  Loop loop;
  RunOutLeftoverLoopExit(loop.base);
  EXPECT_TRUE(loop.RunsUntilItsOwnTimer());
}

}  // namespace
}  // namespace psched::pmix
