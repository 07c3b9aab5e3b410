// Where launchers (psched-exec) and psched-ctl connect to the leader:
//   - the Unix socket <rundir>/pschedd.sock in a 0700 directory. Each client's uid is read
//     with SO_PEERCRED; another uid than the daemon's gets a clear error and is dropped.
//   - in Slurm, also a TCP port for launchers on other hosts (launcher_tcp.hpp): a client
//     proves the allocation secret as a launcher before its first frame counts; it then
//     acts as the daemon's uid (only that user has the secret). One that does not within
//     kAuthTimeout, or proves it as anything else, is refused and logged; at most 64 per
//     host and 128 in all may wait to (auth_waiting.hpp).
#pragma once

#include <event2/event.h>
#include <event2/listener.h>
#include <sys/types.h>

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "daemon/net/auth.hpp"
#include "daemon/net/auth_waiting.hpp"
#include "daemon/net/connection.hpp"
#include "daemon/net/listener.hpp"
#include "daemon/net/run_dir.hpp"

namespace psched::daemon {

class LauncherService {
 public:
  using FrameHandler =
      std::function<void(const std::shared_ptr<Connection>&, proto::Frame&&, uid_t)>;
  using CloseHandler = std::function<void(Connection&)>;

  // `clock` (outliving the service) times TCP clients' authentication (auth_waiting.hpp).
  LauncherService(event_base* base, FrameHandler on_frame, CloseHandler on_close,
                  const Clock& clock = RealClock());
  ~LauncherService();

  // Creates (or checks) the 0700 run directory and listens on its socket.
  Result<void> Listen(const std::string& rundir);
  static std::string SocketPath(const std::string& rundir) { return LauncherSocketPath(rundir); }
  // Listens for launchers over TCP on `host` (IPv4) at a port the kernel picks; returns it.
  Result<int> ListenTcp(const std::string& host, const Secret& secret);
  // Launchers and psched-ctl connected now.
  size_t clients() const { return clients_.size(); }

 private:
  static void OnAccept(evconnlistener*, evutil_socket_t fd, sockaddr*, int, void* arg);
  static void OnAcceptTcp(evconnlistener*, evutil_socket_t fd, sockaddr*, int, void* arg);
  // A client's frame: the authentication response while it has not proved the secret.
  void OnFrame(Connection& c, proto::Frame&& f, uid_t uid);
  void Authenticate(Connection& c, const proto::Frame& f);

  event_base* base_;
  const Clock& clock_;
  FrameHandler on_frame_;
  CloseHandler on_close_;
  std::unique_ptr<Listener> listener_;
  std::unique_ptr<Listener> tcp_listener_;
  const Secret* secret_ = nullptr;        // the TCP clients' proof
  std::unique_ptr<AuthWaiting> waiting_;  // TCP clients that have not proved the secret yet
  std::string path_;
  std::map<Connection*, std::shared_ptr<Connection>> clients_;
};

}  // namespace psched::daemon
