// The leader's decision state, pure: the allocation's snapshot, what each session is
// decided with beyond the snapshot (its policy and allocator, its MPI_Comm_spawn
// parent, the user's stop) and the owners' histories the priorities read. pschedd's
// LeaderService holds one and keeps beside it only what carrying decisions out needs
// (launchers, nodes still running a session, output flow); psched-sim's allocation
// mode holds one too. step.hpp changes it.
#pragma once

#include <map>
#include <set>
#include <string>

#include "config/resolve.hpp"
#include "scheduler/model.hpp"
#include "scheduler/priorities/owner_histories.hpp"

namespace psched::sched::leader {

struct Session {
  SessionId id = kNoSession;
  config::ResolvedPolicy policy;  // resolved at its arrival; decides there and at its end
  std::string allocator;          // the one it asked for, or the default, by name
  // MPI_Comm_spawn's children: the session waiting for them in the call.
  SessionId parent = kNoSession;
  // Ctrl-Z, psched-ctl suspend or PMIx pause: its ranks stay stopped until the user
  // resumes it, whatever a policy does with its slots meanwhile. It keeps its slots
  // (its uses stay counted in the snapshot).
  bool stopped_by_user = false;
  // The nodes its ranks were started on that have not reported it done (a lost node
  // never will): when none is left, it has ended. Empty while queued.
  std::set<int> running_on;
};

struct State {
  Snapshot snapshot;
  std::map<SessionId, Session> sessions;  // every session the snapshot has, and ending ones
  // PSP reads each owner's last history_length sessions: keep at least that many.
  prio::OwnerHistories histories{64};
  SessionId next_session = 1;
  // Nodes whose daemon is gone, and why: they left the snapshot, and a plan decided
  // before the loss that lands after it must not bring them back or start ranks there.
  std::map<int, std::string> lost_nodes;

  const Session* Find(SessionId id) const {
    auto it = sessions.find(id);
    return it == sessions.end() ? nullptr : &it->second;
  }
};

}  // namespace psched::sched::leader
