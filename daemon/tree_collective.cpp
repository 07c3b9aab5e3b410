#include "daemon/tree_collective.hpp"

#include <algorithm>

#include "proto/messages.hpp"

namespace psched::daemon {
namespace {

std::string Describe(const std::string& id) {
  return "collective " + id;
}

}  // namespace

TreeCollectives::TreeCollectives(int node, Tree tree, Send send)
    : node_(node), tree_(tree), send_(std::move(send)) {}

Result<void> TreeCollectives::CheckParticipants(const std::vector<int>& participants) const {
  if (participants.empty()) return Fail(ErrorCode::kInvalidArgument, "no participants");
  for (int p : participants) {
    if (p < 0 || p >= tree_.size)
      return Fail(ErrorCode::kInvalidArgument, "participant node " + std::to_string(p) +
                                                   " is outside an allocation of " +
                                                   std::to_string(tree_.size) + " nodes");
    if (auto it = lost_.find(p); it != lost_.end())
      return Fail(ErrorCode::kNotFound,
                  "participant node " + std::to_string(p) + " was lost (" + it->second + ")");
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
  if (p.participants != participants)
    return fail(Error(ErrorCode::kInvalidArgument,
                      "participants differ from those another node announced"));
  if (p.done || p.blobs.contains(node_))
    return fail(Error(ErrorCode::kInvalidArgument, "this node already contributed"));
  p.done = std::move(done);
  p.blobs[node_] = std::move(blob);
  Progress(key);
}

void TreeCollectives::OnFrame(const proto::Frame& frame) {
  if (frame.type == proto::MsgType::kCollContribute) return OnContribution(frame);
  if (frame.type == proto::MsgType::kCollResult) return OnResult(frame);
}

void TreeCollectives::OnContribution(const proto::Frame& frame) {
  auto part = proto::Decode<proto::CollContribute>(frame);
  if (!part || part->nodes.size() != part->sizes.size()) return;
  std::vector<int>& participants = part->participants;
  std::sort(participants.begin(), participants.end());
  participants.erase(std::unique(participants.begin(), participants.end()), participants.end());
  // A lost participant: the nodes that wait learn it from NodesLost, not from us.
  if (!CheckParticipants(participants)) return;
  Key key{part->session, part->id};
  Pending& p = Entry(key, participants);
  if (p.sent_up || p.participants != participants) return;  // a duplicate or a bug
  size_t offset = 0;
  for (size_t i = 0; i < part->nodes.size(); ++i) {
    size_t size = part->sizes[i];
    if (size > frame.raw.size() - offset) return;  // sizes do not match the bytes: drop the rest
    int n = part->nodes[i];
    // Only participants of this subtree count, each once.
    if (n != node_ && tree_.InSubtree(node_, n) &&
        std::binary_search(participants.begin(), participants.end(), n))
      p.blobs.try_emplace(n, frame.raw.substr(offset, size));
    offset += size;
  }
  Progress(key);
}

void TreeCollectives::Progress(const Key& key) {
  auto it = pending_.find(key);
  Pending& p = it->second;
  if (p.blobs.size() < p.expected) return;
  if (p.expected < p.participants.size()) {
    proto::CollContribute up{key.first, key.second, p.participants, {}, {}};
    std::string raw;
    for (auto& [n, blob] : p.blobs) {
      up.nodes.push_back(n);
      up.sizes.push_back(static_cast<uint32_t>(blob.size()));
      raw += blob;
    }
    send_(tree_.Parent(node_),
          proto::EncodeFrame(proto::MsgType::kCollContribute, proto::Json(up), raw));
    p.sent_up = true;
    p.blobs.clear();
    if (!p.done) pending_.erase(it);  // only passing through: the result needs no state here
    return;
  }
  // The root of this collective: every participant's blob is here, in node order.
  std::string all;
  for (auto& [n, blob] : p.blobs) all += blob;
  proto::CollResult result{key.first, key.second, p.participants, ""};
  SendDown(p.participants,
           proto::EncodeFrame(proto::MsgType::kCollResult, proto::Json(result), all));
  Done done = std::move(p.done);
  pending_.erase(it);
  if (done) done(std::move(all));
}

void TreeCollectives::SendDown(const std::vector<int>& participants, const std::string& wire) {
  for (int child : tree_.Children(node_))
    if (std::any_of(participants.begin(), participants.end(),
                    [&](int n) { return tree_.InSubtree(child, n); }))
      send_(child, wire);
}

void TreeCollectives::OnResult(const proto::Frame& frame) {
  auto result = proto::Decode<proto::CollResult>(frame);
  if (!result) return;
  std::sort(result->participants.begin(), result->participants.end());
  // The same bytes go on down: encoded once here for all children.
  SendDown(result->participants, proto::EncodeFrame(frame.type, frame.body, frame.raw));
  auto it = pending_.find({result->session, result->id});
  if (it == pending_.end() || !it->second.done) return;  // passing through, or failed already
  Done done = std::move(it->second.done);
  pending_.erase(it);
  if (!result->error.empty())
    return done(Fail(Error(ErrorCode::kNotFound, Describe(result->id) + ": " + result->error)
                         .WithSession(result->session)
                         .WithNode(node_)));
  done(std::string(frame.raw));
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
  for (auto& [key, done] : failed)
    done(Fail(Error(ErrorCode::kNotFound,
                    Describe(key.second) + ": a participant node was lost (" + cause + ")")
                  .WithSession(key.first)
                  .WithNode(node_)));
}

}  // namespace psched::daemon
