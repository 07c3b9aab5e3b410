// The leader's decisions as one step function over its State (state.hpp), pure:
// Step(state, event, now) -> the plan to carry out and, for a refused request, why.
// The state it leaves holds the plan applied to the snapshot (and the plan in flight,
// until PlanCarriedOut). Time is passed in, never read. pschedd's leader decodes what
// arrives into an event, steps, carries the plan out on the nodes (NodePlan: without
// the user-stopped sessions) and replies; psched-sim's allocation mode steps the same
// way.
//
// One arrival path serves psched-exec's launches and MPI_Comm_spawn's children: the
// children only add the parent's rules (they must fit beside it, and no plan may
// suspend it or an ancestor: it waits for them inside the call).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "scheduler/leader/allocators.hpp"
#include "scheduler/leader/state.hpp"
#include "scheduler/priorities/priority.hpp"

namespace psched::sched::leader {

// What the step decides with besides the state: one allocator instance per name, the
// queue's priority module and the admin's defaults.
struct Deciders {
  AllocatorCache& allocators;
  const prio::PriorityModule& priority;
  std::string default_allocator;
  bool backfill = false;  // the queue pass of a round backfills
};

// A session asks to run: a launch (no parent) or MPI_Comm_spawn's children. The step
// gives it its id, submit time and priority; `request.allocator` is resolved already.
struct Arrival {
  SessionRequest request;
  config::ResolvedPolicy policy;
  SessionId parent = kNoSession;
  // SIGTERM..SIGKILL when it fails, resolved (children take their parent's).
  double kill_wait_s = 0;
};

// A session ended on every node: its slots are freed and its policy decides who takes
// them; its MPI_Comm_spawn children still running are killed (no orphans), queued ones
// dropped. `ran`: it was started (its runtime joins its owner's history).
struct End {
  SessionId session = kNoSession;
  bool ran = false;
};

// The periodic scheduling round (round.hpp).
struct RoundTick {};

// The user stops (Ctrl-Z, psched-ctl suspend, PMIx pause) or resumes a session. Its
// plan (the session's suspend or resume) is in flight like any other, but leaves the
// snapshot as it is: the session keeps its slots, so nothing starts on them meanwhile
// and its resume cannot overbook them. PlanCarriedOut records the user's word (or says
// why it was undone: Outcome::user_control). On a session a surpass suspended it only
// records whether the user wants it to run again when that surpasser ends: no plan.
struct UserControl {
  SessionId session = kNoSession;
  bool stop = false;
};

// Ranks of `connector` connected to `victim` (a PMIx connect naming both, a lookup of a
// name `victim` published). If `connector` surpassed `victim`, which is suspended for
// it, the surpass yields (policies/yield.hpp): `victim` is resumed beside it, and the
// outcome's note says how. Any other pair decides nothing.
struct Connect {
  SessionId connector = kNoSession;
  SessionId victim = kNoSession;
};

// The nodes carried out the plan in flight (State::in_flight), or it failed and was
// rolled back on them. Carried out: the sessions it started run on their nodes (those
// that failed meanwhile never start), a Connect's victim records its connector and is
// told. Failed: the snapshot goes back to the one before the plan (but nodes lost and
// sessions dropped meanwhile stay out), the sessions the plan concerned are told why,
// its arrival is refused, and the queued sessions that can start without what failed
// get the outcome's plan (the rest waits for the next round).
struct PlanCarriedOut {
  std::optional<std::string> failure;  // why it failed (rolled back)
};

// A node reported that every rank of `session` there has exited (session.node_done).
struct NodeDone {
  SessionId session = kNoSession;
  int node = 0;
};

// A node's daemon joined the allocation (node.join) with its topology: the node
// enters the snapshot (replacing what an earlier join of that id said), in id order,
// and messages name it with `hostname`. Decides nothing.
struct NodeJoined {
  int node = 0;
  std::string hostname;
  NodeTopology topology;
};

// The daemons of `nodes` are gone (`cause`): they leave the snapshot, and every session
// with ranks there fails; one no node runs any more has ended.
struct NodesLost {
  std::vector<int> nodes;
  std::string cause;
};

// A rank of `exit.session` failed (session.rank_exited, and again in session.node_done:
// counted once). The first failure ends the session: its other ranks are killed, and
// so are its MPI_Comm_spawn children. Later ones are listed to its launcher at the end.
struct RankFailed {
  RankExit exit;
};

// The session is ended from outside: psched-ctl kill, its launcher gone, a fatal
// signal while queued. Running, it fails with `code` and `why` (its ranks and
// children are killed); queued, it is dropped with "`why` while queued".
struct SessionKilled {
  SessionId session = kNoSession;
  int code = 0;
  std::string why;
};

// Whether a signal the user sends a session (psched-exec forwards what its shell gets,
// psched-ctl signal) goes on to the session's ranks: SIGINT, SIGTERM, SIGHUP, SIGKILL,
// SIGUSR1 and SIGUSR2, as mpiexec forwards them. Ctrl-Z and fg are the user's stop and
// resume (UserControl), not signals; any other signal is refused with "signal N is not
// forwarded".
bool ForwardedToRanks(int signal);

// The user signals a session still queued (one ForwardedToRanks forwards): nothing of it
// runs to take the signal, so one
// that would end its ranks ends the wait instead, as this kill (exit status 128 +
// signal, "session ended while queued"); SIGUSR1 and SIGUSR2 wait with it (nullopt).
std::optional<SessionKilled> WaitEndedBySignal(SessionId session, int signal);

using Event = std::variant<Arrival, End, RoundTick, UserControl, Connect, PlanCarriedOut, NodeDone,
                           NodeJoined, NodesLost, RankFailed, SessionKilled>;

// Something a session's launcher is told (its MPI_Comm_spawn parent's, for children):
// "psched: session N <text>".
struct Note {
  SessionId session = kNoSession;
  std::string text;
};

struct Outcome {
  SessionId session = kNoSession;  // the session the event was about (an arrival's new id)
  SessionRequest request;          // Arrival: the request as decided
  // In the snapshot already (State::in_flight until PlanCarriedOut): pschedd carries
  // NodePlan(state, plan) out. UserControl's plan acts on the nodes only (the session
  // keeps its slots), in flight all the same.
  Plan plan;
  // Why the request was refused (nothing to carry out). PlanCarriedOut: why `session`,
  // the failed plan's arrival, could not start; the caller drops it (Drop) once its
  // launcher is told.
  std::optional<std::string> refused;
  std::vector<std::string> log;  // for people: what was decided and why (the daemon's log)
  std::vector<Note> notes;       // PlanCarriedOut: what the sessions' launchers are told
  // Sessions that failed in this step (their Failure is in the state until their End):
  // a rank's failure, a kill, a lost node (NodesLost's sessions with ranks there, and
  // PlanCarriedOut's started on a node lost meanwhile), their parent's failure or end.
  // The nodes still running each are to kill its ranks (SIGTERM, then SIGKILL after
  // kill_wait_s); `nodes` is empty for one that runs nowhere yet.
  struct Kill {
    SessionId session = kNoSession;
    std::vector<int> nodes;
    double kill_wait_s = 0;
  };
  std::vector<Kill> kills;
  // Of those, the sessions that failed for a lost node (-> that node): NodesLost's with
  // ranks there, PlanCarriedOut's started there.
  std::map<SessionId, int> on_lost_node;
  // Queued sessions killed (SessionKilled, the end or failure of their parent): they
  // left the state without an end plan; their launcher (or waiting parent, as the
  // state no longer says: `parent`) is told `text` and the caller forgets them.
  struct Dropped {
    SessionId session = kNoSession;
    SessionId parent = kNoSession;
    int code = 0;
    std::string text;
  };
  std::vector<Dropped> dropped;
  // NodeDone, NodesLost: sessions no node runs any more; PlanCarriedOut: sessions it
  // was to start that failed meanwhile (killed, a node lost), never started. Their End
  // step follows once the launcher is told.
  std::vector<SessionId> ended;
  // PlanCarriedOut of a UserControl's plan: what the user is answered. `undone`: why
  // the stop or resume failed and was rolled back ("could not be suspended (undone):
  // ..."); the session is as it was.
  struct UserControlDone {
    SessionId session = kNoSession;
    bool stop = false;
    std::optional<std::string> undone;
  };
  std::optional<UserControlDone> user_control;
};

// One plan at a time: pschedd steps an event that may plan (Arrival, End, RoundTick,
// UserControl, Connect) only once nothing is in flight (it holds them until the
// PlanCarriedOut), so that a rollback goes back to the right snapshot; a plan stepped
// meanwhile replaces the one in flight (psched-sim's allocation mode carries none out).
Outcome Step(State& state, const Event& event, double now, Deciders& deciders);

// A session a surpass suspended stays so until its surpasser ends, whatever the user
// resumes (UserControl only records their word): what the user is told instead of
// "resumed", "stays suspended by session 3 (policy surpass) until that session ends".
// nullopt for a session no surpass holds.
std::optional<std::string> HeldBySurpass(const State& state, SessionId session);

// `plan` without suspends and resumes of sessions the user stopped: their ranks are
// stopped already and stay so until the user resumes them, whatever a policy does with
// their slots meanwhile (a surpasser that displaced them ends, say). The user's own
// stop or resume in flight reaches the nodes.
Plan NodePlan(const State& state, const Plan& plan);

// A session leaves the state without an end plan (still queued when killed or its
// launcher went, or a refused arrival rolled back).
void Drop(State& state, SessionId session);

// The ranks of a StartRanksAction as the nodes bind them: an overbook float binds each rank
// to all of its node's slots (the kernel balances), and overbooked ranks share slots,
// so busy-polling MPI ranks must yield to the others.
struct RankLayout {
  std::vector<RankSlots> ranks;
  bool yield_when_idle = false;
};
RankLayout LayoutOf(const Snapshot& snapshot, const StartRanksAction& start);

}  // namespace psched::sched::leader
