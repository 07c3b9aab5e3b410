#include "common/clock.hpp"

namespace psched {
namespace {

class SystemClocks final : public Clock {
 public:
  TimePoint Now() const override { return std::chrono::steady_clock::now(); }
  double WallSeconds() const override {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
};

}  // namespace

const Clock& RealClock() {
  static const SystemClocks clocks;
  return clocks;
}

}  // namespace psched
