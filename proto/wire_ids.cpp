#include "proto/wire_ids.hpp"

namespace psched::proto {
namespace {

Result<void> Node(int node, const IdBounds& b, const char* what = "node") {
  if (node >= 0 && node < b.nodes) return {};
  return Fail(ErrorCode::kProtocol, std::string(what) + " " + std::to_string(node) +
                                        " is outside an allocation of " + std::to_string(b.nodes) +
                                        " nodes");
}

Result<void> Nodes(const std::vector<int>& nodes, const IdBounds& b, const char* what = "node") {
  for (int n : nodes)
    if (auto ok = Node(n, b, what); !ok) return ok;
  return {};
}

Result<void> NonNegative(int64_t id, const char* what) {
  if (id >= 0) return {};
  return Fail(ErrorCode::kProtocol, std::string(what) + " " + std::to_string(id) + " is negative");
}

// Participant spans: [first, last] pairs of node ids, ascending and apart.
Result<void> Spans(const std::vector<int>& spans, const IdBounds& b) {
  if (spans.empty() || spans.size() % 2 != 0)
    return Fail(ErrorCode::kProtocol, "participants are not [first, last] pairs");
  if (auto ok = Nodes(spans, b, "participant node"); !ok) return ok;
  for (size_t i = 0; i < spans.size(); i += 2) {
    if (spans[i] > spans[i + 1] || (i > 0 && spans[i] <= spans[i - 1]))
      return Fail(ErrorCode::kProtocol, "participant spans overlap or are reversed");
  }
  return {};
}

}  // namespace

Result<void> CheckIds(const CollContribute& m, const IdBounds& b) {
  if (auto ok = NonNegative(m.session, "session"); !ok) return ok;
  if (auto ok = Spans(m.spans, b); !ok) return ok;
  if (m.sizes.size() != m.nodes.size())
    return Fail(ErrorCode::kProtocol, "contributors and blob sizes differ in number");
  return Nodes(m.nodes, b, "contributor node");
}

Result<void> CheckIds(const CollResult& m, const IdBounds& b) {
  if (auto ok = NonNegative(m.session, "session"); !ok) return ok;
  return Spans(m.spans, b);
}

Result<void> CheckIds(const CollForget& m, const IdBounds&) {
  return NonNegative(m.session, "session");
}

Result<void> CheckIds(const CollAbort& m, const IdBounds& b) {
  return Nodes(m.nodes, b);
}

Result<void> CheckIds(const NodeJoin& m, const IdBounds& b) {
  return Node(m.node, b);
}

Result<void> CheckIds(const NodeLost& m, const IdBounds& b) {
  return Nodes(m.nodes, b);
}

Result<void> CheckIds(const RankExit& m, const IdBounds& b) {
  if (auto ok = NonNegative(m.session, "session"); !ok) return ok;
  if (auto ok = NonNegative(m.rank, "rank"); !ok) return ok;
  return Node(m.node, b);
}

Result<void> CheckIds(const NodeDone& m, const IdBounds& b) {
  if (auto ok = NonNegative(m.session, "session"); !ok) return ok;
  if (auto ok = Node(m.node, b); !ok) return ok;
  for (const RankExit& e : m.exits)
    if (auto ok = CheckIds(e, b); !ok) return ok;
  return {};
}

Result<void> CheckIds(const Output& m, const IdBounds&) {
  if (auto ok = NonNegative(m.session, "session"); !ok) return ok;
  return NonNegative(m.rank, "rank");
}

Result<void> CheckIds(const StdinData& m, const IdBounds&) {
  return NonNegative(m.session, "session");
}

Result<void> CheckIds(const StdinWritten& m, const IdBounds&) {
  return NonNegative(m.session, "session");
}

Result<void> CheckIds(const OutputFlow& m, const IdBounds&) {
  return NonNegative(m.session, "session");
}

Result<void> CheckIds(const SessionRef& m, const IdBounds&) {
  return NonNegative(m.session, "session");
}

Result<void> CheckIds(const KillOrder& m, const IdBounds&) {
  return NonNegative(m.session, "session");
}

Result<void> CheckIds(const StartRanksOrder& m, const IdBounds& b) {
  if (auto ok = NonNegative(m.session, "session"); !ok) return ok;
  if (m.size < 0 || static_cast<size_t>(m.size) != m.ranks.size()) {
    return Fail(ErrorCode::kProtocol, "a session of size " + std::to_string(m.size) + " with " +
                                          std::to_string(m.ranks.size()) + " ranks");
  }
  for (const RankSpec& r : m.ranks) {
    if (r.rank < 0 || r.rank >= m.size) {
      return Fail(ErrorCode::kProtocol, "rank " + std::to_string(r.rank) +
                                            " is outside a session of " + std::to_string(m.size));
    }
    if (auto ok = Node(r.node, b); !ok) return ok;
    if (auto ok = NonNegative(r.local_rank, "local rank"); !ok) return ok;
  }
  return {};
}

Result<void> CheckIds(const PeerRoute& m, const IdBounds& b) {
  if (auto ok = Node(m.from, b, "sending node"); !ok) return ok;
  return Nodes(m.to, b, "destination node");
}

Result<void> CheckIds(const MonitorReport& m, const IdBounds& b) {
  if (auto ok = Node(m.node, b); !ok) return ok;
  for (const LinkReport& l : m.links)
    if (auto ok = Node(l.peer, b, "link peer node"); !ok) return ok;
  return {};
}

Result<void> CheckIds(const MonitorPeers& m, const IdBounds& b) {
  for (const ProbeAddress& p : m.probes)
    if (auto ok = Node(p.node, b); !ok) return ok;
  return {};
}

}  // namespace psched::proto
