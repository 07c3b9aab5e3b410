// The Unix socket where local launchers (psched-exec) and psched-ctl connect:
// <rundir>/pschedd.sock in a 0700 directory. Each client's uid is read with
// SO_PEERCRED; another uid than the daemon's gets a clear error and is dropped.
#pragma once

#include <event2/event.h>
#include <event2/listener.h>
#include <sys/types.h>

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "daemon/net/connection.hpp"
#include "daemon/net/listener.hpp"
#include "daemon/net/run_dir.hpp"

namespace psched::daemon {

class LauncherService {
 public:
  using FrameHandler =
      std::function<void(const std::shared_ptr<Connection>&, proto::Frame&&, uid_t)>;
  using CloseHandler = std::function<void(Connection&)>;

  LauncherService(event_base* base, FrameHandler on_frame, CloseHandler on_close);
  ~LauncherService();

  // Creates (or checks) the 0700 run directory and listens on its socket.
  Result<void> Listen(const std::string& rundir);
  static std::string SocketPath(const std::string& rundir) { return LauncherSocketPath(rundir); }
  // Launchers and psched-ctl connected now.
  size_t clients() const { return clients_.size(); }

 private:
  static void OnAccept(evconnlistener*, evutil_socket_t fd, sockaddr*, int, void* arg);

  event_base* base_;
  FrameHandler on_frame_;
  CloseHandler on_close_;
  std::unique_ptr<Listener> listener_;
  std::string path_;
  std::map<Connection*, std::shared_ptr<Connection>> clients_;
};

}  // namespace psched::daemon
