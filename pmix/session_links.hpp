// The leader's record of which sessions interact (issue #26, item 1): the parent of an
// MPI_Comm_spawn and its children, the two sides of MPI_Comm_connect/accept. When one
// of them fails, the others are the ones to tell (daemon_failed.cpp).
//
// Links come through one path, DaemonPmixHost::NoteInteraction (daemon_interact.cpp),
// from two triggers. The PMIx connect upcall: its procs name the sessions (a PMIx
// program's PMIx_Connect; libpmix calls the host once every participant on that node has
// called it, on each node with participants). libpmix 4.2.2 completes a connect whose
// participants are all on one node by itself, without the upcall: two sessions of a PMIx
// program that connect on one node only are not linked (seen with pmix_connect_told, whose
// survivor was never told). And the name
// service on the leader: Open MPI 4.1 connects two sessions (MPI_Comm_spawn,
// MPI_Comm_connect/accept) by publishing each side's participants under
// "<port>:connect" and "<port>:accept" and looking up the other side's, then calling
// PMIx_Connect; a lookup of such a key answered with another session's value links the
// two, before their connect. Not a lookup of any other name: a session that looked up a
// service (MPI_Lookup_name) and was killed inside MPI_Comm_connect has connected to
// nothing. A child that dies before its participants were looked up is not linked yet:
// its parent's MPI_Comm_spawn fails instead (daemon_comm_spawn.cpp).
//
// Pure bookkeeping, by namespace.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

namespace psched::pmix {

class SessionLinks {
 public:
  // These sessions interact: each is linked to every other one.
  void Link(const std::vector<std::string>& nspaces);
  // `nspace` ended (failed or not): forgotten, its links with it. Returns the sessions
  // that were linked to it, ascending: after a failure, those to tell.
  std::vector<std::string> End(const std::string& nspace);
  // The sessions linked to `nspace`, ascending.
  std::vector<std::string> PeersOf(const std::string& nspace) const;
  size_t size() const { return peers_.size(); }

 private:
  std::map<std::string, std::set<std::string>> peers_;
};

}  // namespace psched::pmix
