#include "policies/replay.hpp"

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <variant>

#include "policies/policy_registry.hpp"
#include "policies/queue.hpp"
#include "scheduler/allocator_registry.hpp"

namespace psched::policies {
namespace {

using Json = nlohmann::json;

// "n0[0,1] n1[0]": where each rank is, in rank order, grouped by runs of one node.
std::string FormatPlacement(const sched::Placement& placement) {
  std::ostringstream out;
  int node = -1;
  for (const sched::RankSlots& r : placement.ranks) {
    if (r.node != node) {
      out << (node < 0 ? "" : "] ") << "n" << r.node << "[";
      node = r.node;
    } else {
      out << " ";
    }
    for (size_t i = 0; i < r.pus.size(); ++i) out << (i ? "+" : "") << r.pus[i];
  }
  if (node >= 0) out << "]";
  return out.str();
}

std::string FormatAction(const sched::Action& action) {
  std::ostringstream out;
  std::visit(
      [&](const auto& a) {
        using T = std::decay_t<decltype(a)>;
        if constexpr (std::is_same_v<T, sched::SpawnAction>) {
          out << "spawn " << a.session << (a.exclusive ? " exclusive" : "")
              << (a.overbooked ? " overbooked" : "") << (a.floating ? " floating" : "") << ": "
              << FormatPlacement(a.placement);
        } else if constexpr (std::is_same_v<T, sched::SuspendAction>) {
          out << "suspend " << a.session << " by " << a.by;
        } else if constexpr (std::is_same_v<T, sched::ResumeAction>) {
          out << "resume " << a.session;
        } else if constexpr (std::is_same_v<T, sched::RepinAction>) {
          out << "repin " << a.session
              << (a.by == sched::kNoSession ? " (restore)" : " by " + std::to_string(a.by)) << ": "
              << FormatPlacement(a.placement);
        } else if constexpr (std::is_same_v<T, sched::EnqueueAction>) {
          out << "enqueue " << a.session << ": " << a.reason;
        } else if constexpr (std::is_same_v<T, sched::RejectAction>) {
          out << "reject " << a.session << ": " << a.reason;
        } else if constexpr (std::is_same_v<T, sched::KillAction>) {
          out << "kill " << a.session;
        }
      },
      action);
  return out.str();
}

// "  uses n0 2211 n1 ....": a digit per slot (its use count), '.' for a free one.
std::string FormatUses(const sched::Snapshot& snapshot) {
  std::ostringstream out;
  out << "  uses";
  for (const sched::Node& n : snapshot.nodes) {
    out << " n" << n.id << " ";
    for (int u : n.uses) out << (u == 0 ? '.' : u > 9 ? '+' : static_cast<char>('0' + u));
  }
  return out.str();
}

// "  sessions 1 sidestepped by 2, 2 running, 3 queued"
std::string FormatSessions(const sched::Snapshot& snapshot) {
  std::ostringstream out;
  out << "  sessions";
  if (snapshot.sessions.empty()) out << " none";
  for (size_t i = 0; i < snapshot.sessions.size(); ++i) {
    const sched::Session& s = snapshot.sessions[i];
    out << (i ? ", " : " ") << s.request.id << " " << sched::SessionStateName(s.state);
    if (s.displaced_by != sched::kNoSession) out << " by " << s.displaced_by;
  }
  return out.str();
}

void PrintPlan(std::ostringstream& out, const sched::Plan& plan, const sched::Snapshot& after) {
  if (plan.empty()) out << "  (no action)\n";
  for (const sched::Action& a : plan.actions) out << "  " << FormatAction(a) << "\n";
  out << FormatUses(after) << "\n" << FormatSessions(after) << "\n";
}

// A field of an event or the script: its type checked, its path in the error.
class Reader {
 public:
  Reader(std::string_view source) : source_(source) {}

  Result<int> Int(const Json& object, const std::string& path, const std::string& key, int min,
                  int max, std::optional<int> fallback = std::nullopt) const {
    auto it = object.find(key);
    if (it == object.end()) {
      if (fallback) return *fallback;
      return Bad(path + "." + key, "missing (required)");
    }
    if (!it->is_number_integer() || *it < min || *it > max) {
      return Bad(path + "." + key, "expected an integer in [" + std::to_string(min) + ", " +
                                       std::to_string(max) + "], got " + it->dump());
    }
    return it->get<int>();
  }

  Result<std::string> String(const Json& object, const std::string& path, const std::string& key,
                             const std::string& fallback) const {
    auto it = object.find(key);
    if (it == object.end()) return fallback;
    if (!it->is_string()) return Bad(path + "." + key, "expected a string, got " + it->dump());
    return it->get<std::string>();
  }

  Result<bool> Bool(const Json& object, const std::string& path, const std::string& key) const {
    auto it = object.find(key);
    if (it == object.end()) return false;
    if (!it->is_boolean())
      return Bad(path + "." + key, "expected true or false, got " + it->dump());
    return it->get<bool>();
  }

  std::unexpected<psched::Error> Bad(const std::string& path, const std::string& what) const {
    return Fail(ErrorCode::kInvalidArgument, std::string(source_) + ": " + path + ": " + what);
  }

 private:
  std::string_view source_;
};

Result<void> CheckKeys(const Json& object, const std::string& path,
                       const std::set<std::string>& known, const Reader& reader) {
  if (!object.is_object()) return reader.Bad(path, "expected an object, got " + object.dump());
  for (const auto& [key, value] : object.items()) {
    if (!known.contains(key)) return reader.Bad(path + "." + key, "unknown key");
  }
  return {};
}

}  // namespace

Result<std::string> ReplayScript(std::string_view text, std::string_view source) {
  Reader reader(source);
  Json script = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (script.is_discarded()) return reader.Bad("(top)", "not valid JSON");
  if (auto ok = CheckKeys(script, "(top)",
                          {"nodes", "cores", "allocator", "overbook_mode", "events"}, reader);
      !ok)
    return Fail(ok.error());
  auto nodes = reader.Int(script, "(top)", "nodes", 1, 4096);
  if (!nodes) return Fail(nodes.error());
  auto cores = reader.Int(script, "(top)", "cores", 1, 4096);
  if (!cores) return Fail(cores.error());
  auto allocator_name = reader.String(script, "(top)", "allocator", "compact");
  if (!allocator_name) return Fail(allocator_name.error());
  auto mode = reader.String(script, "(top)", "overbook_mode", "pinned");
  if (!mode) return Fail(mode.error());
  if (*mode != "pinned" && *mode != "float")
    return reader.Bad("(top).overbook_mode", "expected pinned or float, got '" + *mode + "'");
  auto allocator = sched::MakeAllocator(*allocator_name);
  if (!allocator) return reader.Bad("(top).allocator", allocator.error().message());
  PolicyOptions options;
  options.overbook_mode = *mode == "float" ? OverbookMode::kFloat : OverbookMode::kPinned;

  auto events = script.find("events");
  if (events == script.end() || !events->is_array() || events->empty())
    return reader.Bad("(top).events", "expected a non-empty list of events");

  sched::Snapshot snapshot;
  for (int i = 0; i < *nodes; ++i) {
    snapshot.nodes.push_back(
        sched::Node::Make(i, "n" + std::to_string(i), sched::NodeTopology::Uniform(1, *cores, 1)));
  }
  std::map<sched::SessionId, std::unique_ptr<Policy>> policy_of;  // each session's own policy
  std::ostringstream out;
  out << "allocation " << *nodes << " nodes x " << *cores << " slots, allocator " << *allocator_name
      << ", overbook " << *mode << "\n";
  for (size_t i = 0; i < events->size(); ++i) {
    const Json& event = (*events)[i];
    const std::string path = "events[" + std::to_string(i) + "]";
    snapshot.now = static_cast<double>(i);
    if (event.is_object() && event.contains("end")) {
      if (auto ok = CheckKeys(event, path, {"end"}, reader); !ok) return Fail(ok.error());
      auto id = reader.Int(event, path, "end", 1, 1 << 30);
      if (!id) return Fail(id.error());
      const sched::Session* found = snapshot.Find(*id);
      if (!found)
        return reader.Bad(path + ".end", "no session " + std::to_string(*id) + " is known");
      sched::Session ended = *found;
      sched::RemoveSession(snapshot, *id);
      out << "end " << *id << "\n";
      sched::Plan plan;
      if (ended.state != sched::SessionState::kQueued)
        plan = policy_of.at(*id)->OnEnd(snapshot, ended, **allocator);
      sched::ApplyPlan(snapshot, plan);
      PrintPlan(out, plan, snapshot);
      continue;
    }
    if (auto ok =
            CheckKeys(event, path, {"arrive", "ranks", "threads", "policy", "spread"}, reader);
        !ok)
      return Fail(ok.error());
    auto id = reader.Int(event, path, "arrive", 1, 1 << 30);
    if (!id) return Fail(id.error());
    if (policy_of.contains(*id))
      return reader.Bad(path + ".arrive", "session " + std::to_string(*id) + " arrived before");
    auto ranks = reader.Int(event, path, "ranks", 1, 1 << 20);
    if (!ranks) return Fail(ranks.error());
    auto threads = reader.Int(event, path, "threads", 1, 4096, 1);
    if (!threads) return Fail(threads.error());
    auto spread = reader.Bool(event, path, "spread");
    if (!spread) return Fail(spread.error());
    auto name = reader.String(event, path, "policy", "wait");
    if (!name) return Fail(name.error());
    auto policy = MakePolicy(*name, options);
    if (!policy) return reader.Bad(path + ".policy", policy.error().message());

    sched::SessionRequest request;
    request.id = *id;
    request.ranks = *ranks;
    request.threads_per_rank = *threads;
    request.spread = *spread;
    request.policy = *name;
    request.submit_time = snapshot.now;
    out << "arrive " << *id << " (" << *ranks << " ranks"
        << (*threads > 1 ? " x " + std::to_string(*threads) : "") << (*spread ? ", spread" : "")
        << ", policy " << *name << ")\n";
    sched::Plan plan = (*policy)->OnArrival(snapshot, request, **allocator);
    sched::ApplyPlan(snapshot, plan, &request);
    policy_of[*id] = std::move(*policy);
    PrintPlan(out, plan, snapshot);
  }
  return out.str();
}

}  // namespace psched::policies
