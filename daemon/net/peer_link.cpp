#include "daemon/net/peer_link.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "daemon/net/tcp_address.hpp"
#include "daemon/net/tcp_keepalive.hpp"
#include "proto/messages.hpp"
#include "proto/wire_ids.hpp"

namespace psched::daemon {
namespace {

// Before it proves the secret a peer may hold a frame buffer of up to
// kMaxUnauthenticatedPayload, and anyone on the network can connect: so few may wait at
// once (auth_waiting.hpp). A node's legitimate unauthenticated peers are its children
// connecting (all from one host in an emulated allocation), so the limits grow with them.
AuthWaiting::Limits WaitingLimits(const Tree& tree, int node) {
  const size_t per_host = tree.Children(node).size() + 8;
  return {per_host, 2 * per_host};
}

// What the other end of a link refused, in this daemon's log: the error frame a daemon
// sends before closing a link is for a peer, and no peer asks for it.
void LogPeerError(int node, const Connection& conn, const proto::Frame& frame) {
  auto e = proto::Decode<proto::ErrorReply>(frame);
  std::fprintf(stderr, "pschedd[%d]: %s refused our frames: %s\n", node, conn.peer_name().c_str(),
               e ? e->message.c_str() : "(no message)");
}

bool IsCollective(proto::MsgType type) {
  return type == proto::MsgType::kCollContribute || type == proto::MsgType::kCollResult ||
         type == proto::MsgType::kCollForget;
}

}  // namespace

PeerLink::PeerLink(event_base* base, int node, Tree tree, const Secret& secret, Handlers handlers,
                   const Clock& clock)
    : base_(base),
      clock_(clock),
      node_(node),
      tree_(tree),
      secret_(secret),
      handlers_(std::move(handlers)) {
  local_ev_ = event_new(base_, -1, 0, &PeerLink::OnLocal, this);
}

PeerLink::~PeerLink() {
  handlers_ = {};  // closing links below must not call back into a daemon being torn down
  listener_.reset();
  if (local_ev_) event_free(local_ev_);
  waiting_.reset();
  // Closing a link runs its close callback, which erases it from this map: close from a
  // copy, never while iterating the member.
  auto children = std::exchange(children_, {});
  for (auto& [n, c] : children) c->Close("daemon stopping");
  if (parent_) parent_->Close("daemon stopping");
}

Result<int> PeerLink::Listen(const std::string& host, int port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) {
    return Fail(ErrorCode::kInvalidArgument,
                "listen address '" + host + "' is not an IPv4 address");
  }
  auto listener = Listener::Bind(base_, reinterpret_cast<sockaddr*>(&addr), sizeof addr, 128,
                                 /*reuse_address=*/true, &PeerLink::OnAccept, this,
                                 "pschedd[" + std::to_string(node_) + "]: peer listener on " +
                                     host + ":" + std::to_string(port));
  if (!listener) return Fail(listener.error());
  listener_ = std::move(*listener);
  waiting_ = std::make_unique<AuthWaiting>(base_, "pschedd[" + std::to_string(node_) + "]",
                                           WaitingLimits(tree_, node_), clock_);
  sockaddr_in bound{};
  socklen_t len = sizeof bound;
  getsockname(listener_->fd(), reinterpret_cast<sockaddr*>(&bound), &len);
  return ntohs(bound.sin_port);
}

Result<void> PeerLink::ConnectParent(const std::string& address) {
  const std::string what = "connecting to parent daemon at " + address;
  auto to = ResolveHostPort(address, what);
  if (!to) return Fail(to.error());
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Fail(Error::FromErrno("socket", what));
  int rc = connect(fd, reinterpret_cast<const sockaddr*>(&*to), sizeof *to);
  if (rc != 0) {
    Error e = Error::FromErrno("connect", what);
    close(fd);
    return Fail(e);
  }
  KeepLinkAlive(fd);
  parent_ = Connection::Make(base_, fd, "parent " + address);
  parent_->peer_node = tree_.Parent(node_);
  parent_->set_max_payload(proto::kMaxUnauthenticatedPayload);
  parent_->Start([this](Connection& c, proto::Frame&& f) { OnParentFrame(c, std::move(f)); },
                 [this, address](Connection&, const std::string& why) {
                   parent_.reset();
                   // Who, where, and for a silent host what the kernel waited for.
                   std::string said = "node " + std::to_string(tree_.Parent(node_)) + " at " +
                                      address + ": " + why;
                   if (why.find(std::strerror(ETIMEDOUT)) != std::string::npos) {
                     said += " (its host answered nothing for " +
                             std::to_string(kUnackedLimitMs / 1000) + " s)";
                   }
                   if (handlers_.parent_lost) handlers_.parent_lost(said);
                 });
  return {};
}

void PeerLink::OnAccept(evconnlistener*, evutil_socket_t fd, sockaddr* address, int, void* arg) {
  auto* self = static_cast<PeerLink*>(arg);
  std::string host = HostText(address);
  if (!self->waiting_->MayWait(fd, host, AddressText(address))) return;
  KeepLinkAlive(fd);
  auto conn = Connection::Make(self->base_, fd, "peer " + AddressText(address));
  conn->challenge = self->secret_.Nonce();
  conn->set_max_payload(proto::kMaxUnauthenticatedPayload);
  self->waiting_->Add(conn, std::move(host));
  conn->Start([self](Connection& c, proto::Frame&& f) { self->OnChildFrame(c, std::move(f)); },
              [self](Connection& c, const std::string& why) {
                if (self->waiting_) self->waiting_->Remove(&c);
                if (!c.authenticated) return;
                self->children_.erase(c.peer_node);
                if (self->handlers_.child_lost)
                  self->handlers_.child_lost(c.peer_node, self->tree_.Subtree(c.peer_node), why);
              });
  conn->Send(proto::Encode(proto::MsgType::kAuthChallenge, proto::AuthChallenge{conn->challenge}));
}

void PeerLink::FromNeighbour(const Connection& conn, proto::Frame&& frame) {
  if (frame.type == proto::MsgType::kError) return LogPeerError(node_, conn, frame);
  // Collective frames are for the neighbour they were sent to and name no sender: it
  // combines or passes them on itself, and checks their contributors where it combines
  // them (tree_collective.hpp).
  if (IsCollective(frame.type)) return DeliverHere(conn.peer_node, std::move(frame));
  const proto::MsgType type = frame.type;
  auto routed = proto::DecodeRouted(std::move(frame), proto::IdBounds{tree_.size});
  std::string wrong;
  if (!routed) {
    wrong = routed.error().message();
  } else {
    wrong = ImpossibleSender(conn.peer_node, routed->route.from);
  }
  if (!wrong.empty()) {
    std::fprintf(stderr, "pschedd[%d]: dropped a %s frame from %s (node %d): %s\n", node_,
                 proto::MsgTypeName(type), conn.peer_name().c_str(), conn.peer_node, wrong.c_str());
    return;
  }
  Route(routed->route, std::move(routed->msg), conn.peer_node);
}

std::string PeerLink::ImpossibleSender(int neighbour, int from) const {
  // Receivers take the route's `from` as who sent a frame (a cosched reply counts for
  // that node): a link carries only frames of the nodes behind it, a child's from its
  // subtree, the parent's from outside this node's subtree. `from` is a node of the
  // allocation (DecodeRouted checked it), so the tree walks below are short.
  const bool from_parent = neighbour == tree_.Parent(node_);
  const bool behind =
      from_parent ? !tree_.InSubtree(node_, from) : tree_.InSubtree(neighbour, from);
  if (!behind) {
    return "sending node " + std::to_string(from) + " is not behind that link (" +
           (from_parent ? "it is in node " + std::to_string(node_) + "'s subtree"
                        : "not in node " + std::to_string(neighbour) + "'s subtree") +
           ")";
  }
  return "";
}

void PeerLink::OnChildFrame(Connection& conn, proto::Frame&& frame) {
  if (conn.authenticated) return FromNeighbour(conn, std::move(frame));
  auto resp = frame.type == proto::MsgType::kAuthResponse
                  ? proto::Decode<proto::AuthResponse>(frame)
                  : Fail(ErrorCode::kProtocol, "");
  // The log says which check failed and who asked; the peer only learns that it failed.
  std::string refused;
  if (!resp) {
    refused = "no valid authentication response";
  } else if (resp->node < 0 || resp->node >= tree_.size || tree_.Parent(resp->node) != node_) {
    refused = "node " + std::to_string(resp->node) + " is not a child of this node";
  } else if (children_.contains(resp->node)) {
    refused = "node " + std::to_string(resp->node) + " is connected already";
  } else if (!secret_.Verify(resp->mac, conn.challenge, resp->node)) {
    refused =
        "node " + std::to_string(resp->node) + "'s proof does not match the allocation secret";
  }
  if (!refused.empty()) {
    std::fprintf(stderr, "pschedd[%d]: refused the connection of %s: %s\n", node_,
                 conn.peer_name().c_str(), refused.c_str());
    return conn.FailAndClose(
        "authentication failed: wrong allocation secret or not a child of node " +
        std::to_string(node_));
  }
  conn.authenticated = true;
  conn.peer_node = resp->node;
  conn.set_max_payload(proto::kMaxPeerPayload);
  children_[resp->node] = waiting_->Remove(&conn);
  conn.Send(proto::Encode(proto::MsgType::kAuthOk, proto::AuthOk{secret_.Mac(resp->nonce, node_)}));
}

void PeerLink::OnParentFrame(Connection& conn, proto::Frame&& frame) {
  if (conn.authenticated) return FromNeighbour(conn, std::move(frame));
  if (frame.type == proto::MsgType::kAuthChallenge) {
    auto ch = proto::Decode<proto::AuthChallenge>(frame);
    if (!ch) return conn.Close("bad challenge from parent");
    parent_nonce_ = secret_.Nonce();
    conn.Send(
        proto::Encode(proto::MsgType::kAuthResponse,
                      proto::AuthResponse{node_, secret_.Mac(ch->nonce, node_), parent_nonce_}));
    return;
  }
  if (frame.type == proto::MsgType::kAuthOk) {
    auto ok = proto::Decode<proto::AuthOk>(frame);
    if (!ok || !secret_.Verify(ok->mac, parent_nonce_, conn.peer_node))
      return conn.Close("parent failed to prove the allocation secret");
    conn.authenticated = true;
    conn.set_max_payload(proto::kMaxPeerPayload);
    if (handlers_.parent_ready) handlers_.parent_ready();
    return;
  }
  std::string why = "parent refused us";
  if (frame.type == proto::MsgType::kError)
    if (auto e = proto::Decode<proto::ErrorReply>(frame)) why += ": " + e->message;
  conn.Close(why);
}

void PeerLink::Send(const std::vector<int>& to, proto::MsgType type, proto::Json body) {
  Route(proto::PeerRoute{.to = to, .from = node_}, proto::Frame{type, std::move(body), {}}, node_);
}

void PeerLink::Route(const proto::PeerRoute& route, proto::Frame&& msg, int came_from) {
  bool local = route.to.empty();
  std::vector<int> hops;
  if (route.to.empty()) {
    for (const auto& [child, conn] : children_)
      if (child != came_from) hops.push_back(child);
  }
  for (int target : route.to) {
    // From the wire every target is a node (DecodeRouted); this node's own callers
    // name nodes too, and one that does not is nowhere: dropped.
    if (target < 0 || target >= tree_.size) continue;
    int hop = tree_.NextHop(node_, target);
    if (hop == node_) {
      local = true;
    } else if (hop != came_from && std::find(hops.begin(), hops.end(), hop) == hops.end()) {
      hops.push_back(hop);
    }
  }
  if (!hops.empty()) {
    // Encoded once for every hop, with the route it came with.
    const std::string wire = proto::EncodeRouted(msg.type, route, msg.body);
    for (int hop : hops)
      if (auto conn = Neighbour(hop)) conn->Send(wire);
  }
  if (local) DeliverHere(route.from, std::move(msg));
}

void PeerLink::DeliverHere(int from, proto::Frame&& msg) {
  local_.push_back({from, std::move(msg)});
  event_active(local_ev_, 0, 0);
}

std::shared_ptr<Connection> PeerLink::Neighbour(int node) const {
  std::shared_ptr<Connection> conn;
  if (node == tree_.Parent(node_)) {
    conn = parent_;
  } else if (auto it = children_.find(node); it != children_.end()) {
    conn = it->second;
  }
  return conn && conn->authenticated ? conn : nullptr;
}

void PeerLink::SendToNeighbour(int neighbour, const std::string& wire) {
  if (auto conn = Neighbour(neighbour)) conn->Send(wire);
}

size_t PeerLink::UpstreamBacklog() const {
  return parent_ ? parent_->pending_output() : 0;
}

void PeerLink::WhenUpstreamDrainedTo(size_t bytes, std::function<void()> drained) {
  if (!parent_) return drained();
  parent_->WhenDrainedTo(bytes, std::move(drained));
}

void PeerLink::OnLocal(evutil_socket_t, short, void* arg) {
  auto* self = static_cast<PeerLink*>(arg);
  // Deliver only what is queued now; frames queued meanwhile get the next round.
  size_t n = self->local_.size();
  for (size_t i = 0; i < n && !self->local_.empty(); ++i) {
    Delivery d = std::move(self->local_.front());
    self->local_.pop_front();
    if (self->handlers_.deliver) self->handlers_.deliver(d.from, std::move(d.msg));
  }
  if (!self->local_.empty()) event_active(self->local_ev_, 0, 0);
}

}  // namespace psched::daemon
