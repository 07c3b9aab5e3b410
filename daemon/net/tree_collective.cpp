#include "daemon/net/tree_collective.hpp"

#include <algorithm>
#include <cstdio>

#include "proto/collective_wire.hpp"
#include "proto/messages.hpp"
#include "proto/wire_ids.hpp"

namespace psched::daemon {
namespace {

std::string Describe(const std::string& id) {
  return "collective " + id;
}

// Sorted unique node ids <-> [first, last] pairs of consecutive ids.
std::vector<int> ToSpans(const std::vector<int>& sorted) {
  std::vector<int> spans;
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (i == 0 || sorted[i] != sorted[i - 1] + 1) {
      spans.push_back(sorted[i]);
      spans.push_back(sorted[i]);
    } else {
      spans.back() = sorted[i];
    }
  }
  return spans;
}

// Empty when the spans are malformed (odd count, reversed, overlapping or too long):
// the frame is then dropped like any malformed one.
std::vector<int> FromSpans(const std::vector<int>& spans, int num_nodes) {
  std::vector<int> nodes;
  if (spans.size() % 2 != 0) return {};
  for (size_t i = 0; i < spans.size(); i += 2) {
    int first = spans[i], last = spans[i + 1];
    if (first > last || first < 0 || last >= num_nodes) return {};
    if (!nodes.empty() && first <= nodes.back()) return {};
    for (int n = first; n <= last; ++n) nodes.push_back(n);
  }
  return nodes;
}

}  // namespace

TreeCollectives::TreeCollectives(int node, Tree tree, Send send)
    : node_(node), tree_(tree), send_(std::move(send)) {}

Result<void> TreeCollectives::CheckParticipants(const std::vector<int>& participants) const {
  if (participants.empty()) return Fail(ErrorCode::kInvalidArgument, "no participants");
  for (int p : participants) {
    if (p < 0 || p >= tree_.size) {
      return Fail(ErrorCode::kInvalidArgument, "participant node " + std::to_string(p) +
                                                   " is outside an allocation of " +
                                                   std::to_string(tree_.size) + " nodes");
    }
    if (auto it = lost_.find(p); it != lost_.end()) {
      return Fail(ErrorCode::kNotFound,
                  "participant node " + std::to_string(p) + " was lost (" + it->second + ")");
    }
  }
  return {};
}

TreeCollectives::Pending& TreeCollectives::Entry(const Key& key,
                                                 const std::vector<int>& participants) {
  auto [it, fresh] = pending_.try_emplace(key);
  Pending& p = it->second;
  if (fresh) {
    p.participants = participants;
    p.expected =
        static_cast<size_t>(std::count_if(participants.begin(), participants.end(),
                                          [&](int n) { return tree_.InSubtree(node_, n); }));
  }
  return p;
}

void TreeCollectives::Contribute(int64_t session, const std::string& id, std::string blob,
                                 std::vector<int> participants, Done done) {
  std::sort(participants.begin(), participants.end());
  participants.erase(std::unique(participants.begin(), participants.end()), participants.end());
  auto fail = [&](Error e) {
    done(Fail(e.Wrap(Describe(id)).WithSession(session).WithNode(node_)));
  };
  if (auto ok = CheckParticipants(participants); !ok) return fail(ok.error());
  if (!std::binary_search(participants.begin(), participants.end(), node_))
    return fail(Error(ErrorCode::kInvalidArgument, "this node is not among the participants"));
  Key key{session, id};
  Pending& p = Entry(key, participants);
  if (p.participants != participants) {
    return fail(Error(ErrorCode::kInvalidArgument,
                      "participants differ from those another node announced"));
  }
  if (p.done || p.blobs.contains(node_))
    return fail(Error(ErrorCode::kInvalidArgument, "this node already contributed"));
  p.done = std::move(done);
  p.blobs[node_] = std::move(blob);
  Progress(key);
}

void TreeCollectives::OnFrame(const proto::Frame& frame) {
  if (frame.type == proto::MsgType::kCollContribute) return OnContribution(frame);
  if (frame.type == proto::MsgType::kCollResult) return OnResult(frame);
  if (frame.type == proto::MsgType::kCollForget) return OnForget(frame);
}

void TreeCollectives::OnContribution(const proto::Frame& frame) {
  std::string_view blobs;
  auto part = proto::DecodeContribute(frame.raw, &blobs);
  if (!part) return;
  if (auto ok = CheckContributors(*part); !ok) return Dropped(frame, ok.error());
  std::vector<int> participants = FromSpans(part->spans, tree_.size);
  // A lost participant: the nodes that wait learn it from NodesLost, not from us.
  if (participants.empty() || !CheckParticipants(participants)) return;
  Key key{part->session, part->id};
  Pending& p = Entry(key, participants);
  if (p.sent_up || p.participants != participants) return;  // a duplicate or a bug
  size_t offset = 0;
  for (size_t i = 0; i < part->nodes.size(); ++i) {
    size_t size = part->sizes[i];
    if (size > blobs.size() - offset) return;  // sizes do not match the bytes: drop the rest
    // Participants of this subtree (CheckContributors), each counted once.
    if (std::binary_search(participants.begin(), participants.end(), part->nodes[i]))
      p.blobs.try_emplace(part->nodes[i], blobs.substr(offset, size));
    offset += size;
  }
  Progress(key);
}

// Every id in range (proto/wire_ids.hpp), and every contributor below this node: a
// child sends up its own subtree's contributions only.
Result<void> TreeCollectives::CheckContributors(const proto::CollContribute& c) const {
  if (auto ok = proto::CheckIds(c, {tree_.size}); !ok) return ok;
  for (int n : c.nodes) {
    if (n == node_ || !tree_.InSubtree(node_, n)) {
      return Fail(ErrorCode::kProtocol, "contributor node " + std::to_string(n) +
                                            " is not below node " + std::to_string(node_));
    }
  }
  return {};
}

void TreeCollectives::Dropped(const proto::Frame& frame, const Error& why) const {
  std::fprintf(stderr, "pschedd[%d]: dropped a %s frame: %s\n", node_,
               proto::MsgTypeName(frame.type), why.message().c_str());
}

void TreeCollectives::Progress(const Key& key) {
  auto it = pending_.find(key);
  Pending& p = it->second;
  if (p.blobs.size() < p.expected) return;
  if (p.expected < p.participants.size()) {
    proto::CollContribute up{key.first, key.second, ToSpans(p.participants), {}, {}};
    std::string raw;
    for (auto& [n, blob] : p.blobs) {
      up.nodes.push_back(n);
      up.sizes.push_back(static_cast<uint32_t>(blob.size()));
      raw += blob;
    }
    send_(tree_.Parent(node_), proto::EncodeContributeFrame(up, raw));
    p.sent_up = true;
    p.blobs.clear();
    if (!p.done) pending_.erase(it);  // only passing through: the result needs no state here
    return;
  }
  // The root of this collective: every participant's blob is here, in node order.
  std::string all;
  for (auto& [n, blob] : p.blobs) all += blob;
  proto::CollResult result{key.first, key.second, ToSpans(p.participants), ""};
  SendDown(p.participants, proto::EncodeResultFrame(result, all));
  Done done = std::move(p.done);
  pending_.erase(it);
  if (done) done(std::move(all));
}

void TreeCollectives::SendDown(const std::vector<int>& participants, const std::string& wire) {
  for (int child : tree_.Children(node_)) {
    if (std::any_of(participants.begin(), participants.end(),
                    [&](int n) { return tree_.InSubtree(child, n); }))
      send_(child, wire);
  }
}

void TreeCollectives::OnResult(const proto::Frame& frame) {
  std::string_view blobs;
  auto result = proto::DecodeResult(frame.raw, &blobs);
  if (!result) return;
  if (auto ok = proto::CheckIds(*result, {tree_.size}); !ok) return Dropped(frame, ok.error());
  std::vector<int> participants = FromSpans(result->spans, tree_.size);
  if (participants.empty()) return;
  // The same bytes go on down: framed once here for all children.
  SendDown(participants, proto::EncodeFrame(frame));
  auto it = pending_.find({result->session, result->id});
  if (it == pending_.end() || !it->second.done) return;  // passing through, or failed already
  Done done = std::move(it->second.done);
  pending_.erase(it);
  if (!result->error.empty()) {
    return done(Fail(Error(ErrorCode::kNotFound, Describe(result->id) + ": " + result->error)
                         .WithSession(result->session)
                         .WithNode(node_)));
  }
  done(std::string(blobs));
}

void TreeCollectives::SessionEnded(int64_t session) {
  // Only the collectives this node takes part in: a relay's state may belong to
  // collectives of the session that other nodes still run (a fence over some ranks).
  std::vector<Done> abandoned;
  for (auto it = pending_.lower_bound({session, std::string()});
       it != pending_.end() && it->first.first == session;) {
    if (!it->second.done) {
      ++it;
      continue;
    }
    // The relays above hold this node's blobs (or wait for them) in vain: they forget
    // the collective as the message passes on its way to the root.
    if (node_ != 0) {
      send_(tree_.Parent(node_),
            proto::EncodeFrame(proto::MsgType::kCollForget,
                               proto::Json(proto::CollForget{session, it->first.second})));
    }
    abandoned.push_back(std::move(it->second.done));
    it = pending_.erase(it);
  }
  for (Done& done : abandoned) {
    done(Fail(Error(ErrorCode::kNotFound, "collective abandoned: the session ended on this node")
                  .WithSession(session)
                  .WithNode(node_)));
  }
}

void TreeCollectives::OnForget(const proto::Frame& frame) {
  auto forget = proto::DecodeChecked<proto::CollForget>(frame, {tree_.size});
  if (!forget) return;
  if (node_ != 0) send_(tree_.Parent(node_), proto::EncodeFrame(frame.type, frame.body));
  auto it = pending_.find({forget->session, forget->id});
  if (it == pending_.end()) return;
  Done done = std::move(it->second.done);
  pending_.erase(it);
  if (done) {
    done(Fail(Error(ErrorCode::kNotFound,
                    Describe(forget->id) + ": the session ended on another participant's node")
                  .WithSession(forget->session)
                  .WithNode(node_)));
  }
}

void TreeCollectives::NodesLost(const std::vector<int>& nodes, const std::string& cause) {
  for (int n : nodes) lost_.try_emplace(n, cause);
  std::vector<std::pair<Key, Done>> failed;
  for (auto it = pending_.begin(); it != pending_.end();) {
    const std::vector<int>& parts = it->second.participants;
    auto lost = std::find_if(parts.begin(), parts.end(), [&](int p) {
      return std::find(nodes.begin(), nodes.end(), p) != nodes.end();
    });
    if (lost == parts.end()) {
      ++it;
      continue;
    }
    if (it->second.done) failed.emplace_back(it->first, std::move(it->second.done));
    it = pending_.erase(it);
  }
  // Answered after the state is gone: a callback may start the next collective.
  for (auto& [key, done] : failed) {
    done(Fail(Error(ErrorCode::kNotFound,
                    Describe(key.second) + ": a participant node was lost (" + cause + ")")
                  .WithSession(key.first)
                  .WithNode(node_)));
  }
}

}  // namespace psched::daemon
