// The node side of sessions: this node's ranks of each session, their output
// pipes, stdin of rank 0, signals, suspend/resume and reaping (SIGCHLD).
//
// It acts on orders routed from the leader (session.start_ranks, .signal, .kill, ...)
// and reports back through `send_up`: io.output as lines arrive, session.rank_exited
// at once for a failing rank, session.node_done when every local rank has exited
// and its pipes are drained (so no output can follow it).
#pragma once

#include <event2/event.h>
#include <sched.h>
#include <sys/types.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "daemon/launch_hooks.hpp"
#include "proto/messages.hpp"
#include "scheduler/model.hpp"

namespace psched::daemon {

class SessionFreezer;

// How long a suspended session runs after a signal that would end it (INT, TERM, HUP,
// KILL), so that the signal can act, before what survived it is stopped again.
inline constexpr double kFatalSignalGraceS = 1.0;

class NodeService {
 public:
  using SendUp = std::function<void(proto::MsgType, proto::Json)>;

  NodeService(event_base* base, int node, std::vector<int> real_pus, SendUp send_up);
  ~NodeService();

  void SetHooks(LaunchHooks* hooks) { hooks_ = hooks; }
  // Runs when a session has no live rank left on this node (after the hooks heard it).
  void SetSessionEndedObserver(std::function<void(int64_t session)> observer) {
    session_ended_ = std::move(observer);
  }
  // With a freezer ([policy] suspend = "freezer"), each session's ranks join its cgroup
  // here, Suspend freezes it (Frozen() confirms), Resume thaws it, and the cgroup goes
  // when the session ends. Without one, Suspend is SIGSTOP.
  void SetFreezer(SessionFreezer* freezer) { freezer_ = freezer; }
  // "NAME=value" entries every rank gets unless its environment (the launcher's) sets
  // NAME, besides the hooks' (a folded emulation's yield-when-idle).
  void SetEnvironmentDefaults(std::vector<std::string> defaults) {
    env_defaults_ = std::move(defaults);
  }
  SessionFreezer* freezer() const { return freezer_; }
  // In a Slurm allocation each rank gets srun's per-task variables for where it runs
  // (slurm_task_env.hpp) instead of the launcher's.
  void SetSlurmTaskEnvironment(bool on) { slurm_task_env_ = on; }
  // A session.start_ranks order: the session is registered, its launch hook asked, and
  // then its ranks placed on this node start (StartLocalRanks).
  void StartRanks(const proto::StartRanksOrder& order);
  // To every local process of the session. A suspended session gets kFatalSignalGraceS
  // to act on one that would end it, and is then stopped again.
  void Signal(int64_t session, int sig);
  // Ends the session's ranks here: SIGTERM now, SIGKILL after `grace_s` to whatever is
  // left (at once for 0; at most config::kMaxKillWaitS). Their output up to their end is still
  // forwarded, and the session ends here as when they exit on their own.
  void Terminate(int64_t session, double grace_s);
  Result<void> Suspend(int64_t session);
  void Resume(int64_t session);
  // (rank, pid) of the session's ranks on this node that have not exited (co-scheduling).
  std::vector<std::pair<int, pid_t>> LocalProcesses(int64_t session);
  // Rank 0's stdin; io.stdin_written tells the launcher how much rank 0 has taken.
  void Stdin(const proto::StdinData& data);
  // Held: the session's output pipes are not read, so its ranks block writing once they
  // are full (the launcher does not keep up); released: read again.
  void HoldOutput(int64_t session, bool held);
  // The link toward the leader: how much waits to be written on it, and a call once it is
  // down to a number of bytes. Once kUpstreamHoldAt wait, no rank's output is read here
  // until kUpstreamReleaseAt: the leader's hold (HoldOutput) reaches a node only after
  // what it sent before, and a node reading at full speed while the leader's daemon is not
  // scheduled would pile up output without bound, for the leader to take in later.
  struct Upstream {
    std::function<size_t()> backlog;
    std::function<void(size_t bytes, std::function<void()> drained)> when_drained;
  };
  static constexpr size_t kUpstreamHoldAt = 4u << 20, kUpstreamReleaseAt = 1u << 20;
  void SetUpstream(Upstream upstream) { upstream_ = std::move(upstream); }
  void KillAll();  // the daemon is going away
  size_t num_sessions() const { return sessions_.size(); }

 private:
  struct Stream;
  struct StdinSink;
  struct LocalRank;
  struct LocalSession;

  // Whether s.pgid still names the session's process group (not a reused pid).
  static bool GroupIsTheSessions(const LocalSession& s);
  // The ranks of a session whose launch hook has answered (`hooked`).
  void StartLocalRanks(const proto::StartRanksOrder& order, Result<void> hooked);
  // One rank of them: `cpus` its CPU set (CpuSetFor its PUs), `local_size` the session's
  // ranks on this node.
  void StartRank(LocalSession& s, const proto::StartRanksOrder& order, const proto::RankSpec& spec,
                 const cpu_set_t& cpus, int local_size);
  // A rank that failed before it ran: reported up as exited with `code`, kept as reaped.
  void RankNeverStarted(LocalSession& s, int rank, int code, int signal, const std::string& why);
  // Rank 0's stdin buffer, reporting what it writes up to the session's launcher.
  std::unique_ptr<StdinSink> MakeStdinSink(int64_t session);
  std::vector<std::string> RankEnv(const proto::StartRanksOrder& order, const proto::RankSpec& spec,
                                   int local_size);
  static void OnSigchld(evutil_socket_t, short, void* arg);
  static void OnReapDue(evutil_socket_t, short, void* arg);
  static void OnReadable(evutil_socket_t fd, short, void* arg);
  // The ranks that have exited, seen without reaping them (waitid WNOWAIT): their ends
  // are reported first, and the reaping (the kernel's release of the process, a large
  // part of the daemon's work in a short session) waits for the next turn of the loop.
  void NoteExits();
  void Reap();
  void Drain(Stream& stream);
  void Flush(Stream& stream, bool final);
  // Reads the session's open output streams, or not: not while the session is held or
  // the link toward the leader is backlogged.
  void ReadOutput(LocalSession& s);
  void HoldUpstream();
  void RankExited(LocalSession& s, LocalRank& r, int status);
  void MaybeFinish(int64_t session);
  void KillLeftovers(LocalSession& s);
  void LetTheSignalAct(LocalSession& s);
  static void OnGraceOver(evutil_socket_t, short, void* arg);
  static void OnKillWaitOver(evutil_socket_t, short, void* arg);
  // SIGSTOP or freeze; SIGCONT (and thaw). The session's `suspended` stays as it is.
  Result<void> Stop(LocalSession& s);
  void Continue(LocalSession& s);
  LocalSession* Find(int64_t session);
  // The rank by_pid_ says `pid` is, while its session is still here.
  LocalRank* RankOf(pid_t pid, std::pair<int64_t, int> where);

  event_base* base_;
  int node_;
  std::vector<int> real_pus_;
  SendUp send_up_;
  LaunchHooks* hooks_ = nullptr;
  std::function<void(int64_t)> session_ended_;
  SessionFreezer* freezer_ = nullptr;
  bool slurm_task_env_ = false;
  std::vector<std::string> env_defaults_;
  event* sigchld_ = nullptr;
  event* reap_due_ = nullptr;  // Reap() at the next turn of the loop, after NoteExits
  std::map<int64_t, std::unique_ptr<LocalSession>> sessions_;
  // pid -> (session, index in ranks) of every rank not reaped yet; an exited one stays
  // until it is reaped, possibly after its session ended here.
  std::map<pid_t, std::pair<int64_t, int>> by_pid_;
  Upstream upstream_;
  bool upstream_held_ = false;  // kUpstreamHoldAt reached: no output is read
};

}  // namespace psched::daemon
