#include "daemon/net/launcher_service.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>

#include "common/unix_socket.hpp"
#include "daemon/net/launcher_tcp.hpp"
#include "daemon/net/tcp_keepalive.hpp"
#include "proto/messages.hpp"

namespace psched::daemon {

LauncherService::LauncherService(event_base* base, FrameHandler on_frame, CloseHandler on_close,
                                 const Clock& clock)
    : base_(base), clock_(clock), on_frame_(std::move(on_frame)), on_close_(std::move(on_close)) {}

LauncherService::~LauncherService() {
  listener_.reset();
  tcp_listener_.reset();
  waiting_.reset();
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
  conn->authenticated = true;  // by its uid
  self->clients_[conn.get()] = conn;
  conn->Start([self, uid](Connection& c, proto::Frame&& f) { self->OnFrame(c, std::move(f), uid); },
              [self](Connection& c, const std::string&) {
                if (self->on_close_) self->on_close_(c);
                self->clients_.erase(&c);
              });
}

Result<int> LauncherService::ListenTcp(const std::string& host, const Secret& secret) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  if (inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) {
    return Fail(ErrorCode::kInvalidArgument,
                "launcher listen address '" + host + "' is not an IPv4 address");
  }
  auto listener = Listener::Bind(base_, reinterpret_cast<sockaddr*>(&addr), sizeof addr, 128,
                                 /*reuse_address=*/true, &LauncherService::OnAcceptTcp, this,
                                 "pschedd: launcher listener on " + host);
  if (!listener) return Fail(listener.error());
  tcp_listener_ = std::move(*listener);
  secret_ = &secret;
  // Launchers prove the secret in milliseconds, but a user's script may start many at once.
  waiting_ =
      std::make_unique<AuthWaiting>(base_, "pschedd: launcher listener",
                                    AuthWaiting::Limits{.per_host = 64, .total = 128}, clock_);
  sockaddr_in bound{};
  socklen_t len = sizeof bound;
  getsockname(tcp_listener_->fd(), reinterpret_cast<sockaddr*>(&bound), &len);
  return ntohs(bound.sin_port);
}

void LauncherService::OnAcceptTcp(evconnlistener*, evutil_socket_t fd, sockaddr* address, int,
                                  void* arg) {
  auto* self = static_cast<LauncherService*>(arg);
  std::string host = HostText(address);
  if (!self->waiting_->MayWait(fd, host, AddressText(address))) return;
  KeepLinkAlive(fd);  // a launcher's host that dies ends its connection, and its session
  auto conn = Connection::Make(self->base_, fd, "launcher " + AddressText(address));
  conn->challenge = self->secret_->Nonce();
  conn->set_max_payload(proto::kMaxUnauthenticatedPayload);
  self->clients_[conn.get()] = conn;
  self->waiting_->Add(conn, std::move(host));
  const uid_t uid = geteuid();  // whoever has the secret is the allocation's user
  conn->Start([self, uid](Connection& c, proto::Frame&& f) { self->OnFrame(c, std::move(f), uid); },
              [self](Connection& c, const std::string&) {
                if (self->waiting_) self->waiting_->Remove(&c);
                if (c.authenticated && self->on_close_) self->on_close_(c);
                self->clients_.erase(&c);
              });
  conn->Send(proto::Encode(proto::MsgType::kAuthChallenge, proto::AuthChallenge{conn->challenge}));
}

void LauncherService::OnFrame(Connection& c, proto::Frame&& f, uid_t uid) {
  if (!c.authenticated) return Authenticate(c, f);
  auto it = clients_.find(&c);
  if (it != clients_.end()) on_frame_(it->second, std::move(f), uid);
}

void LauncherService::Authenticate(Connection& c, const proto::Frame& f) {
  auto resp = f.type == proto::MsgType::kAuthResponse ? proto::Decode<proto::AuthResponse>(f)
                                                      : Fail(ErrorCode::kProtocol, "");
  // The log says which check failed; the client learns only that it failed.
  std::string refused;
  if (!resp) {
    refused = std::string("no authentication response but ") + proto::MsgTypeName(f.type);
  } else if (resp->node != kLauncherNode) {
    refused = "it authenticates as node " + std::to_string(resp->node) + ", not as a launcher";
  } else if (!secret_->Verify(resp->mac, c.challenge, kLauncherNode)) {
    refused = "its proof does not match the allocation secret";
  }
  waiting_->Remove(&c);
  if (!refused.empty()) {
    std::fprintf(stderr, "pschedd: refused %s: %s\n", c.peer_name().c_str(), refused.c_str());
    return c.FailAndClose(
        "authentication failed: wrong allocation secret, or not a launcher (check the contact "
        "file)");
  }
  c.authenticated = true;
  c.set_max_payload(proto::kMaxPayload);
  c.Send(proto::Encode(proto::MsgType::kAuthOk, proto::AuthOk{secret_->Mac(resp->nonce, 0)}));
}

}  // namespace psched::daemon
