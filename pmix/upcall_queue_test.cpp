#include "pmix/upcall_queue.hpp"

#include <event2/event.h>
#include <gtest/gtest.h>

#include <functional>
#include <thread>
#include <vector>

namespace psched::pmix {
namespace {

// Work posted from foreign threads runs on the loop thread, in order per thread.
TEST(UpcallQueue, RunsForeignThreadWorkOnLoopThread) {
  event_base* base = event_base_new();
  ASSERT_NE(base, nullptr);
  auto q = UpcallQueue::Create(base);
  ASSERT_TRUE(q);
  constexpr int kThreads = 4, kEach = 500;
  const auto loop_thread = std::this_thread::get_id();
  std::vector<std::vector<int>> seen(kThreads);
  int total = 0;
  bool wrong_thread = false;
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        (*q)->Post([&, t, i] {
          wrong_thread |= std::this_thread::get_id() != loop_thread;
          seen[t].push_back(i);
          if (++total == kThreads * kEach) event_base_loopbreak(base);
        });
      }
    });
  }
  event_base_dispatch(base);  // returns once the last item ran
  for (auto& th : threads) th.join();
  EXPECT_FALSE(wrong_thread);
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_EQ(seen[t].size(), static_cast<size_t>(kEach));
    for (int i = 0; i < kEach; ++i) ASSERT_EQ(seen[t][i], i);
  }
  q->reset();
  event_base_free(base);
}

// pschedd's case: PMIx runs on the loop thread, so upcalls post from inside the loop.
// That work runs after the current callback, in order, without another thread.
TEST(UpcallQueue, WorkPostedOnTheLoopThreadRunsInOrderOnIt) {
  event_base* base = event_base_new();
  auto q = UpcallQueue::Create(base);
  ASSERT_TRUE(q);
  const auto loop_thread = std::this_thread::get_id();
  std::vector<int> seen;
  bool wrong_thread = false;
  std::function<void(int)> chain = [&](int i) {
    wrong_thread |= std::this_thread::get_id() != loop_thread;
    seen.push_back(i);
    if (i == 99) {
      event_base_loopbreak(base);
      return;
    }
    (*q)->Post([&, i] { chain(i + 1); });
    EXPECT_EQ(seen.size(), static_cast<size_t>(i + 1));  // not run inline
  };
  (*q)->Post([&] { chain(0); });  // from outside the loop: the eventfd
  event_base_dispatch(base);
  EXPECT_FALSE(wrong_thread);
  ASSERT_EQ(seen.size(), 100u);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(seen[i], i);
  q->reset();
  event_base_free(base);
}

TEST(UpcallQueue, ExceptionInWorkDoesNotEscape) {
  event_base* base = event_base_new();
  auto q = UpcallQueue::Create(base);
  ASSERT_TRUE(q);
  bool after = false;
  (*q)->Post([] { throw std::runtime_error("bug"); });
  (*q)->Post([&] { after = true; });
  (*q)->Drain();
  EXPECT_TRUE(after);
  q->reset();
  event_base_free(base);
}

}  // namespace
}  // namespace psched::pmix
