#include "launcher/exec_session.hpp"

#include <event2/event.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "common/prefix_lines.hpp"
#include "daemon/net/connection.hpp"
#include "proto/messages.hpp"

namespace psched::launcher {
namespace {

constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2};

// 0, or the errno of a write that failed.
int WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return 0;
}

const char* StreamName(int fd) {
  return fd == 1 ? "stdout" : "stderr";
}

class ExecClient {
 public:
  ExecClient(event_base* base, const ExecOptions& options, std::string daemon_socket)
      : base_(base), options_(options), daemon_socket_(std::move(daemon_socket)) {}
  ~ExecClient() {
    for (event* ev : events_) event_free(ev);
  }

  // `unsent`: what the socket did not take of the launch request, sent first.
  void Start(int fd, const std::string& unsent) {
    conn_ = daemon::Connection::Make(base_, fd, "daemon");
    conn_->Start([this](daemon::Connection&, proto::Frame&& f) { OnFrame(std::move(f)); },
                 [this](daemon::Connection&, const std::string& why) { OnClosed(why); });
    if (!unsent.empty()) conn_->Send(unsent);
    for (int sig : kForwarded) AddSignal(sig);
    AddSignal(SIGTSTP);
    AddSignal(SIGCONT);
  }
  int code() const { return code_; }

 private:
  void AddSignal(int sig) {
    event* ev = evsignal_new(base_, sig, &ExecClient::OnSignal, this);
    event_add(ev, nullptr);
    events_.push_back(ev);
  }

  void Finish(int code) {
    code_ = code;
    event_base_loopbreak(base_);
  }

  void OnFrame(proto::Frame&& frame) {
    if (code_ >= 0) return;  // the session has ended: nothing after that counts
    switch (frame.type) {
      case proto::MsgType::kSessionStarted:
        return Started(frame);
      case proto::MsgType::kIoOutput:
        if (auto out = proto::Decode<proto::Output>(frame)) Print(*out);
        return;
      case proto::MsgType::kIoStdinWritten:
        if (auto written = proto::Decode<proto::StdinWritten>(frame)) StdinTaken(*written);
        return;
      case proto::MsgType::kSessionEnded:
        return Ended(frame);
      case proto::MsgType::kSessionAck:
        if (auto ack = proto::Decode<proto::SessionAck>(frame)) {
          if (ack->what == "suspend") raise(SIGSTOP);  // the shell sees Ctrl-Z
          if (ack->what == "queued") Queued(*ack);
        }
        return;
      case proto::MsgType::kError: {
        auto e = proto::Decode<proto::ErrorReply>(frame);
        std::fprintf(stderr, "psched-exec: %s\n", e ? e->message.c_str() : "daemon error");
        return Finish(1);
      }
      default:
        return;
    }
  }

  // The co-scheduling policy queued the session: say why once it has waited 1 s.
  void Queued(const proto::SessionAck& ack) {
    session_ = ack.session;
    DeliverPendingSignals();
    if (options_.quiet) return;
    wait_reason_ =
        "session " + std::to_string(session_) + " " + (ack.reason.empty() ? "waits" : ack.reason);
    wait_ev_ = evtimer_new(base_, &ExecClient::OnWaited, this);
    events_.push_back(wait_ev_);
    timeval one{1, 0};
    evtimer_add(wait_ev_, &one);
  }

  static void OnWaited(evutil_socket_t, short, void* arg) {
    auto* self = static_cast<ExecClient*>(arg);
    std::fprintf(stderr, "psched-exec: %s\n", self->wait_reason_.c_str());
  }

  void Started(const proto::Frame& frame) {
    if (wait_ev_) event_del(wait_ev_);
    auto started = proto::Decode<proto::SessionStarted>(frame);
    if (!started) return;
    session_ = started->session;
    if (options_.verbose) {
      std::string nodes;
      for (int n : started->nodes) nodes += " " + std::to_string(n);
      std::fprintf(stderr, "psched-exec: session %ld started on nodes%s\n",
                   static_cast<long>(session_), nodes.c_str());
    }
    DeliverPendingSignals();
    StartStdin();
  }

  // Stdin goes to rank 0 no faster than rank 0 takes it: at most proto::kStdinWindow in
  // flight, opened again by each io.stdin_written report. A pollable stdin (pipe, socket,
  // terminal) is watched only while the window has room; anything else (a regular file,
  // /dev/null) is read through as far as the window allows.
  void StartStdin() {
    struct stat st {};
    if (fstat(0, &st) != 0) return;  // no stdin at all
    stdin_open_ = true;
    stdin_is_tty_ = isatty(0) == 1;
    if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || stdin_is_tty_) {
      stdin_ev_ = event_new(base_, 0, EV_READ | EV_PERSIST, &ExecClient::OnStdin, this);
      events_.push_back(stdin_ev_);
    }
    ReadStdinWhileRoom();
  }

  bool StdinWindowOpen() const { return stdin_sent_ - stdin_written_ < proto::kStdinWindow; }

  // A terminal is read only while we are in its foreground process group: read from the
  // background (`psched-exec ... &` in a shell), it stops us with SIGTTIN at the user's
  // first keystroke. Checked again on SIGCONT (fg, bg), as Open MPI's mpirun does. A
  // terminal that is not our controlling one has no foreground for us (-1): read it.
  bool InStdinsForeground() const {
    if (!stdin_is_tty_) return true;
    const pid_t foreground = tcgetpgrp(0);
    return foreground < 0 || foreground == getpgrp();
  }

  bool MayReadStdin() const { return stdin_open_ && StdinWindowOpen() && InStdinsForeground(); }

  void ReadStdinWhileRoom() {
    if (stdin_ev_ != nullptr && MayReadStdin() && event_add(stdin_ev_, nullptr) != 0)
      stdin_ev_ = nullptr;  // it cannot be polled after all (freed with events_)
    if (stdin_ev_ == nullptr) {
      while (MayReadStdin()) ReadStdin();
    } else if (!MayReadStdin()) {
      event_del(stdin_ev_);
    }
    if (stdin_open_ && !StdinWindowOpen()) SayStdinWaits();
  }

  void SayStdinWaits() {
    if (!options_.verbose || said_stdin_waits_) return;
    said_stdin_waits_ = true;
    std::fprintf(stderr,
                 "psched-exec: session %ld: rank 0 has not taken the %llu MiB of stdin in flight; "
                 "reading stdin waits for it\n",
                 static_cast<long>(session_),
                 static_cast<unsigned long long>(proto::kStdinWindow >> 20));
  }

  static void OnStdin(evutil_socket_t, short, void* arg) {
    auto* self = static_cast<ExecClient*>(arg);
    if (self->MayReadStdin()) self->ReadStdin();
    self->ReadStdinWhileRoom();
  }

  void ReadStdin() {
    char buf[65536];
    ssize_t n = read(0, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
    if (n > 0) stdin_sent_ += static_cast<uint64_t>(n);
    stdin_open_ = n > 0;
    proto::StdinData data{session_, n > 0 ? std::string(buf, static_cast<size_t>(n)) : "", n <= 0};
    conn_->Send(proto::Encode(proto::MsgType::kIoStdin, data));
  }

  void StdinTaken(const proto::StdinWritten& written) {
    stdin_written_ = std::max(stdin_written_, written.bytes);
    if (written.closed && stdin_open_) {
      // Rank 0 has closed its stdin: the rest would be dropped. As in a pipeline, whoever
      // writes to ours learns it (EPIPE) instead of blocking.
      stdin_open_ = false;
      int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
      if (null_fd >= 0) {
        dup2(null_fd, 0);
        close(null_fd);
      }
    }
    ReadStdinWhileRoom();
  }

  void Print(const proto::Output& out) {
    const int fd = out.stream == 2 ? 2 : 1;
    if (unwritable_[fd]) return;
    const std::string labelled =
        options_.label ? PrefixLines("[" + std::to_string(out.rank) + "] ", out.data) : "";
    const std::string& text = options_.label ? labelled : out.data;
    if (int err = WriteAll(fd, text.data(), text.size()); err != 0) OutputFailed(fd, err);
  }

  // A reader that has gone (`psched-exec ... | head`) ends the session, as SIGPIPE ends a
  // pipeline's writer and Open MPI's mpirun aborts its job: the ranks are killed and we
  // exit 128+SIGPIPE (srun carries on to the end, the output dropped). Any other write
  // error (a full disk) is said once and makes the exit status non-zero; the session
  // goes on, the rest of that stream's output dropped.
  void OutputFailed(int fd, int err) {
    unwritable_[fd] = true;
    if (err == EPIPE) {
      if (options_.verbose) {
        std::fprintf(stderr, "psched-exec: %s is a broken pipe: killing session %ld\n",
                     StreamName(fd), static_cast<long>(session_));
      }
      reader_gone_ = true;
      return SendSignal(SIGKILL);
    }
    std::fprintf(stderr,
                 "psched-exec: session %ld: writing the ranks' %s: %s; the rest of it is lost\n",
                 static_cast<long>(session_), StreamName(fd), strerror(err));
    output_lost_ = true;
  }

  void Ended(const proto::Frame& frame) {
    auto ended = proto::Decode<proto::SessionEnded>(frame);
    if (!ended) return Finish(1);
    if (reader_gone_) return Finish(128 + SIGPIPE);  // we killed it: its exits are ours
    if (ended->code != 0 && !ended->message.empty()) {
      // The first failure, then one line for each other (scheduler/leader/failure_report).
      const std::string text = PrefixLines(
          "psched-exec: session " + std::to_string(ended->session) + ": ", ended->message + "\n");
      std::fputs(text.c_str(), stderr);
    } else if (options_.verbose) {
      std::fprintf(stderr, "psched-exec: session %ld ended\n", static_cast<long>(ended->session));
    }
    Finish(ended->code == 0 && output_lost_ ? 1 : ended->code);
  }

  void OnClosed(const std::string& why) {
    if (code_ >= 0) return;
    // The leader closes a launcher's connection only after its session ended: without
    // that answer it died or was stopped, and the session's ranks end with it.
    const std::string which =
        session_ < 0 ? std::string("before it started the session")
                     : "while session " + std::to_string(session_) + " ran (its ranks end with it)";
    std::fprintf(stderr,
                 "psched-exec: lost the connection to the psched leader daemon at %s (%s) %s: "
                 "the daemon died or was stopped; its log says why (psched-alloc's stderr, "
                 "or pschedd.log beside the socket for this machine's own daemon). Run the "
                 "command again once a daemon runs\n",
                 daemon_socket_.c_str(), why.c_str(), which.c_str());
    Finish(1);
  }

  static void OnSignal(evutil_socket_t sig, short, void* arg) {
    static_cast<ExecClient*>(arg)->HandleSignal(static_cast<int>(sig));
  }

  // A signal that arrives before the daemon has answered the launch (and so named the
  // session) waits for that answer, Ctrl-Z and fg included.
  void HandleSignal(int sig) {
    if (sig == SIGCONT) ReadStdinWhileRoom();  // fg or bg: the terminal's foreground may differ
    if (session_ < 0) {
      if (options_.verbose) {
        std::fprintf(stderr, "psched-exec: signal %d (%s) waits for the session to start\n", sig,
                     strsignal(sig));
      }
      pending_signals_.push_back(sig);
      return;
    }
    Deliver(sig);
  }

  void DeliverPendingSignals() {
    if (session_ < 0) return;
    std::vector<int> pending;
    pending.swap(pending_signals_);
    for (int sig : pending) Deliver(sig);
  }

  void Deliver(int sig) {
    if (sig == SIGTSTP || sig == SIGCONT) {
      auto type = sig == SIGTSTP ? proto::MsgType::kSessionSuspend : proto::MsgType::kSessionResume;
      return conn_->Send(proto::Encode(type, proto::SessionRef{session_, 0}));
    }
    SendSignal(sig);
  }

  void SendSignal(int sig) {
    if (options_.verbose)
      std::fprintf(stderr, "psched-exec: forwarding signal %d (%s)\n", sig, strsignal(sig));
    conn_->Send(proto::Encode(proto::MsgType::kSessionSignal, proto::SessionRef{session_, sig}));
  }

  event_base* base_;
  const ExecOptions& options_;
  const std::string daemon_socket_;  // where the leader listens, for messages
  std::shared_ptr<daemon::Connection> conn_;
  std::vector<event*> events_;
  event* stdin_ev_ = nullptr;
  bool stdin_open_ = false;  // read on: neither its end nor rank 0's closing yet
  bool stdin_is_tty_ = false;
  uint64_t stdin_sent_ = 0;     // bytes of stdin sent toward rank 0
  uint64_t stdin_written_ = 0;  // of those, written to rank 0 (io.stdin_written)
  bool said_stdin_waits_ = false;
  event* wait_ev_ = nullptr;
  std::string wait_reason_;
  int64_t session_ = -1;
  std::vector<int> pending_signals_;            // arrived before session_ was known, in order
  bool unwritable_[3] = {false, false, false};  // by descriptor: a write to it failed
  bool reader_gone_ = false;                    // stdout or stderr is a broken pipe
  bool output_lost_ = false;                    // another write error dropped output
  int code_ = -1;
};

}  // namespace

int RunSession(int fd, const ExecOptions& options, const std::string& launch,
               const std::string& daemon_socket) {
  // The request goes before the loop is set up (~70 us): the daemon reads it in the
  // wake-up that accepts the connection instead of waking again for it. What the socket
  // does not take, and any error, go the connection's way.
  size_t sent = 0;
  if (ssize_t n = send(fd, launch.data(), launch.size(), MSG_NOSIGNAL | MSG_DONTWAIT); n > 0)
    sent = static_cast<size_t>(n);
  event_base* base = event_base_new();
  int code = 1;
  {
    ExecClient client(base, options, daemon_socket);
    client.Start(fd, launch.substr(sent));
    event_base_dispatch(base);
    code = client.code() < 0 ? 1 : client.code();
  }
  event_base_free(base);
  return code;
}

}  // namespace psched::launcher
