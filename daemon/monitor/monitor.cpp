#include "daemon/monitor/monitor.hpp"

#include <chrono>
#include <cstdio>

#include "common/timeval.hpp"
#include "daemon/monitor/metrics.hpp"

namespace psched::daemon::monitor {

Result<void> Validate(const MonitorOptions& o) {
  auto bad = [](const std::string& what) { return Fail(ErrorCode::kInvalidArgument, what); };
  if (!(o.sample_interval_s >= 0.1)) {
    return bad("--monitor-interval must be at least 0.1 s (got " +
               std::to_string(o.sample_interval_s) + ")");
  }
  if (!(o.probe_interval_s == 0 || o.probe_interval_s >= 0.1)) {
    return bad("--probe-interval must be 0 (no probes) or at least 0.1 s (got " +
               std::to_string(o.probe_interval_s) + ")");
  }
  if (o.peers_per_round < 1) return bad("--probe-peers must be at least 1");
  if (o.probe_bytes < 1024 || o.probe_bytes > LinkProber::kMaxTransfer) {
    return bad("--probe-bytes must be between 1024 and " +
               std::to_string(LinkProber::kMaxTransfer));
  }
  return {};
}

Monitor::Monitor(event_base* base, int node, std::vector<int> cpus, MonitorOptions options,
                 Send send, const Clock& clock)
    : base_(base),
      clock_(clock),
      node_(node),
      options_(options),
      send_(std::move(send)),
      sampler_(std::move(cpus)),
      prober_(base, options.pings, options.probe_bytes, options.probe_timeout_s, clock) {}

double Monitor::Seconds() const {
  return std::chrono::duration<double>(clock_.Now().time_since_epoch()).count();
}

Monitor::~Monitor() {
  if (sample_ev_) event_free(sample_ev_);
  if (probe_ev_) event_free(probe_ev_);
}

Result<void> Monitor::Start(const std::string& listen_host) {
  if (options_.probe_interval_s > 0) {
    auto address = prober_.Listen(listen_host);
    if (!address) return Fail(address.error());
    probe_address_ = *address;
  }
  if (auto ok = sampler_.Sample(Seconds()); !ok) return ok;
  Report();
  sample_ev_ = event_new(base_, -1, EV_PERSIST, &Monitor::OnSampleTimer, this);
  timeval every = TimevalFromSeconds(options_.sample_interval_s);
  event_add(sample_ev_, &every);
  if (options_.probe_interval_s > 0) {
    probe_ev_ = event_new(base_, -1, EV_PERSIST, &Monitor::OnProbeTimer, this);
    timeval probe_every = TimevalFromSeconds(options_.probe_interval_s);
    event_add(probe_ev_, &probe_every);
  }
  return {};
}

void Monitor::OnSampleTimer(evutil_socket_t, short, void* arg) {
  static_cast<Monitor*>(arg)->SampleAndReport();
}

void Monitor::OnProbeTimer(evutil_socket_t, short, void* arg) {
  static_cast<Monitor*>(arg)->ProbeRound();
}

void Monitor::SampleAndReport() {
  if (auto ok = sampler_.Sample(Seconds()); !ok)
    std::fprintf(stderr, "pschedd[%d]: monitor: %s\n", node_, ok.error().ToString().c_str());
  Report();
}

void Monitor::Report() {
  proto::MonitorReport report;
  report.node = node_;
  report.probe = probe_address_;
  std::vector<proto::LinkReport> all;
  all.reserve(links_.size());
  for (const auto& [peer, link] : links_) all.push_back(link);
  report.metrics = MakeNodeReport(sampler_.load(), sampler_.utilisation(), sampler_.memory(),
                                  sampler_.clock_mhz(), all);
  // Only new measurements travel: the leader keeps the rest, so a report stays
  // small however many peers have been probed.
  report.links = std::move(fresh_);
  fresh_.clear();
  send_(std::move(report));
}

void Monitor::SetPeers(const proto::MonitorPeers& peers) {
  peers_.clear();
  for (const proto::ProbeAddress& p : peers.probes)
    if (p.node != node_ && !p.address.empty()) peers_[p.node] = p.address;
  std::erase_if(links_, [&](const auto& kv) { return !peers_.contains(kv.first); });
}

void Monitor::ProbeRound() {
  if (!round_.empty() || prober_.busy() || peers_.empty()) return;  // the last round still runs
  auto it = peers_.upper_bound(cursor_);
  for (int i = 0; i < options_.peers_per_round && i < static_cast<int>(peers_.size()); ++i) {
    if (it == peers_.end()) it = peers_.begin();
    round_.push_back(it->first);
    ++it;
  }
  cursor_ = round_.back();
  ProbeNext();
}

void Monitor::ProbeNext() {
  while (!round_.empty()) {
    int peer = round_.front();
    round_.erase(round_.begin());
    auto address = peers_.find(peer);
    if (address == peers_.end()) continue;  // left the directory meanwhile
    return prober_.Probe(peer, address->second, [this, peer](Result<proto::LinkReport> link) {
      if (link) {
        links_[peer] = *link;
        fresh_.push_back(*link);
        failing_.erase(peer);
      } else if (failing_.insert(peer).second) {
        std::fprintf(stderr, "pschedd[%d]: monitor: %s\n", node_, link.error().ToString().c_str());
      }
      ProbeNext();
    });
  }
  Report();
}

}  // namespace psched::daemon::monitor
