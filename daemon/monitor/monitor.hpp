// The monitoring of one pschedd: samples load and memory every sample interval,
// probes a few peers' links every probe interval (round robin, one probe at a
// time), and sends a proto::MonitorReport towards the leader after each sample
// and after each round of probes. All on libevent timers of the daemon's loop.
//
// Cost: one read of /proc/{stat,meminfo} per sample (seconds apart) and per probe
// round `peers_per_round` x (`pings` bytes + `probe_bytes`) on the wire; with the
// defaults (5 s, 30 s, 4 peers, 256 KiB) well under 1% of a core.
#pragma once

#include <event2/event.h>

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "common/clock.hpp"
#include "common/error.hpp"
#include "daemon/monitor/link_prober.hpp"
#include "daemon/monitor/load_sampler.hpp"
#include "proto/messages.hpp"

namespace psched::daemon::monitor {

struct MonitorOptions {
  double sample_interval_s = 5;
  double probe_interval_s = 30;  // 0: no link probes
  int peers_per_round = 4;
  int pings = 3;
  uint64_t probe_bytes = uint64_t{256} * 1024;
  double probe_timeout_s = 5;
};

// Checks the options; the message names the pschedd option at fault.
Result<void> Validate(const MonitorOptions& options);

class Monitor {
 public:
  using Send = std::function<void(proto::MonitorReport)>;

  // `clock` (outliving the monitor): the time between samples, which the load and
  // utilisation averages decay by, and the link probes' timings.
  Monitor(event_base* base, int node, std::vector<int> cpus, MonitorOptions options, Send send,
          const Clock& clock = RealClock());
  ~Monitor();
  Monitor(const Monitor&) = delete;
  Monitor& operator=(const Monitor&) = delete;

  // Serves link probes on `listen_host`, takes the first sample, reports, and
  // starts the timers.
  Result<void> Start(const std::string& listen_host);
  // The leader's directory of probe addresses (monitor.peers).
  void SetPeers(const proto::MonitorPeers& peers);

 private:
  static void OnSampleTimer(evutil_socket_t, short, void* arg);
  static void OnProbeTimer(evutil_socket_t, short, void* arg);
  void SampleAndReport();
  void Report();
  void ProbeRound();
  void ProbeNext();
  double Seconds() const;  // the clock's, for the sampler

  event_base* base_;
  const Clock& clock_;
  int node_;
  MonitorOptions options_;
  Send send_;
  LoadSampler sampler_;
  LinkProber prober_;
  std::string probe_address_;
  std::map<int, std::string> peers_;        // node -> probe address, without this node
  std::map<int, proto::LinkReport> links_;  // latest per peer (the node's bandwidth)
  std::set<int> failing_;                   // peers whose last probe failed (logged once)
  std::vector<proto::LinkReport> fresh_;    // measured since the last report
  std::vector<int> round_;                  // peers left to probe in this round
  int cursor_ = -1;                         // last peer probed, for the round robin
  event* sample_ev_ = nullptr;
  event* probe_ev_ = nullptr;
};

}  // namespace psched::daemon::monitor
