#include "pmix/upcall_queue.hpp"

#include <event2/event.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <exception>

namespace psched::pmix {

Result<std::unique_ptr<UpcallQueue>> UpcallQueue::Create(event_base* base) {
  std::unique_ptr<UpcallQueue> q(new UpcallQueue());
  q->efd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (q->efd_ < 0) return Fail(Error::FromErrno("eventfd", "creating the PMIx upcall queue"));
  q->ev_ = event_new(base, q->efd_, EV_READ | EV_PERSIST, &UpcallQueue::OnReadable, q.get());
  if (q->ev_ == nullptr || event_add(q->ev_, nullptr) != 0) {
    return Fail(ErrorCode::kInternal, "creating the PMIx upcall queue: event_new/event_add failed");
  }
  return q;
}

UpcallQueue::~UpcallQueue() {
  Close();
  if (ev_ != nullptr) event_free(ev_);
  if (efd_ >= 0) close(efd_);
}

void UpcallQueue::Close() {
  {
    std::lock_guard lock(mu_);
    closed_ = true;
    work_.clear();
  }
  if (ev_ != nullptr) event_del(ev_);
}

void UpcallQueue::Post(Work work) {
  {
    std::lock_guard lock(mu_);
    if (closed_) return;
    work_.push_back(std::move(work));
  }
  if (std::this_thread::get_id() == loop_thread_.load(std::memory_order_relaxed)) {
    event_active(ev_, EV_READ, 1);  // on the loop's thread: it runs after this callback
    return;
  }
  uint64_t one = 1;
  // EAGAIN means the counter is already non-zero: the loop will wake anyway.
  [[maybe_unused]] ssize_t n = write(efd_, &one, sizeof one);
}

void UpcallQueue::Drain() {
  loop_thread_.store(std::this_thread::get_id(), std::memory_order_relaxed);
  std::deque<Work> batch;
  {
    std::lock_guard lock(mu_);
    batch.swap(work_);
  }
  for (auto& w : batch) {
    // The one guard of this libevent entry point: nothing escapes into C.
    try {
      w();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "psched pmix: bug: exception in an upcall handler: %s\n", e.what());
    } catch (...) {
      std::fprintf(stderr, "psched pmix: bug: unknown exception in an upcall handler\n");
    }
  }
}

void UpcallQueue::OnReadable(int fd, short /*what*/, void* arg) {
  uint64_t count = 0;
  [[maybe_unused]] ssize_t n = read(fd, &count, sizeof count);
  static_cast<UpcallQueue*>(arg)->Drain();
}

}  // namespace psched::pmix
