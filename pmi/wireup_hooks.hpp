// The daemon's launch hooks when both wire-ups run: each session gets the servers its
// wire-up names (pmi/wireup.hpp: PMIx, PMI-1/PMI-2, both, none), and the calls about it go
// to exactly those.
#pragma once

#include <map>
#include <memory>

#include "daemon/launch_hooks.hpp"
#include "pmi/simple_server.hpp"
#include "pmi/wireup.hpp"

namespace psched::pmi {

class WireUpHooks final : public daemon::LaunchHooks {
 public:
  // `pmix` may be null (PMIx failed to start: Open MPI ranks run as singletons).
  WireUpHooks(std::unique_ptr<daemon::LaunchHooks> pmix, std::unique_ptr<SimpleServer> pmi1);

  Result<void> SessionStarting(const daemon::SessionLaunchInfo& info) override;
  void SessionStartingAsync(const daemon::SessionLaunchInfo& info, StartDone done) override;
  Result<std::vector<std::string>> RankEnvironment(int64_t session, int rank) override;
  std::vector<std::string> EnvironmentDefaults() const override;
  std::vector<int> RankDescriptors(int64_t session, int rank) override;
  void RankExited(int64_t session, int rank, int code) override;
  void SessionEnding(int64_t session) override;
  void SessionEnded(int64_t session) override;
  void NodesLost(const std::vector<int>& nodes) override;

 private:
  // The hooks serving `session` (none for a session never started here).
  std::vector<daemon::LaunchHooks*> Serving(int64_t session);

  std::unique_ptr<daemon::LaunchHooks> pmix_;
  std::unique_ptr<SimpleServer> pmi1_;
  std::map<int64_t, WireUp> sessions_;
};

}  // namespace psched::pmi
