// Sessions that interact, told to the leader: a PMIx connect naming ranks of several
// sessions, or a name-service lookup answered with names another session published
// (MPI_Lookup_name of a simulation's port, Open MPI's connect/accept exchange). The
// leader hears of each through DaemonActions::sessions_interact: a surpass yields to it
// (policies/yield.hpp). One fire-and-forget message per connecting node; lookups are
// answered on the leader already. A connect reaches the hook only once every participant
// local to the connector's node has called PMIx_Connect (libpmix's server collects them
// first): seen with a connector beside its stopped victim's participating rank on one
// node, where it never came. There the lookup before MPI_Comm_connect is the trigger.
// Both a connect and Open MPI's participant exchange also link the sessions in the
// leader's SessionLinks (told of each other's failure, daemon_failed.cpp).
#include <algorithm>

#include "pmix/daemon_host.hpp"
#include "pmix/daemon_wire.hpp"

namespace psched::pmix {

void DaemonPmixHost::NoteInteraction(std::vector<std::string> nspaces, bool connected) {
  std::sort(nspaces.begin(), nspaces.end());
  nspaces.erase(std::unique(nspaces.begin(), nspaces.end()), nspaces.end());
  if (nspaces.size() < 2) return;  // a session talking to itself
  if (!leader()) {
    return tree_.SendToNode(
        0, "pmix.interact",
        proto::EncodePmix(proto::PmixInteract{.ns = std::move(nspaces), .connected = connected}));
  }
  // Linked whichever way they connected: Open MPI's exchange of participants, or a PMIx
  // program's PMIx_Connect with no name service before it.
  if (connected) links_.Link(nspaces);
  if (actions_.sessions_interact) actions_.sessions_interact(nspaces);
}

void DaemonPmixHost::OnInteract(const std::string& data) {
  auto m = wire::Receive<proto::PmixInteract>(data, "pmix.interact");
  if (m && leader()) NoteInteraction(std::move(m->ns), m->connected);
}

NameService::LookupDone DaemonPmixHost::NotingInteraction(const Publisher& looker,
                                                          NameService::LookupDone done) {
  return [this, looker = looker.nspace,
          done = std::move(done)](Result<std::vector<PublishedValue>> r) {
    if (r) {
      std::vector<std::string> nspaces{looker};
      bool exchange = false;
      for (const PublishedValue& v : *r) {
        nspaces.push_back(v.publisher.nspace);
        // Open MPI 4.1 connects right after this exchange of participants.
        exchange = exchange || v.key.ends_with(":connect") || v.key.ends_with(":accept");
      }
      NoteInteraction(std::move(nspaces), exchange);
    }
    done(std::move(r));
  };
}

}  // namespace psched::pmix
