#include "daemon/net/launcher_service.hpp"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>

#include "common/unix_socket.hpp"
#include "proto/messages.hpp"

namespace psched::daemon {

LauncherService::LauncherService(event_base* base, FrameHandler on_frame, CloseHandler on_close)
    : base_(base), on_frame_(std::move(on_frame)), on_close_(std::move(on_close)) {}

LauncherService::~LauncherService() {
  listener_.reset();
  on_close_ = nullptr;
  for (auto& [raw, conn] : std::map(clients_)) conn->Close("daemon stopping");
  if (!path_.empty()) unlink(path_.c_str());
}

Result<void> LauncherService::Listen(const std::string& rundir) {
  if (auto ok = EnsurePrivateDir(rundir); !ok) return ok;
  std::string path = SocketPath(rundir);
  auto addr = UnixAddress(path);
  if (!addr) return Fail(addr.error());
  unlink(path.c_str());  // a stale socket of a dead daemon
  auto listener = Listener::Bind(base_, reinterpret_cast<sockaddr*>(&*addr), sizeof *addr, 128,
                                 /*reuse_address=*/false, &LauncherService::OnAccept, this,
                                 "pschedd: launcher socket '" + path + "'");
  if (!listener) return Fail(listener.error());
  listener_ = std::move(*listener);
  path_ = path;
  return {};
}

void LauncherService::OnAccept(evconnlistener*, evutil_socket_t fd, sockaddr*, int, void* arg) {
  auto* self = static_cast<LauncherService*>(arg);
  ucred cred{};
  socklen_t len = sizeof cred;
  auto conn = Connection::Make(self->base_, fd, "local client");
  bool known = getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0;
  if (!known || cred.uid != geteuid()) {
    std::fprintf(stderr, "pschedd: refused a local client with uid %d (daemon uid %d)\n",
                 known ? static_cast<int>(cred.uid) : -1, static_cast<int>(geteuid()));
    self->clients_[conn.get()] = conn;
    conn->Start([](Connection&, proto::Frame&&) {},
                [self](Connection& c, const std::string&) { self->clients_.erase(&c); });
    conn->FailAndClose("permission denied: uid " + std::to_string(cred.uid) +
                       " may not use this allocation's daemon (owned by uid " +
                       std::to_string(geteuid()) + ")");
    return;
  }
  uid_t uid = cred.uid;
  self->clients_[conn.get()] = conn;
  conn->Start(
      [self, uid](Connection& c, proto::Frame&& f) {
        auto it = self->clients_.find(&c);
        if (it != self->clients_.end()) self->on_frame_(it->second, std::move(f), uid);
      },
      [self](Connection& c, const std::string&) {
        if (self->on_close_) self->on_close_(c);
        self->clients_.erase(&c);
      });
}

}  // namespace psched::daemon
