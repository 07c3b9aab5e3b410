// The leader's handlers: what arrives is decoded into an event of the pure leader
// (scheduler/leader/step.hpp), whose plan, kills and drops are carried out on the nodes
// and told to the launchers; beside its state the service keeps the sessions'
// launchers, output flow, the MPI_Comm_spawn answers owed and psched-ctl requests.
// Only node 0 runs one. It talks to nodes only through PeerLink messages.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/clock.hpp"
#include "config/config.hpp"
#include "config/resolve.hpp"
#include "daemon/leader/plan_executor.hpp"
#include "daemon/monitor/metrics_board.hpp"
#include "daemon/net/connection.hpp"
#include "daemon/net/peer_link.hpp"
#include "policies/policy.hpp"
#include "proto/allocation_status.hpp"
#include "proto/comm_spawn.hpp"
#include "proto/messages.hpp"
#include "proto/wire_ids.hpp"
#include "scheduler/allocator.hpp"
#include "scheduler/leader/state.hpp"
#include "scheduler/leader/step.hpp"
#include "scheduler/model.hpp"
#include "scheduler/priorities/owner_histories.hpp"
#include "scheduler/priorities/priority.hpp"

namespace psched::daemon {

class LeaderService {
 public:
  struct Callbacks {
    std::function<void()> all_joined;  // every node of the allocation is in the tree
    std::function<void()> shutdown;    // psched-ctl shutdown
  };

  // `clock` (outliving the service) is the scheduler's time: priorities, runtimes, plans.
  LeaderService(PeerLink& peers, int expected_nodes, config::Config config, Callbacks callbacks,
                const Clock& clock = RealClock());
  ~LeaderService();
  LeaderService(const LeaderService&) = delete;

  // A frame from a local client (psched-exec or psched-ctl) whose uid was checked.
  void OnClientFrame(const std::shared_ptr<Connection>& client, proto::Frame&& frame, uid_t uid);
  void OnClientClosed(Connection& client);
  // A frame routed to the leader from a node (including itself).
  void OnNodeFrame(proto::Frame&& frame);
  void NodeJoined(const proto::NodeJoin& join);
  // The periodic scheduling round (config round_interval_s, on the daemon's timer):
  // waiting sessions that now fit start, the window allocators decide over them.
  void ScheduleRound();
  // No session at all (running, suspended, queued or ending): the embedded daemon's
  // idle exit counts from here.
  bool NoSessions() const { return sessions_.empty(); }
  proto::AllocationStatus Status() const;
  // A node's reply to a co-scheduling order (PeerSend service "cosched.reply").
  void OnCoschedReply(const std::string& data) { executor_.OnReply(data); }
  // MPI_Comm_spawn from a rank on node `from` (PeerSend "session.comm_spawn",
  // comm_spawn.cpp): a launcher-less session, decided like any arrival.
  void OnCommSpawnRequest(int from, const std::string& data);

  // A user's suspend or resume (Ctrl-Z/fg in the launcher, psched-ctl, PMIx job
  // control) is a UserControl step (its rules: sched::leader::UserControl) whose plan is
  // in flight like a policy's: it waits for a plan in flight, every node confirms it
  // (suspend: the ranks are seen stopped) and a failure is undone; the PlanCarriedOut
  // step records it. `answered` gets the outcome, its message without the session's
  // name.
  void UserSuspendOrResume(int64_t id, bool suspend,
                           const std::function<void(Result<void>)>& answered);
  // Ranks of these sessions (PMIx namespaces) connect: a PMIx connect naming them, or a
  // lookup of a name one of them published (connect_yield.cpp). A session that one of
  // the others suspended by surpass is resumed beside it (policies/yield.hpp).
  void SessionsInteract(const std::vector<std::string>& nspaces);

 private:
  static void SendError(Connection& c, const std::string& message);

  // What carrying a session out needs beside its decision state (state_.sessions:
  // policy, allocator, MPI_Comm_spawn parent, the user's stop, the nodes running it,
  // its failure).
  struct LiveSession {
    int64_t id = 0;
    std::weak_ptr<Connection> launcher;
    const Connection* launcher_key = nullptr;
    std::vector<int> nodes;
    int rank0_node = 0;
    std::string owner, command;
    int ranks = 0, threads = 1;
    double start = 0;
    proto::LaunchRequest request;  // kept to start a queued session later
    // Children of MPI_Comm_spawn have no launcher: they belong to their parent
    // (ParentOf), whose launcher gets their output and failures; the asking node gets
    // the answer.
    std::string parent_nspace;
    uint32_t parent_rank = 0;
    std::vector<uint32_t> app_sizes;  // spawn_multiple: ranks per app
    int comm_spawn_node = -1;
    uint64_t comm_spawn_request = 0;
    std::string comm_spawn_reply_service;  // CommSpawnRequest::reply_service
    // The comm_spawn request's id once answered "launched": their failure is told to that node too
    // (the parent may still wait for them to connect).
    uint64_t launched_comm_spawn_request = 0;
    bool output_held = false;  // the nodes stopped reading its output (HoldOutputIfBacklogged)
    std::string wait_reason;   // while queued: the policy's why, shown by psched-ctl status
  };
  // The session MPI_Comm_spawn'ed `s` (0: none, a launch).
  int64_t ParentOf(const LiveSession& s) const;
  const sched::leader::Session* Model(int64_t id) const { return state_.Find(id); }
  // Ending: its first failure or a kill was decided (sched::leader::Failure).
  bool Failing(int64_t id) const {
    const sched::leader::Session* model = Model(id);
    return model != nullptr && model->failure.has_value();
  }
  // What the step decides with (the priority module is the one of the moment).
  sched::leader::Deciders Deciders();
  // Steps the leader's state with `event` at Now().
  sched::leader::Outcome Step(const sched::leader::Event& event);

  void Launch(const std::shared_ptr<Connection>& client, const proto::Frame& frame, uid_t uid);
  // A StartRanksAction carried out: the session's ranks start on their nodes (session.start_ranks).
  void StartRanks(const sched::StartRanksAction& start, const proto::LaunchRequest& req,
                  LiveSession& session);
  void Control(const std::shared_ptr<Connection>& client, const proto::Frame& frame);
  void SessionControl(const std::shared_ptr<Connection>& client, const proto::Frame& frame);
  // A RankFailed step.
  void RankFailed(const proto::RankExit& exit);
  // Flow control of a session's output to a launcher that does not keep up. The
  // launcher is the session's own or, for MPI_Comm_spawn children, their parent's.
  void HoldOutputIfBacklogged(LiveSession& s, Connection& launcher);
  std::shared_ptr<Connection> OutputLauncherOf(const LiveSession& s) const;
  void ReleaseOutput(LiveSession& s);
  void NodeDone(const proto::NodeDone& done);
  void NodesLost(const proto::NodeLost& lost);
  // A SessionKilled step (psched-ctl kill, launcher gone, a fatal signal while queued):
  // a running session's ranks get SIGTERM, then SIGKILL after its kill wait; a queued
  // one is dropped.
  void Kill(int64_t id, int code, const std::string& why);
  // Carries out what a step ended: the kill orders of the sessions that failed (their
  // output released first, so that their pipes drain to the end), and the queued
  // sessions dropped, told to their launcher or waiting parent and forgotten.
  void EndSessions(const sched::leader::Outcome& outcome);
  void Finish(int64_t id);
  // The plan of the step just taken (arrival, end of a session, round, connect, the
  // user's stop or resume), in the snapshot already and in flight
  // (sched::leader::InFlight), on the nodes: the plan executor carries out its node
  // operations on sessions as they were before it (none on sessions the user stopped:
  // sched::leader::NodePlan) and RecordPlan keeps their time, then PlanDone.
  void Execute(const sched::Plan& plan, double grace_s);
  // The nodes carried out a plan (or it failed and was rolled back): a PlanCarriedOut
  // step decides what follows; this carries it out (the sessions it started, those it
  // queued, what their launchers are told; after a failure, PlanFailed).
  void PlanDone(const sched::Plan& plan, Result<void> ok);
  // A failed plan's outcome: the failure logged and told to every session it concerned,
  // its arrival refused, and the queued sessions that can start without it started; the
  // rest is retried at the next scheduling round (round.hpp).
  void PlanFailed(const sched::leader::Outcome& undone);
  // The user's stop or resume in flight landed or was undone (`ok`: the nodes' error,
  // whose code the answer keeps): UserSuspendOrResume's `answered` is called.
  void AnswerUserControl(const sched::leader::Outcome::UserControlDone& done,
                         const Result<void>& ok);
  void NoteToLauncher(const LiveSession& s, const std::string& text);
  static void OnPlanTimeout(evutil_socket_t, short, void* arg);
  bool Queued(int64_t id) const;
  // Keeps how long the nodes took for a plan (status "plans": bench/policies reads it).
  void RecordPlan(const sched::Plan& plan, const sched::Snapshot& before,
                  std::chrono::steady_clock::duration took, bool ok);
  // Runs what waited for a plan in flight: one plan at a time keeps rollback simple.
  void RunDeferred();
  // connect_yield.cpp: `connector` connected to `victim`: the Connect step's plan (a
  // surpass yields to its victim), carried out as any other.
  void YieldTo(int64_t connector, int64_t victim);
  // What status adds to the state of a session whose surpasser connected to it: ", was
  // surpassed: 2 connected to it" (", sharing 2's slots, was ..." when resumed in place), or "".
  std::string YieldedDetail(const sched::leader::Session& s, const sched::Session& model) const;
  // comm_spawn.cpp: the answer to the asking node (once), children's output and
  // failures to the parent's launcher, children killed with their parent.
  // `parent`: the children's MPI_Comm_spawn parent when the state no longer has them.
  void AnswerCommSpawn(LiveSession& child, bool ok, const std::string& message,
                       int64_t parent = sched::kNoSession);
  // OnCommSpawnRequest's check of the request itself: the refusal the parent's launcher is told.
  void RegisterChild(const sched::SessionRequest& request, const proto::CommSpawnRequest& ask,
                     const LiveSession& parent, int from);
  void SendCommSpawnReply(int node, const std::string& service, const proto::CommSpawnReply& reply);
  void ForwardChildOutput(LiveSession& child, proto::Output out);
  void ChildEnded(LiveSession& child);
  void NoteToParent(const LiveSession& child, const std::string& text);
  // A client's user name, the owner of its sessions; see user_names_.
  const std::string& UserName(uid_t uid);
  LiveSession* Find(int64_t id);
  double Now() const;

  const Clock& clock_;
  const Clock::TimePoint started_;
  PeerLink& peers_;
  proto::IdBounds ids_;  // what a node's frame may name: this allocation's nodes
  config::Config config_;
  sched::leader::AllocatorCache allocators_;  // one instance per name: auction/ipwindow keep state
  PlanExecutor executor_;
  event* plan_timer_ = nullptr;  // the executor's timeout for its transaction in flight
  int64_t plan_timer_txn_ = 0;
  std::deque<std::function<void()>> deferred_;
  // The answer owed for the user's stop or resume in flight (one plan at a time).
  std::function<void(Result<void>)> user_control_answer_;
  std::vector<proto::PlanTime> plan_times_;  // the last 64 plans that acted on nodes
  Callbacks callbacks_;
  // The leader's decision state (scheduler/leader/): the snapshot, each session's
  // policy, allocator, parent and user stop, the owners' histories, the lost nodes.
  sched::leader::State state_;
  monitor::MetricsBoard metrics_;  // what the nodes' monitors measured
  // Looked up once per uid: getpwuid reads /etc/nsswitch.conf and /etc/passwd again on
  // every call, ~30 us of every launch (perf: 4% of pschedd's time over warm launches).
  std::map<uid_t, std::string> user_names_;
  std::map<int64_t, LiveSession> sessions_;
  // The config's module once every node has joined (BuildPriority); fcfs before that
  // and when the config's cannot be built.
  void BuildPriority();
  std::unique_ptr<sched::prio::PriorityModule> priority_;
};

}  // namespace psched::daemon
