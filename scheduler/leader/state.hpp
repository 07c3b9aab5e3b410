// The leader's decision state, pure: the allocation's snapshot, what each session is
// decided with beyond the snapshot (its policy and allocator, its MPI_Comm_spawn
// parent, the user's stop, the nodes running it, its failure) and the owners' histories
// the priorities read. pschedd's LeaderService holds one and keeps beside it only what
// carrying decisions out needs (launchers, output flow, the MPI_Comm_spawn answer
// owed); psched-sim's allocation mode holds one too. step.hpp changes it.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "config/resolve.hpp"
#include "scheduler/model.hpp"
#include "scheduler/priorities/owner_histories.hpp"

namespace psched::sched::leader {

// A rank that exited non-zero or was killed by a signal, as its node reported it.
struct RankExit {
  SessionId session = kNoSession;
  int rank = 0;
  int node = 0;
  int code = 0;
  int signal = 0;     // non-zero when killed by a signal
  std::string cause;  // "exited with status 3", "killed by signal 9 (Killed)", "exec failed: ..."
};

// Why a session is ending before its ranks all exited on their own: the first failing
// rank, a kill (psched-ctl, its launcher gone, its parent's end), a lost node. The
// rest of its ranks are killed; its launcher is told this and the ranks that failed
// after it (failure_report.hpp).
struct Failure {
  int code = 0;                 // the session's exit status
  std::string first;            // "rank 1 on node 0 (n0) exited with status 3; the other ranks ..."
  std::vector<RankExit> later;  // other ranks' failures after the first, as they arrived
};

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
  // Its ranks get SIGTERM when it fails, SIGKILL after this many seconds (the launch's
  // --kill-wait or the admin's; MPI_Comm_spawn children take their parent's).
  double kill_wait_s = 0;
  // Ranks whose failure was heard (each is reported at once and again in node_done).
  std::set<int> failed_ranks;
  std::optional<Failure> failure;  // set once it is ending (a failure or a kill)
  // The session whose surpass yielded because it connected to this one (a Connect
  // step's plan, carried out): status says "sidestepped by N, was surpassed: N
  // connected to it".
  SessionId yielded_to = kNoSession;
};

// The plan of the last step that had one, in the snapshot already, while the nodes
// carry it out (one plan at a time): PlanCarriedOut says how that went.
struct InFlight {
  Plan plan;
  Snapshot before;                 // the snapshot without it: a failure goes back there
  SessionId arrival = kNoSession;  // the new session it was decided for, if any
  // A Connect's yield: once carried out, `victim` records `connector`, and its
  // launcher is told `yield_note`.
  SessionId connector = kNoSession;
  SessionId victim = kNoSession;
  std::string yield_note;
  // A user's stop or resume of `user_control` (UserControl): it acts on the ranks only
  // (the session keeps its slots), so `before` is the snapshot as it stays; once carried
  // out the session is `stopped_by_user` as `user_stop` says.
  SessionId user_control = kNoSession;
  bool user_stop = false;
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
  std::map<int, std::string> hostnames;  // every node that joined, lost ones too
  // The allocation's node count: an arrival before each of its daemons joined (or was
  // lost) is refused. 0: none awaited (psched-sim and the replay join theirs first).
  int expected_nodes = 0;
  std::optional<InFlight> in_flight;

  // "node 1 (host)": how messages name a node.
  std::string NodeName(int node) const {
    auto it = hostnames.find(node);
    return "node " + std::to_string(node) + (it == hostnames.end() ? "" : " (" + it->second + ")");
  }

  const Session* Find(SessionId id) const {
    auto it = sessions.find(id);
    return it == sessions.end() ? nullptr : &it->second;
  }
};

}  // namespace psched::sched::leader
