// The monitor on the clock it is given (the daemon's): the load averages decay by the
// time between samples as that clock tells it. Real samples of /proc, on a real event
// loop; only the time is fake.
#include "daemon/monitor/monitor.hpp"

#include <gtest/gtest.h>
#include <sched.h>

#include <atomic>
#include <thread>
#include <vector>

#include "common/clock.hpp"

namespace psched::daemon::monitor {
namespace {

std::vector<int> AllowedCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  sched_getaffinity(0, sizeof set, &set);
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

// Samples every 0.1 s: the first primes the CPU times, the second sets the averages,
// each later one moves them by the time since the one before. While the clock stands
// still they stay as they were, however busy the CPUs were; after a day on it, the 1-,
// 5- and 15-minute averages are all the last sample.
TEST(Monitor, ItsLoadAveragesMoveByTheTimeOfItsClock) {
  event_base* base = event_base_new();
  FakeClock clock;
  MonitorOptions options;
  options.sample_interval_s = 0.1;
  options.probe_interval_s = 0;
  std::vector<proto::NodeMetricsReport> reports;
  {
    Monitor monitor(
        base, 0, AllowedCpus(), options,
        [&](const proto::MonitorReport& r) { reports.push_back(r.metrics); }, clock);
    ASSERT_TRUE(monitor.Start("127.0.0.1"));
    auto run_until = [&](size_t n) {
      for (int i = 0; i < 3000 && reports.size() < n; ++i) {
        timeval tick{0, 10000};
        event_base_loopexit(base, &tick);
        event_base_dispatch(base);
      }
      ASSERT_GE(reports.size(), n);
    };
    run_until(2);  // the averages are set
    // Keep a CPU busy, so that later samples differ from the one that set them.
    std::atomic<bool> stop{false};
    std::thread busy([&] {
      while (!stop.load(std::memory_order_relaxed)) {
      }
    });
    run_until(3);
    clock.Advance(24 * 3600);
    run_until(4);
    stop = true;
    busy.join();
  }
  event_base_free(base);
  const proto::NodeMetricsReport& set = reports[1];
  const proto::NodeMetricsReport& still = reports[2];
  const proto::NodeMetricsReport& day = reports[3];
  EXPECT_EQ(still.cpu_load_1m, set.cpu_load_1m) << "no time passed on the clock";
  EXPECT_EQ(still.cpu_load_5m, set.cpu_load_5m);
  EXPECT_EQ(still.cpu_load_15m, set.cpu_load_15m);
  EXPECT_GT(day.cpu_load_1m, 0) << "a CPU was kept busy";
  EXPECT_DOUBLE_EQ(day.cpu_load_1m, day.cpu_load_15m) << "a day damps every average to the sample";
  EXPECT_DOUBLE_EQ(day.cpu_load_5m, day.cpu_load_15m);
}

// Its link probes are timed on its clock too: each round trip and the transfer take
// one 4 ms step of it over real loopback, so the report says 2000 us.
TEST(Monitor, ItsLinkProbesAreTimedOnItsClock) {
  event_base* base = event_base_new();
  SteppingClock clock(0.004);
  std::vector<proto::LinkReport> links;
  {
    LinkProber peer(base, 1, 1024, 10);
    auto address = peer.Listen("127.0.0.1");
    ASSERT_TRUE(address) << address.error().message();
    MonitorOptions options;
    options.sample_interval_s = 60;
    options.probe_interval_s = 0.1;
    options.peers_per_round = 1;
    options.probe_bytes = uint64_t{64} * 1024;
    Monitor monitor(
        base, 0, AllowedCpus(), options,
        [&](const proto::MonitorReport& r) {
          links.insert(links.end(), r.links.begin(), r.links.end());
        },
        clock);
    ASSERT_TRUE(monitor.Start("127.0.0.1"));
    monitor.SetPeers(proto::MonitorPeers{{{1, *address}}});
    for (int i = 0; i < 3000 && links.empty(); ++i) {
      timeval tick{0, 10000};
      event_base_loopexit(base, &tick);
      event_base_dispatch(base);
    }
  }
  event_base_free(base);
  ASSERT_FALSE(links.empty());
  EXPECT_EQ(links[0].peer, 1);
  EXPECT_NEAR(links[0].latency_us, 2000, 1e-6);
}

}  // namespace
}  // namespace psched::daemon::monitor
