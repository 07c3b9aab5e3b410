// Where daemon logic reads the time: the leader's scheduler clock (aging priorities,
// runtimes, plan durations), a node's suspend-confirmation deadline, the deadline of
// connections that have not authenticated (daemon/net/auth_waiting), the embedded
// daemon's idle exit and the monitor (the time between load samples, link probes'
// round trips and transfer) take it from a Clock they are given, so a test can drive
// them with a FakeClock instead of waiting. Only loops that sleep while the kernel
// acts (a process to stop: daemon/node/suspend.cpp; a cgroup to empty:
// freezer.cpp) keep the real clock: a clock that does not move would never end them,
// and their budget is real time the kernel needs, not a decision's.
#pragma once

#include <chrono>

namespace psched {

class Clock {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  virtual ~Clock() = default;
  // Monotonic: what durations and deadlines are measured with.
  virtual TimePoint Now() const = 0;
  // Seconds since the epoch: times shown to people, never used for durations.
  virtual double WallSeconds() const = 0;
  double SecondsSince(TimePoint then) const {
    return std::chrono::duration<double>(Now() - then).count();
  }
};

// The machine's clocks (steady_clock, system_clock); lives for the whole process.
const Clock& RealClock();

// A clock that moves only when told to (tests). Starts at an arbitrary fixed point.
class FakeClock final : public Clock {
 public:
  TimePoint Now() const override { return now_; }
  double WallSeconds() const override { return wall_s_; }
  void Advance(double seconds) {
    now_ += std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(seconds));
    wall_s_ += seconds;
  }

 private:
  TimePoint now_ = TimePoint(std::chrono::hours(1));
  double wall_s_ = 1.8e9;
};

// A clock that moves `step_s` at every reading (tests of measurements: each interval
// timed between two readings is one step).
class SteppingClock final : public Clock {
 public:
  explicit SteppingClock(double step_s)
      : step_(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            std::chrono::duration<double>(step_s))) {}
  TimePoint Now() const override { return now_ += step_; }
  double WallSeconds() const override { return 1.8e9; }

 private:
  std::chrono::steady_clock::duration step_;
  mutable TimePoint now_ = TimePoint(std::chrono::hours(1));
};

}  // namespace psched
