#include "daemon/node/node_service.hpp"

#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <unordered_map>

#include "common/timeval.hpp"
#include "config/config.hpp"
#include "daemon/node/freezer.hpp"
#include "daemon/node/ompi_env.hpp"
#include "daemon/node/rank_exec.hpp"
#include "daemon/node/slurm_task_env.hpp"
#include "daemon/node/start_order.hpp"
#include "daemon/node/topology.hpp"

extern char** environ;

namespace psched::daemon {

// Output is forwarded in whole lines, at most this much per message.
constexpr size_t kChunk = size_t{64} * 1024;

namespace {

// A signal a user sends to end a session (psched-exec's INT, TERM, HUP; psched-ctl kill).
bool EndsASession(int sig) {
  return sig == SIGKILL || sig == SIGTERM || sig == SIGINT || sig == SIGHUP;
}

}  // namespace

struct NodeService::Stream {
  NodeService* owner = nullptr;
  int64_t session = 0;
  int rank = 0;
  int which = 1;  // 1 stdout, 2 stderr
  int fd = -1;
  event* ev = nullptr;
  std::string pending;  // bytes after the last newline
  bool open = false;
  ~Stream() {
    if (ev) event_free(ev);
    if (fd >= 0) close(fd);
  }
};

struct NodeService::LocalRank {
  int rank = 0;
  pid_t pid = -1;
  bool exited = false;  // its end is known (`exit`): seen by waitid WNOWAIT, or reaped
  bool reaped = false;  // its pid is released: until then it names this rank, a zombie
  proto::RankExit exit;
  std::unique_ptr<Stream> out, err;
  bool Done() const { return exited && !(out && out->open) && !(err && err->open); }
};

// Rank 0's stdin: non-blocking, buffered, so a rank that does not read never blocks the
// daemon. The launcher keeps no more than proto::kStdinWindow in flight and reads on as
// the sink reports what it has written (`report`), so the buffer stays within the window.
// Input beyond it comes only from a client that ignores the window: dropped, and said so.
struct NodeService::StdinSink {
  static constexpr size_t kMaxPending = proto::kStdinWindow;
  using Report = std::function<void(uint64_t written, bool closed)>;
  int fd = -1;
  event* ev = nullptr;
  std::string pending;
  bool eof = false;
  bool warned = false;
  uint64_t written = 0;   // bytes written to rank 0 since the session started
  uint64_t reported = 0;  // the count last reported
  Report report;
  ~StdinSink() { Close(); }
  void Close() {
    if (ev) event_free(ev);
    if (fd >= 0) close(fd);
    ev = nullptr;
    fd = -1;
    pending.clear();
  }
  // Writes what the pipe takes; waits for writability for the rest.
  void Flush() {
    while (fd >= 0 && !pending.empty()) {
      ssize_t n = write(fd, pending.data(), pending.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EAGAIN) break;
      if (n <= 0) return RankClosed();
      pending.erase(0, static_cast<size_t>(n));
      written += static_cast<uint64_t>(n);
    }
    if (written - reported >= proto::kStdinReportEvery) {
      reported = written;
      if (report) report(written, false);
    }
    if (fd >= 0 && !pending.empty()) return void(event_add(ev, nullptr));
    if (fd >= 0 && eof) Close();
  }
  // Rank 0 closed its stdin (or is gone): the rest is dropped, as mpiexec does, and the
  // launcher stops reading.
  void RankClosed() {
    Close();
    if (report) report(written, true);
  }
  static void OnWritable(evutil_socket_t, short, void* arg) {
    static_cast<StdinSink*>(arg)->Flush();
  }
};

struct NodeService::LocalSession {
  NodeService* owner = nullptr;
  int64_t id = 0;
  pid_t pgid = 0;
  std::vector<LocalRank> ranks;
  std::unique_ptr<StdinSink> stdin_sink;
  bool suspended = false;
  bool output_held = false;       // flow control (HoldOutput)
  bool starting = true;           // the launch hook has not answered yet
  int killed_before_start = 0;    // a fatal signal that arrived meanwhile
  bool leftovers_killed = false;  // every rank exited and what they left was killed
  event* stop_again = nullptr;    // ends the grace a fatal signal got while suspended
  event* kill_after = nullptr;    // Terminate's SIGKILL, once its grace is over
  ~LocalSession() {
    if (stop_again) event_free(stop_again);
    if (kill_after) event_free(kill_after);
  }
};

NodeService::NodeService(event_base* base, int node, std::vector<int> real_pus, SendUp send_up)
    : base_(base), node_(node), real_pus_(std::move(real_pus)), send_up_(std::move(send_up)) {
  sigchld_ = evsignal_new(base_, SIGCHLD, &NodeService::OnSigchld, this);
  event_add(sigchld_, nullptr);
  reap_due_ = evtimer_new(base_, &NodeService::OnReapDue, this);
}

NodeService::~NodeService() {
  KillAll();
  if (sigchld_) event_free(sigchld_);
  if (reap_due_) event_free(reap_due_);
}

NodeService::LocalSession* NodeService::Find(int64_t session) {
  auto it = sessions_.find(session);
  return it == sessions_.end() ? nullptr : it->second.get();
}

void NodeService::StartRanks(const proto::StartRanksOrder& order) {
  if (Find(order.session) != nullptr) return;  // duplicate order
  auto s = std::make_unique<LocalSession>();
  s->owner = this;
  s->id = order.session;
  SessionLaunchInfo info{order.session,
                         order.nspace,
                         node_,
                         order.size,
                         order.threads_per_rank,
                         order.ranks,
                         {},
                         order.hostnames,
                         {},
                         order.parent_nspace,
                         order.parent_rank,
                         order.app_sizes,
                         order.mpi,
                         std::max(order.size, order.universe_size),
                         order.env};
  for (const auto& r : order.ranks) {
    if (r.node == node_) info.local_ranks.push_back(r.rank);
    if (info.nodes.empty() || info.nodes.back() != r.node) info.nodes.push_back(r.node);
  }
  if (info.local_ranks.empty()) return;
  std::sort(info.nodes.begin(), info.nodes.end());
  info.nodes.erase(std::unique(info.nodes.begin(), info.nodes.end()), info.nodes.end());
  sessions_[order.session] = std::move(s);
  // The hook may answer later (PMIx registration): the ranks fork then.
  auto start = [this, order](Result<void> hooked) { StartLocalRanks(order, std::move(hooked)); };
  if (hooks_) {
    hooks_->SessionStartingAsync(info, std::move(start));
  } else {
    start({});
  }
}

void NodeService::StartLocalRanks(const proto::StartRanksOrder& order, Result<void> hooked) {
  LocalSession* found = Find(order.session);
  if (found == nullptr || !found->starting) return;
  LocalSession& session = *found;
  session.starting = false;
  std::vector<cpu_set_t> cpus;
  std::vector<const proto::RankSpec*> local;
  for (const auto& r : order.ranks) {
    if (r.node != node_) continue;
    local.push_back(&r);
    cpus.push_back(CpuSetFor(r.pus, real_pus_));
  }
  for (size_t i : RankStartOrder(cpus, sched_getcpu())) {
    const proto::RankSpec& r = *local[i];
    if (hooked && session.killed_before_start == 0) {
      StartRank(session, order, r, cpus[i], static_cast<int>(local.size()));
      continue;
    }
    if (int sig = session.killed_before_start; sig != 0) {
      RankNeverStarted(session, r.rank, 128 + sig, sig,
                       "killed by signal " + std::to_string(sig) + " before it started");
    } else {
      RankNeverStarted(session, r.rank, 1, 0, "launch hook failed: " + hooked.error().ToString());
    }
  }
  // Kept in rank order whatever the order they started in.
  std::stable_sort(session.ranks.begin(), session.ranks.end(),
                   [](const LocalRank& a, const LocalRank& b) { return a.rank < b.rank; });
  for (size_t i = 0; i < session.ranks.size(); ++i)
    if (session.ranks[i].pid > 0) by_pid_[session.ranks[i].pid].second = static_cast<int>(i);
  // Suspended while the hook worked: suspend the ranks that just started.
  if (session.suspended) (void)Suspend(order.session);
  MaybeFinish(order.session);
}

void NodeService::RankNeverStarted(LocalSession& s, int rank, int code, int signal,
                                   const std::string& why) {
  LocalRank failed;
  failed.rank = rank;
  failed.exited = failed.reaped = true;
  failed.exit = {s.id, rank, node_, code, signal, why};
  send_up_(proto::MsgType::kSessionRankExited, proto::Json(failed.exit));
  s.ranks.push_back(std::move(failed));
}

std::vector<std::string> NodeService::RankEnv(const proto::StartRanksOrder& order,
                                              const proto::RankSpec& spec, int local_size) {
  // NAME=value entries in the order first set, a later value replacing an earlier one in
  // place. `at` finds a name's entry: a scan per entry made this quadratic in the number
  // of variables (~100 in a usual launch, often more), for every rank of every launch.
  std::vector<std::string> out;
  std::unordered_map<std::string, size_t> at;  // name -> index in out
  auto set = [&](std::string_view entry) {
    const auto eq = entry.find('=');
    std::string whole(entry);
    if (eq == std::string_view::npos) whole += '=';  // "NAME" sets NAME empty
    auto [it, fresh] = at.try_emplace(std::string(entry.substr(0, eq)), out.size());
    if (fresh) {
      out.push_back(std::move(whole));
    } else {
      out[it->second] = std::move(whole);
    }
  };
  // The launcher sends its environment; an empty one means "use the daemon's".
  if (order.env.empty())
    for (char** e = environ; *e != nullptr; ++e) set(*e);
  for (const auto& e : order.env) set(e);
  auto set_unless_given = [&](const std::string& e) {
    if (!at.contains(e.substr(0, e.find('=')))) set(e);
  };
  for (const auto& e : env_defaults_) set_unless_given(e);
  if (hooks_) {
    for (const auto& e : hooks_->EnvironmentDefaults()) set_unless_given(e);
  }
  set("PSCHED_RANK=" + std::to_string(spec.rank));
  set("PSCHED_SIZE=" + std::to_string(order.size));
  set("PSCHED_LOCAL_RANK=" + std::to_string(spec.local_rank));
  set("PSCHED_LOCAL_SIZE=" + std::to_string(local_size));
  set("PSCHED_NODE=" + std::to_string(node_));
  set("PSCHED_SESSION=" + std::to_string(order.session));
  set("OMP_NUM_THREADS=" + std::to_string(order.threads_per_rank));
  if (slurm_task_env_)
    for (const auto& e : SlurmTaskEnvironment(order, spec)) set(e);
  // Node rank as local rank here: the PMIx hook below knows the node rank across
  // sessions (a spawned child's follow its parent's) and sets it when it runs.
  for (const auto& e :
       OmpiWorldEnv({spec.rank, order.size, spec.local_rank, local_size, spec.local_rank}))
    set(e);
  if (hooks_) {
    if (auto extra = hooks_->RankEnvironment(order.session, spec.rank))
      for (const auto& e : *extra) set(e);
  }
  return out;
}

void NodeService::StartRank(LocalSession& s, const proto::StartRanksOrder& order,
                            const proto::RankSpec& spec, const cpu_set_t& cpus, int local_size) {
  RankExecSpec ss;
  ss.argv = order.argv;
  ss.env = RankEnv(order, spec, local_size);
  ss.cwd = order.cwd;
  ss.cpus = cpus;
  ss.bind = !spec.pus.empty();
  ss.pgid = s.pgid;
  ss.with_stdin = spec.rank == 0;
  ss.stdout_pty = order.stdout_pty;
  if (hooks_) ss.inherit_fds = hooks_->RankDescriptors(order.session, spec.rank);
  auto joined = freezer_ ? freezer_->JoinFd(s.id) : Result<int>(-1);
  if (joined) ss.cgroup_procs_fd = *joined;
  auto spawned = joined ? ExecRank(ss) : Result<RankProcess>(std::unexpected(joined.error()));
  if (!spawned) {
    // The shell's convention: 127 for a command not found, 126 for one that cannot run.
    return RankNeverStarted(s, spec.rank,
                            spawned.error().code() == ErrorCode::kNotFound ? 127 : 126, 0,
                            spawned.error().ToString());
  }
  LocalRank r;
  r.rank = spec.rank;
  if (s.pgid == 0) s.pgid = spawned->pid;
  r.pid = spawned->pid;
  if (spawned->in_fd >= 0) {
    // Input that arrived while the session was starting waits in the sink: it goes out now.
    if (!s.stdin_sink) s.stdin_sink = MakeStdinSink(s.id);
    s.stdin_sink->fd = spawned->in_fd;
    evutil_make_socket_nonblocking(spawned->in_fd);
    s.stdin_sink->ev =
        event_new(base_, spawned->in_fd, EV_WRITE, &StdinSink::OnWritable, s.stdin_sink.get());
    s.stdin_sink->Flush();
  }
  auto make_stream = [&](int fd, int which) {
    auto st = std::make_unique<Stream>();
    st->owner = this;
    st->session = s.id;
    st->rank = spec.rank;
    st->which = which;
    st->fd = fd;
    st->open = true;
    evutil_make_socket_nonblocking(fd);
    st->ev = event_new(base_, fd, EV_READ | EV_PERSIST, &NodeService::OnReadable, st.get());
    if (!s.output_held && !upstream_held_) event_add(st->ev, nullptr);
    return st;
  };
  r.out = make_stream(spawned->out_fd, 1);
  r.err = make_stream(spawned->err_fd, 2);
  by_pid_[r.pid] = {s.id, static_cast<int>(s.ranks.size())};
  s.ranks.push_back(std::move(r));
}

void NodeService::HoldOutput(int64_t session, bool held) {
  LocalSession* s = Find(session);
  if (s == nullptr || s->output_held == held) return;
  s->output_held = held;
  ReadOutput(*s);
}

void NodeService::ReadOutput(LocalSession& s) {
  const bool read = !s.output_held && !upstream_held_;
  for (LocalRank& r : s.ranks) {
    for (Stream* st : {r.out.get(), r.err.get()}) {
      if (st == nullptr || !st->open) continue;
      if (read) {
        event_add(st->ev, nullptr);
      } else {
        event_del(st->ev);
      }
    }
  }
}

void NodeService::HoldUpstream() {
  upstream_held_ = true;
  for (auto& [id, s] : sessions_) ReadOutput(*s);
  // The daemon stops when its parent link closes: a hold never outlives it.
  upstream_.when_drained(kUpstreamReleaseAt, [this] {
    upstream_held_ = false;
    for (auto& [id, s] : sessions_) ReadOutput(*s);
  });
}

void NodeService::OnReadable(evutil_socket_t, short, void* arg) {
  auto* stream = static_cast<Stream*>(arg);
  int64_t session = stream->session;
  stream->owner->Drain(*stream);
  if (!stream->open) stream->owner->MaybeFinish(session);  // may free `stream`
}

void NodeService::Drain(Stream& st) {
  char buf[kChunk];
  // Bounded work per callback: one read, then forward the complete lines.
  ssize_t n = read(st.fd, buf, sizeof buf);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (n > 0) {
    st.pending.append(buf, static_cast<size_t>(n));
    Flush(st, false);
    return;
  }
  Flush(st, true);  // EOF or error: the rank closed this stream
  event_del(st.ev);
  st.open = false;
}

void NodeService::Flush(Stream& st, bool final) {
  size_t cut = final ? st.pending.size() : st.pending.rfind('\n');
  if (cut == std::string::npos) {
    if (st.pending.size() < kChunk) return;  // a very long line goes out in pieces
    cut = st.pending.size();
  } else if (!final) {
    ++cut;
  }
  if (cut == 0) return;
  proto::Output out{st.session, st.rank, st.which, st.pending.substr(0, cut)};
  st.pending.erase(0, cut);
  send_up_(proto::MsgType::kIoOutput, proto::Json(out));
  if (!upstream_held_ && upstream_.backlog && upstream_.backlog() >= kUpstreamHoldAt)
    HoldUpstream();
}

void NodeService::OnSigchld(evutil_socket_t, short, void* arg) {
  auto* self = static_cast<NodeService*>(arg);
  self->NoteExits();
  // At the loop's next turn: the ends just reported are on their way by then (written
  // at once, or by the local leader's handling in this turn).
  timeval now{0, 0};
  evtimer_add(self->reap_due_, &now);
}

void NodeService::OnReapDue(evutil_socket_t, short, void* arg) {
  static_cast<NodeService*>(arg)->Reap();
}

namespace {

// The wait status (as waitpid gives it) of a child waitid saw exit.
int WaitStatusOf(const siginfo_t& info) {
  switch (info.si_code) {
    case CLD_KILLED:
      return info.si_status;
    case CLD_DUMPED:
      return info.si_status | WCOREFLAG;
    default:  // CLD_EXITED
      return W_EXITCODE(info.si_status, 0);
  }
}

}  // namespace

NodeService::LocalRank* NodeService::RankOf(pid_t pid, std::pair<int64_t, int> where) {
  LocalSession* s = Find(where.first);
  if (s == nullptr || where.second >= static_cast<int>(s->ranks.size())) return nullptr;
  LocalRank& r = s->ranks[where.second];
  return r.pid == pid ? &r : nullptr;
}

void NodeService::NoteExits() {
  // Looked at first, handled after: a rank's end runs hooks that may end sessions.
  std::vector<std::pair<pid_t, int>> exits;  // pid, wait status
  for (const auto& [pid, where] : by_pid_) {
    const LocalRank* r = RankOf(pid, where);
    if (r == nullptr || r->exited) continue;
    siginfo_t info{};
    if (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
        info.si_pid == pid)
      exits.emplace_back(pid, WaitStatusOf(info));
  }
  std::vector<int64_t> touched;
  for (auto [pid, status] : exits) {
    auto it = by_pid_.find(pid);
    if (it == by_pid_.end()) continue;
    LocalRank* r = RankOf(pid, it->second);
    if (r == nullptr || r->exited) continue;
    RankExited(*Find(it->second.first), *r, status);
    touched.push_back(it->second.first);
  }
  for (int64_t id : touched) MaybeFinish(id);
}

void NodeService::Reap() {
  std::vector<int64_t> touched;
  int status = 0;
  pid_t pid;
  while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
    auto it = by_pid_.find(pid);
    if (it == by_pid_.end()) continue;  // not a rank (e.g. a helper): nothing to report
    const auto where = it->second;
    by_pid_.erase(it);
    LocalRank* r = RankOf(pid, where);
    if (r == nullptr) continue;  // exited, reported, and its session ended here since
    r->reaped = true;
    if (!r->exited) {  // it exited after NoteExits looked
      RankExited(*Find(where.first), *r, status);
      touched.push_back(where.first);
    }
  }
  for (int64_t id : touched) MaybeFinish(id);
}

void NodeService::RankExited(LocalSession& s, LocalRank& r, int status) {
  r.exited = true;
  r.exit.session = s.id;
  r.exit.rank = r.rank;
  r.exit.node = node_;
  if (WIFSIGNALED(status)) {
    r.exit.signal = WTERMSIG(status);
    r.exit.code = 128 + r.exit.signal;
    r.exit.cause =
        "killed by signal " + std::to_string(r.exit.signal) + " (" + strsignal(r.exit.signal) + ")";
  } else {
    r.exit.code = WEXITSTATUS(status);
    r.exit.cause = "exited with status " + std::to_string(r.exit.code);
  }
  if (r.exit.code != 0) send_up_(proto::MsgType::kSessionRankExited, proto::Json(r.exit));
  if (hooks_) hooks_->RankExited(s.id, r.rank, r.exit.code);
}

void NodeService::MaybeFinish(int64_t session) {
  LocalSession* s = Find(session);
  if (s == nullptr) return;
  if (!s->leftovers_killed &&
      std::all_of(s->ranks.begin(), s->ranks.end(), [](const LocalRank& r) { return r.exited; }))
    KillLeftovers(*s);
  for (const LocalRank& r : s->ranks)
    if (!r.Done()) return;
  proto::NodeDone done{session, node_, {}};
  for (const LocalRank& r : s->ranks) done.exits.push_back(r.exit);
  sessions_.erase(session);
  if (freezer_) freezer_->Remove(session);
  if (hooks_) hooks_->SessionEnded(session);
  if (session_ended_) session_ended_(session);
  send_up_(proto::MsgType::kSessionNodeDone, proto::Json(done));
}

// Every rank here has exited: what they left running (background jobs, helpers that
// would run on, reparented to init and still pinned, after the whole allocation) ends
// with them, as Slurm's proctrack ends a step's processes. The session's group holds
// them unless they left it (setsid); the freezer's cgroup holds those too.
void NodeService::KillLeftovers(LocalSession& s) {
  s.leftovers_killed = true;
  if (GroupIsTheSessions(s)) kill(-s.pgid, SIGKILL);
  if (freezer_) freezer_->KillProcesses(s.id);
}

// A group's id is its leader's pid, and pid_max may be as small as 32768: once the
// leader rank is reaped and the group has emptied, that pid can come back as the
// leader of someone else's group. While the leader is unreaped (exited or not) this
// daemon holds its pid; once reaped, a live process with that pid is not the leader
// rank, so the group of that id is not the session's any more.
bool NodeService::GroupIsTheSessions(const LocalSession& s) {
  if (s.pgid <= 0) return false;
  for (const LocalRank& r : s.ranks) {
    if (r.pid != s.pgid) continue;
    return !r.reaped || (kill(s.pgid, 0) != 0 && errno == ESRCH);
  }
  return false;
}

void NodeService::Signal(int64_t session, int sig) {
  LocalSession* s = Find(session);
  if (s == nullptr) return;
  if (s->starting && EndsASession(sig))
    s->killed_before_start = sig;  // StartRanks reports its ranks as killed
  if (GroupIsTheSessions(*s)) kill(-s->pgid, sig);
  // A rank that left the group (setsid) still gets it directly; one still in it must
  // not get it twice (a USR1 handler would run twice).
  for (const LocalRank& r : s->ranks)
    if (!r.exited && r.pid > 0 && (s->pgid <= 0 || getpgid(r.pid) != s->pgid)) kill(r.pid, sig);
  if (s->suspended && EndsASession(sig)) LetTheSignalAct(*s);
}

void NodeService::Terminate(int64_t session, double grace_s) {
  LocalSession* s = Find(session);
  if (s == nullptr) return;
  // NaN and negatives from the wire mean no grace.
  const double grace = grace_s > 0 ? std::min(grace_s, config::kMaxKillWaitS) : 0;
  if (grace == 0) return Signal(session, SIGKILL);
  if (s->kill_after != nullptr) return;  // already ending: the first grace holds
  if (hooks_) hooks_->SessionEnding(session);
  Signal(session, SIGTERM);
  s->kill_after = evtimer_new(base_, &NodeService::OnKillWaitOver, s);
  timeval wait = TimevalFromSeconds(grace);
  evtimer_add(s->kill_after, &wait);
}

void NodeService::OnKillWaitOver(evutil_socket_t, short, void* arg) {
  auto* s = static_cast<LocalSession*>(arg);
  s->owner->Signal(s->id, SIGKILL);
}

// A stopped process only acts on a fatal signal once continued: the session runs for
// kFatalSignalGraceS, and whatever is left then (a rank that catches or ignores the
// signal: a checkpoint on TERM, a shell) is stopped again. The leader still counts the
// session suspended and its slots may be another's; a user who wants it gone for sure
// sends SIGKILL (psched-ctl kill), which nothing survives.
void NodeService::LetTheSignalAct(LocalSession& s) {
  Continue(s);
  if (s.stop_again == nullptr) s.stop_again = evtimer_new(base_, &NodeService::OnGraceOver, &s);
  timeval grace = TimevalFromSeconds(kFatalSignalGraceS);
  evtimer_add(s.stop_again, &grace);
}

void NodeService::OnGraceOver(evutil_socket_t, short, void* arg) {
  auto* s = static_cast<LocalSession*>(arg);
  if (s->suspended) (void)s->owner->Stop(*s);  // not when resumed meanwhile
}

Result<void> NodeService::Suspend(int64_t session) {
  LocalSession* s = Find(session);
  if (s == nullptr) return {};
  s->suspended = true;
  return Stop(*s);
}

void NodeService::Resume(int64_t session) {
  if (LocalSession* s = Find(session)) {
    s->suspended = false;
    Continue(*s);
  }
}

Result<void> NodeService::Stop(LocalSession& s) {
  if (s.stop_again) evtimer_del(s.stop_again);  // stopped now: no grace left to end
  if (freezer_ == nullptr) {
    Signal(s.id, SIGSTOP);
    return {};
  }
  auto ok = freezer_->Freeze(s.id);
  if (!ok) std::fprintf(stderr, "pschedd[%d]: %s\n", node_, ok.error().ToString().c_str());
  return ok;
}

void NodeService::Continue(LocalSession& s) {
  if (freezer_) {
    if (auto ok = freezer_->Thaw(s.id); !ok)
      std::fprintf(stderr, "pschedd[%d]: %s\n", node_, ok.error().ToString().c_str());
  }
  // Also after a thaw: a surpass grace's SIGTSTP may have stopped some ranks.
  Signal(s.id, SIGCONT);
}

std::vector<std::pair<int, pid_t>> NodeService::LocalProcesses(int64_t session) {
  std::vector<std::pair<int, pid_t>> out;
  if (LocalSession* s = Find(session)) {
    for (const LocalRank& r : s->ranks)
      if (!r.exited && r.pid > 0) out.emplace_back(r.rank, r.pid);
  }
  return out;
}

std::unique_ptr<NodeService::StdinSink> NodeService::MakeStdinSink(int64_t session) {
  auto sink = std::make_unique<StdinSink>();
  sink->report = [this, session](uint64_t written, bool closed) {
    send_up_(proto::MsgType::kIoStdinWritten,
             proto::Json(proto::StdinWritten{session, written, closed}));
  };
  return sink;
}

void NodeService::Stdin(const proto::StdinData& data) {
  LocalSession* s = Find(data.session);
  if (s == nullptr) return;
  // The launcher sends input once the session has started, which can be before rank 0
  // exists here (the launch hook answers later): keep it for rank 0 (bounded below).
  if (s->starting && !s->stdin_sink) s->stdin_sink = MakeStdinSink(s->id);
  if (!s->stdin_sink || (s->stdin_sink->fd < 0 && !s->starting)) {
    // Rank 0 never started, or has closed its stdin: the launcher is to stop sending.
    return send_up_(proto::MsgType::kIoStdinWritten,
                    proto::Json(proto::StdinWritten{data.session, 0, true}));
  }
  StdinSink& sink = *s->stdin_sink;
  if (sink.pending.size() + data.data.size() > StdinSink::kMaxPending) {
    if (!sink.warned) {
      std::fprintf(stderr,
                   "pschedd[%d]: session %ld: rank 0 does not read its stdin; "
                   "dropping input beyond %zu buffered bytes\n",
                   node_, static_cast<long>(data.session), StdinSink::kMaxPending);
    }
    sink.warned = true;
  } else {
    sink.pending += data.data;
  }
  sink.eof = sink.eof || data.eof;
  sink.Flush();
}

void NodeService::KillAll() {
  for (auto& [id, s] : sessions_) Signal(id, SIGKILL);
}

}  // namespace psched::daemon
