// Collectives over the daemon tree, combined per subtree (the shape of Slurm's
// pmixp tree collective and of PRRTE's grpcomm): a daemon waits for its own
// contribution (when it takes part) and for its children's subtrees, then sends
// one message holding all of them to its parent. The lowest daemon whose subtree
// holds every participant (the leader only when the participants span its
// branches) orders the blobs by node and sends the result down the branches that
// hold participants only. Frames carry a small binary header and the blobs
// (proto/collective_wire.hpp): blobs are never parsed, and a result goes on down as
// the bytes it came in.
//
// A lost participant fails the collective on every node that still waits for it
// (NodesLost: the lost node's parent at once, everyone else when the leader's
// coll.abort arrives); a collective started later with a lost participant fails
// at once. This class does no I/O itself: `send` puts an encoded frame on the link
// to a neighbour, so it runs unchanged in unit tests over in-memory links.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "daemon/net/tree.hpp"
#include "proto/collective_wire.hpp"
#include "proto/frame.hpp"

namespace psched::daemon {

class TreeCollectives {
 public:
  // The concatenation of every participant's blob in node order, or why it failed.
  using Done = std::function<void(Result<std::string>)>;
  // Puts an encoded frame on the link to `neighbour` (this node's parent or a child).
  using Send = std::function<void(int neighbour, const std::string& wire)>;

  TreeCollectives(int node, Tree tree, Send send);

  // This node's part of collective (session, id): every node in `participants` calls
  // it with the same key and list. `done` runs once, possibly before this returns.
  void Contribute(int64_t session, const std::string& id, std::string blob,
                  std::vector<int> participants, Done done);
  // A coll.contribute frame from a child or a coll.result frame from the parent.
  // Malformed frames, and those naming a node outside the tree or a contributor not
  // below this node, are dropped with a log line (the sender is a bug; the
  // participants time out the way a lost message would leave them).
  void OnFrame(const proto::Frame& frame);
  // `nodes` are gone: fail every collective that waits for one of them.
  void NodesLost(const std::vector<int>& nodes, const std::string& cause);
  // The session's ranks on this node are gone: fail the session's collectives this
  // node takes part in, and tell the relays above (coll.forget) to drop what they
  // gathered for them, so a session that dies inside a fence leaves no state behind.
  void SessionEnded(int64_t session);

  // Collectives with state on this node (tests check nothing is left behind).
  size_t in_flight() const { return pending_.size(); }

 private:
  using Key = std::pair<int64_t, std::string>;
  struct Pending {
    std::vector<int> participants;     // sorted, unique
    size_t expected = 0;               // participants in this node's subtree
    std::map<int, std::string> blobs;  // gathered so far, by node
    Done done;                         // set once this node contributed
    bool sent_up = false;              // the subtree's contributions went to the parent
  };

  Result<void> CheckParticipants(const std::vector<int>& participants) const;
  Pending& Entry(const Key& key, const std::vector<int>& participants);
  Result<void> CheckContributors(const proto::CollContribute& c) const;
  void Dropped(const proto::Frame& frame, const Error& why) const;
  void OnContribution(const proto::Frame& frame);
  void OnResult(const proto::Frame& frame);
  void OnForget(const proto::Frame& frame);
  // Sends up or, at the collective's root, answers: once every blob of the subtree is in.
  void Progress(const Key& key);
  // Passes a result frame on to the children whose subtrees hold participants.
  void SendDown(const std::vector<int>& participants, const std::string& wire);

  int node_;
  Tree tree_;
  Send send_;
  std::map<Key, Pending> pending_;
  std::map<int, std::string> lost_;  // node -> cause
};

}  // namespace psched::daemon
