// Hands work from PMIx's progress thread to the daemon's libevent loop.
//
// PMIx upcalls run on a thread we do not own; everything psched keeps (sessions,
// the name service, peers) lives on the event-loop thread. An upcall copies what
// it needs into a closure and Post()s it; an eventfd wakes the loop, which runs
// the closures in order. Post() is the only member safe to call from any thread.
// When PMIx runs on the loop's own thread (pschedd), Post() activates the event
// directly: no eventfd write, no extra turn of epoll.
#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "common/error.hpp"

struct event;
struct event_base;

namespace psched::pmix {

class UpcallQueue {
 public:
  using Work = std::function<void()>;

  // Registers a persistent read event for a fresh eventfd on `base`.
  static Result<std::unique_ptr<UpcallQueue>> Create(event_base* base);
  ~UpcallQueue();
  UpcallQueue(const UpcallQueue&) = delete;
  UpcallQueue& operator=(const UpcallQueue&) = delete;

  // Thread-safe. Work posted after the destructor started is dropped.
  void Post(Work work);

  // Runs everything queued so far on the calling (loop) thread. Called by the
  // eventfd event; public so a loop can drain before shutting down.
  void Drain();

  // Drops what is queued and everything posted later, and leaves the loop: for an
  // owner that must hand the loop to another thread before it goes away.
  void Close();

 private:
  UpcallQueue() = default;
  static void OnReadable(int fd, short what, void* arg);

  std::atomic<std::thread::id> loop_thread_{};  // the thread that last drained
  int efd_ = -1;
  event* ev_ = nullptr;
  std::mutex mu_;
  std::deque<Work> work_;  // guarded by mu_
  bool closed_ = false;    // guarded by mu_
};

}  // namespace psched::pmix
