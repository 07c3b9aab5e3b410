#include "scheduler/tools/snapshot_json.hpp"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "common/json_object_reader.hpp"

namespace psched::sched::place {
namespace {

using nlohmann::json;
using psched::ObjectReader;

constexpr long kMax = std::numeric_limits<long>::max();
constexpr long kIntMax = std::numeric_limits<int>::max();

Result<Node> ParseNode(const json& j, const std::string& path, int index) {
  ObjectReader r(j, path);
  if (auto ok = r.CheckObject(); !ok) return Fail(ok.error());
  if (auto ok = r.OnlyKeys({"id", "hostname", "pus", "gpus", "free_pus", "free_gpus", "metrics"});
      !ok)
    return Fail(ok.error());
  PSCHED_TRY(id, r.Int("id", 0, kIntMax, index));
  PSCHED_TRY(pus, r.Int("pus", 1, 1 << 20, std::nullopt));
  PSCHED_TRY(gpus, r.Int("gpus", 0, 1 << 10, 0));
  PSCHED_TRY(free_pus, r.Int("free_pus", 0, pus, pus));
  PSCHED_TRY(free_gpus, r.Int("free_gpus", 0, gpus, gpus));
  PSCHED_TRY(hostname, r.String("hostname", "n" + std::to_string(id)));
  Node node =
      Node::Make(static_cast<NodeId>(id), hostname,
                 NodeTopology::Uniform(1, static_cast<int>(pus), 1, static_cast<int>(gpus)));
  for (long p = 0; p < pus - free_pus; ++p) node.uses[p] = 1;
  node.gpus_used = static_cast<int>(gpus - free_gpus);
  if (r.Has("metrics")) {
    ObjectReader m(j.at("metrics"), r.Path("metrics"));
    if (auto ok = m.CheckObject(); !ok) return Fail(ok.error());
    if (auto ok = m.OnlyKeys({"cpu_load_1m", "cpu_load_5m", "cpu_load_15m", "cpu_utilisation",
                              "bandwidth_mbps", "used_memory_mb", "total_memory_mb", "clock_mhz"});
        !ok)
      return Fail(ok.error());
    NodeMetrics& x = node.metrics;
    PSCHED_TRY(l1, m.Number("cpu_load_1m", 0, 0));
    PSCHED_TRY(l5, m.Number("cpu_load_5m", 0, 0));
    PSCHED_TRY(l15, m.Number("cpu_load_15m", 0, 0));
    PSCHED_TRY(util, m.Number("cpu_utilisation", 0, 0));
    PSCHED_TRY(bw, m.Number("bandwidth_mbps", 0, 0));
    PSCHED_TRY(used, m.Number("used_memory_mb", 0, 0));
    PSCHED_TRY(total, m.Number("total_memory_mb", 0, 0));
    PSCHED_TRY(clock, m.Number("clock_mhz", 0, 0));
    x = NodeMetrics{l1, l5, l15, util, bw, used, total, clock};
  }
  return node;
}

Result<LinkMetrics> ParseLink(const json& j, const std::string& path, const std::set<NodeId>& ids) {
  ObjectReader r(j, path);
  if (auto ok = r.CheckObject(); !ok) return Fail(ok.error());
  if (auto ok = r.OnlyKeys({"a", "b", "latency_us", "bandwidth_mbps"}); !ok)
    return Fail(ok.error());
  PSCHED_TRY(a, r.Int("a", 0, kIntMax, std::nullopt));
  PSCHED_TRY(b, r.Int("b", 0, kIntMax, std::nullopt));
  for (auto [key, id] : {std::pair{"a", a}, std::pair{"b", b}}) {
    if (!ids.contains(static_cast<NodeId>(id))) {
      return Fail(ErrorCode::kInvalidArgument,
                  r.Path(key) + ": no node has id " + std::to_string(id));
    }
  }
  PSCHED_TRY(lat, r.Number("latency_us", 0, 0));
  PSCHED_TRY(bw, r.Number("bandwidth_mbps", 0, 0));
  return LinkMetrics{static_cast<NodeId>(a), static_cast<NodeId>(b), lat, bw};
}

Result<SessionRequest> ParseSession(const json& j, const std::string& path) {
  ObjectReader r(j, path);
  if (auto ok = r.CheckObject(); !ok) return Fail(ok.error());
  if (auto ok =
          r.OnlyKeys({"id", "owner", "ranks", "threads_per_rank", "nodes", "ppn", "gpus_per_node",
                      "contiguous", "spread", "priority", "estimate_s", "submit_time"});
      !ok)
    return Fail(ok.error());
  SessionRequest s;
  PSCHED_TRY(id, r.Int("id", 0, kMax, std::nullopt));
  PSCHED_TRY(ranks, r.Int("ranks", 1, 1 << 24, std::nullopt));
  PSCHED_TRY(threads, r.Int("threads_per_rank", 1, 1 << 12, 1));
  PSCHED_TRY(nodes, r.Int("nodes", 0, 1 << 24, 0));
  PSCHED_TRY(ppn, r.Int("ppn", 0, 1 << 20, 0));
  PSCHED_TRY(gpus, r.Int("gpus_per_node", 0, 1 << 10, 0));
  PSCHED_TRY(contiguous, r.Bool("contiguous", false));
  PSCHED_TRY(spread, r.Bool("spread", false));
  PSCHED_TRY(owner, r.String("owner", ""));
  PSCHED_TRY(estimate, r.Number("estimate_s", 0, 0));
  PSCHED_TRY(submit, r.Number("submit_time", -std::numeric_limits<double>::max(), 0));
  PSCHED_TRY(priority, r.Number("priority", -std::numeric_limits<double>::max(), 0));
  s.id = id;
  s.ranks = static_cast<int>(ranks);
  s.threads_per_rank = static_cast<int>(threads);
  s.nodes = static_cast<int>(nodes);
  s.ppn = static_cast<int>(ppn);
  s.gpus_per_node = static_cast<int>(gpus);
  s.contiguous = contiguous;
  s.spread = spread;
  s.owner = owner;
  s.estimate_s = estimate;
  s.submit_time = submit;
  s.priority = priority;
  return s;
}

}  // namespace

Result<PlaceInput> ParseSnapshot(std::string_view text, std::string_view source) {
  auto fail = [&](Error e) { return Fail(e.Wrap(std::string(source))); };
  auto doc = ParseJsonDocument(text);
  if (!doc) return fail(doc.error());
  ObjectReader top(*doc, "");
  if (auto ok = top.CheckObject(); !ok) return fail(ok.error());
  if (auto ok = top.OnlyKeys({"now", "nodes", "links", "sessions"}); !ok) return fail(ok.error());
  PlaceInput in;
  auto now = top.Number("now", -std::numeric_limits<double>::max(), 0);
  if (!now) return fail(now.error());
  in.snapshot.now = *now;

  auto nodes = top.Array("nodes", true);
  if (!nodes) return fail(nodes.error());
  if ((*nodes)->empty())
    return fail(Error(ErrorCode::kInvalidArgument, "nodes: expected at least one node"));
  std::set<NodeId> ids;
  for (size_t i = 0; i < (*nodes)->size(); ++i) {
    const std::string path = "nodes[" + std::to_string(i) + "]";
    auto node = ParseNode((**nodes)[i], path, static_cast<int>(i));
    if (!node) return fail(node.error());
    if (!ids.insert(node->id).second) {
      return fail(Error(ErrorCode::kInvalidArgument,
                        path + ".id: duplicate node id " + std::to_string(node->id)));
    }
    in.snapshot.nodes.push_back(std::move(*node));
  }
  auto links = top.Array("links", false);
  if (!links) return fail(links.error());
  if (*links != nullptr) {
    for (size_t i = 0; i < (*links)->size(); ++i) {
      auto link = ParseLink((**links)[i], "links[" + std::to_string(i) + "]", ids);
      if (!link) return fail(link.error());
      in.snapshot.links.push_back(*link);
    }
  }
  auto sessions = top.Array("sessions", true);
  if (!sessions) return fail(sessions.error());
  std::set<SessionId> session_ids;
  for (size_t i = 0; i < (*sessions)->size(); ++i) {
    const std::string path = "sessions[" + std::to_string(i) + "]";
    auto s = ParseSession((**sessions)[i], path);
    if (!s) return fail(s.error());
    if (!session_ids.insert(s->id).second) {
      return fail(Error(ErrorCode::kInvalidArgument,
                        path + ".id: duplicate session id " + std::to_string(s->id)));
    }
    in.waiting.push_back(std::move(*s));
  }
  std::stable_sort(
      in.waiting.begin(), in.waiting.end(),
      [](const SessionRequest& a, const SessionRequest& b) { return a.priority > b.priority; });
  return in;
}

}  // namespace psched::sched::place
