#include "pmi/wireup_hooks.hpp"

namespace psched::pmi {

WireUpHooks::WireUpHooks(std::unique_ptr<daemon::LaunchHooks> pmix,
                         std::unique_ptr<SimpleServer> pmi1)
    : pmix_(std::move(pmix)), pmi1_(std::move(pmi1)) {}

Result<void> WireUpHooks::SessionStarting(const daemon::SessionLaunchInfo& info) {
  Result<void> out;
  SessionStartingAsync(info, [&out](Result<void> r) { out = std::move(r); });
  return out;
}

void WireUpHooks::SessionStartingAsync(const daemon::SessionLaunchInfo& info, StartDone done) {
  auto wire_up = ParseWireUp(info.mpi);
  if (!wire_up) return done(Fail(wire_up.error()));
  sessions_[info.session] = *wire_up;
  if (ServesPmi(*wire_up) && pmi1_) {
    if (auto ok = pmi1_->SessionStarting(info); !ok) return done(ok);
  }
  if (ServesPmix(*wire_up) && pmix_) return pmix_->SessionStartingAsync(info, std::move(done));
  done({});
}

std::vector<daemon::LaunchHooks*> WireUpHooks::Serving(int64_t session) {
  std::vector<daemon::LaunchHooks*> out;
  auto it = sessions_.find(session);
  if (it == sessions_.end()) return out;
  if (ServesPmix(it->second) && pmix_) out.push_back(pmix_.get());
  if (ServesPmi(it->second) && pmi1_) out.push_back(pmi1_.get());
  return out;
}

Result<std::vector<std::string>> WireUpHooks::RankEnvironment(int64_t session, int rank) {
  std::vector<std::string> env;
  for (daemon::LaunchHooks* h : Serving(session)) {
    auto more = h->RankEnvironment(session, rank);
    if (!more) return more;
    env.insert(env.end(), more->begin(), more->end());
  }
  return env;
}

std::vector<std::string> WireUpHooks::EnvironmentDefaults() const {
  return pmix_ ? pmix_->EnvironmentDefaults() : std::vector<std::string>{};
}

std::vector<int> WireUpHooks::RankDescriptors(int64_t session, int rank) {
  std::vector<int> fds;
  for (daemon::LaunchHooks* h : Serving(session)) {
    auto more = h->RankDescriptors(session, rank);
    fds.insert(fds.end(), more.begin(), more.end());
  }
  return fds;
}

void WireUpHooks::RankExited(int64_t session, int rank, int code) {
  for (daemon::LaunchHooks* h : Serving(session)) h->RankExited(session, rank, code);
}

void WireUpHooks::SessionEnding(int64_t session) {
  for (daemon::LaunchHooks* h : Serving(session)) h->SessionEnding(session);
}

void WireUpHooks::SessionEnded(int64_t session) {
  for (daemon::LaunchHooks* h : Serving(session)) h->SessionEnded(session);
  sessions_.erase(session);
}

void WireUpHooks::NodesLost(const std::vector<int>& nodes) {
  if (pmix_) pmix_->NodesLost(nodes);
}

}  // namespace psched::pmi
