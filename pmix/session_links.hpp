// The leader's record of which sessions interact (issue #26, item 1): the parent of an
// MPI_Comm_spawn and its children, the two sides of MPI_Comm_connect/accept. When one
// of them fails, the others are the ones to tell (daemon_failed.cpp).
//
// A link comes from the name service on the leader (DaemonPmixHost::NotingInteraction):
// Open MPI 4.1 connects two sessions (MPI_Comm_spawn, MPI_Comm_connect/accept) by
// publishing each side's participants under "<port>:connect" and "<port>:accept" and
// looking up the other side's, then calling PMIx_Connect; a lookup of such a key answered
// with another session's value links the two. Not a lookup of any other name: a session
// that looked up a service (MPI_Lookup_name) and was killed inside MPI_Comm_connect has
// connected to nothing. Not the PMIx connect itself: one whose participants are all on
// one node never reaches the host. A child that dies before its participants were looked
// up is not linked yet: its parent's MPI_Comm_spawn fails instead (daemon_spawn.cpp).
// A PMIx program that calls PMIx_Connect without that exchange is not linked.
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
