#include "scheduler/tools/snapshot_json.hpp"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

namespace psched::sched::place {
namespace {

using nlohmann::json;

// Reads the fields of one JSON object, each error naming the JSON path.
class ObjectReader {
 public:
  ObjectReader(const json& object, std::string path) : object_(object), path_(std::move(path)) {}

  Result<void> CheckObject() const {
    if (!object_.is_object())
      return Fail(ErrorCode::kInvalidArgument, Where("") + "expected an object");
    return {};
  }
  Result<void> OnlyKeys(std::initializer_list<std::string_view> keys) const {
    for (const auto& [key, value] : object_.items()) {
      if (std::find(keys.begin(), keys.end(), key) == keys.end())
        return Fail(ErrorCode::kInvalidArgument, Where(key) + "unknown key");
    }
    return {};
  }
  bool Has(std::string_view key) const { return object_.contains(key); }

  Result<long> Int(std::string_view key, long min, long max, std::optional<long> fallback) const {
    if (!Has(key)) {
      if (fallback) return *fallback;
      return Fail(ErrorCode::kInvalidArgument, Where(key) + "missing (required)");
    }
    const json& v = object_.at(std::string(key));
    if (!v.is_number_integer())
      return Fail(ErrorCode::kInvalidArgument, Where(key) + "expected an integer, got " + Shown(v));
    long x = v.get<long>();
    if (x < min || x > max) {
      return Fail(ErrorCode::kInvalidArgument,
                  Where(key) + "expected an integer " + Range(min, max) + ", got " + v.dump());
    }
    return x;
  }
  Result<double> Number(std::string_view key, double min, double fallback) const {
    if (!Has(key)) return fallback;
    const json& v = object_.at(std::string(key));
    if (!v.is_number())
      return Fail(ErrorCode::kInvalidArgument, Where(key) + "expected a number, got " + Shown(v));
    double x = v.get<double>();
    if (x < min) {
      return Fail(ErrorCode::kInvalidArgument,
                  Where(key) + "expected a number >= " + json(min).dump() + ", got " + v.dump());
    }
    return x;
  }
  Result<bool> Bool(std::string_view key, bool fallback) const {
    if (!Has(key)) return fallback;
    const json& v = object_.at(std::string(key));
    if (!v.is_boolean()) {
      return Fail(ErrorCode::kInvalidArgument,
                  Where(key) + "expected true or false, got " + Shown(v));
    }
    return v.get<bool>();
  }
  Result<std::string> String(std::string_view key, std::string fallback) const {
    if (!Has(key)) return fallback;
    const json& v = object_.at(std::string(key));
    if (!v.is_string())
      return Fail(ErrorCode::kInvalidArgument, Where(key) + "expected a string, got " + Shown(v));
    return v.get<std::string>();
  }
  Result<const json*> Array(std::string_view key, bool required) const {
    if (!Has(key)) {
      if (required) return Fail(ErrorCode::kInvalidArgument, Where(key) + "missing (required)");
      return nullptr;
    }
    const json& v = object_.at(std::string(key));
    if (!v.is_array())
      return Fail(ErrorCode::kInvalidArgument, Where(key) + "expected an array, got " + Shown(v));
    return &v;
  }
  std::string Path(std::string_view key) const {
    return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  }

 private:
  std::string Where(std::string_view key) const {
    std::string p = key.empty() ? path_ : Path(key);
    return (p.empty() ? std::string("(top level)") : p) + ": ";
  }
  static std::string Shown(const json& v) {
    std::string s = v.dump();
    if (s.size() > 40) s = s.substr(0, 37) + "...";
    return std::string(v.type_name()) + " " + s;
  }
  static std::string Range(long min, long max) {
    if (max == std::numeric_limits<long>::max()) return ">= " + std::to_string(min);
    return "in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  }
  const json& object_;
  std::string path_;
};

constexpr long kMax = std::numeric_limits<long>::max();
constexpr long kIntMax = std::numeric_limits<int>::max();

// `var` names a declaration, it cannot be parenthesized.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define PSCHED_TRY(var, expr)                 \
  auto var##_r = (expr);                      \
  if (!var##_r) return Fail(var##_r.error()); \
  auto var = *var##_r
// NOLINTEND(bugprone-macro-parentheses)

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
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded()) return fail(Error(ErrorCode::kInvalidArgument, "not valid JSON"));
  ObjectReader top(doc, "");
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
