// TCP links of the daemon tree: one authenticated connection to the parent, one
// per child, and routing of every peer frame by its typed header (proto/peer_route.hpp:
// its sender, and the nodes it is for; none: broadcast down the whole subtree), checked
// where it is read; collective frames go hop by hop (SendToNeighbour). Frames for this
// node are queued and delivered from the event loop, never re-entrantly from inside Send().
#pragma once

#include <event2/event.h>
#include <event2/listener.h>

#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "daemon/net/auth.hpp"
#include "daemon/net/auth_waiting.hpp"
#include "daemon/net/connection.hpp"
#include "daemon/net/listener.hpp"
#include "daemon/net/tree.hpp"
#include "proto/peer_route.hpp"

namespace psched::daemon {

class PeerLink {
 public:
  struct Handlers {
    // A message for this node, without its route, and the node that sent it (a
    // collective frame's: the neighbour it came from).
    std::function<void(int from, proto::Frame&&)> deliver;
    std::function<void(int child, std::vector<int> lost, const std::string& why)> child_lost;
    std::function<void(const std::string& why)> parent_lost;
    std::function<void()> parent_ready;  // authenticated to the parent
  };

  // `clock` (outliving the link) times the children's authentication (auth_waiting.hpp).
  PeerLink(event_base* base, int node, Tree tree, const Secret& secret, Handlers handlers,
           const Clock& clock = RealClock());
  ~PeerLink();

  // Listens on host:port (port 0: any); returns the port.
  Result<int> Listen(const std::string& host, int port);
  // Connects to the parent at "host:port" and starts authentication.
  Result<void> ConnectParent(const std::string& address);

  // Routes a frame to `to` (empty: everyone below this node).
  void Send(const std::vector<int>& to, proto::MsgType type, proto::Json body);
  void SendUp(proto::MsgType type, proto::Json body) { Send({0}, type, std::move(body)); }
  // What waits to be written to the parent (0 at the root or without a parent link), and
  // a call once that is down to `bytes` (at once without a parent link; never if the link
  // closes first). One caller: the link keeps one such call.
  size_t UpstreamBacklog() const;
  void WhenUpstreamDrainedTo(size_t bytes, std::function<void()> drained);
  // An encoded hop-by-hop frame (coll.*: the receiving neighbour handles it itself) to
  // this node's parent or one of its children; dropped when that link is gone.
  void SendToNeighbour(int neighbour, const std::string& wire);

  int node() const { return node_; }
  event_base* base() const { return base_; }  // for services' timers
  const Tree& tree() const { return tree_; }
  int connected_children() const { return static_cast<int>(children_.size()); }

 private:
  static void OnAccept(evconnlistener*, evutil_socket_t fd, sockaddr*, int, void* arg);
  // Why a frame from node `from` (in the allocation), received from the neighbour
  // `neighbour`, cannot have come through that link (`from` not behind it), or "".
  std::string ImpossibleSender(int neighbour, int from) const;
  static void OnLocal(evutil_socket_t, short, void* arg);
  // A frame from the authenticated parent or a child: routed on, or (an error it sent
  // before closing the link) logged.
  void FromNeighbour(const Connection& conn, proto::Frame&& frame);
  void OnChildFrame(Connection& conn, proto::Frame&& frame);
  void OnParentFrame(Connection& conn, proto::Frame&& frame);
  // Passes `msg` on to the neighbours towards route.to (never back to `came_from`) and
  // queues it here when it is for this node.
  void Route(const proto::PeerRoute& route, proto::Frame&& msg, int came_from);
  void DeliverHere(int from, proto::Frame&& msg);
  // The authenticated link to the parent or a child `node`; null when there is none.
  // Shared: the caller keeps it alive while it sends, even if sending closes it.
  std::shared_ptr<Connection> Neighbour(int node) const;

  event_base* base_;
  const Clock& clock_;
  int node_;
  Tree tree_;
  const Secret& secret_;
  Handlers handlers_;
  std::unique_ptr<Listener> listener_;
  std::shared_ptr<Connection> parent_;
  std::string parent_nonce_;
  std::map<int, std::shared_ptr<Connection>> children_;
  std::unique_ptr<AuthWaiting> waiting_;  // children connecting, until they prove the secret
  struct Delivery {
    int from = 0;
    proto::Frame msg;
  };
  std::deque<Delivery> local_;
  event* local_ev_ = nullptr;
};

}  // namespace psched::daemon
