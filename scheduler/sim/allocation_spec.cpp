#include "scheduler/sim/allocation_spec.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "common/json_object_reader.hpp"

namespace psched::sim {
namespace {

using Json = nlohmann::json;

// A number of seconds: finite (a JSON number too large for a double reads as infinite),
// at least `min`, and above it where `above` says so.
Result<double> Seconds(const ObjectReader& in, std::string_view key, double min, bool above,
                       double fallback) {
  auto x = in.Number(key, min, fallback);
  if (!x) return Fail(x.error());
  if (!std::isfinite(*x) || (above && !(*x > min))) {
    return Fail(ErrorCode::kInvalidArgument, in.Path(key) +
                                                 ": expected a finite number of seconds " +
                                                 (above ? "> " : ">= ") + Json(min).dump());
  }
  return *x;
}

Result<std::vector<std::string>> Policies(const ObjectReader& top) {
  auto list = top.Array("policies", /*required=*/false);
  if (!list) return Fail(list.error());
  if (*list == nullptr) return std::vector<std::string>{"wait"};
  if ((*list)->empty()) return Fail(ErrorCode::kInvalidArgument, "policies: names none");
  std::vector<std::string> names;
  for (size_t i = 0; i < (*list)->size(); ++i) {
    const Json& name = (**list)[i];
    if (!name.is_string()) {
      return Fail(ErrorCode::kInvalidArgument, "policies[" + std::to_string(i) +
                                                   "]: expected a policy's name, got " +
                                                   std::string(name.type_name()));
    }
    names.push_back(name.get<std::string>());
  }
  return names;
}

// One entry of "sessions", appended `repeat` times.
Result<void> AddSessions(const Json& entry, const std::string& path, AllocationSpec& spec) {
  ObjectReader in(entry, path);
  if (auto ok = in.CheckObject(); !ok) return ok;
  if (auto ok = in.OnlyKeys(
          {"submit_s", "ranks", "runtime_s", "estimate_s", "owner", "repeat", "every_s"});
      !ok)
    return ok;
  AllocationSession one;
  PSCHED_TRY(submit, Seconds(in, "submit_s", 0, false, 0));
  PSCHED_TRY(ranks, in.Int("ranks", 1, 1 << 20, 1));
  if (!in.Has("runtime_s"))
    return Fail(ErrorCode::kInvalidArgument, in.Path("runtime_s") + ": missing (required)");
  PSCHED_TRY(runtime, Seconds(in, "runtime_s", 0, true, 0));
  PSCHED_TRY(estimate, Seconds(in, "estimate_s", 0, false, 0));
  PSCHED_TRY(owner, in.String("owner", one.owner));
  PSCHED_TRY(repeat, in.Int("repeat", 1, kMaxSessions, 1));
  PSCHED_TRY(every, Seconds(in, "every_s", 0, false, 0));
  if (static_cast<long>(spec.sessions.size()) + repeat > kMaxSessions) {
    return Fail(ErrorCode::kInvalidArgument, in.Path("repeat") +
                                                 ": the stream would have more than " +
                                                 std::to_string(kMaxSessions) + " sessions");
  }
  if (!std::isfinite(submit + static_cast<double>(repeat - 1) * every)) {
    return Fail(ErrorCode::kInvalidArgument,
                in.Path("every_s") + ": the last session's submit_s is not a finite number");
  }
  one.submit_s = submit;
  one.ranks = static_cast<int>(ranks);
  one.runtime_s = runtime;
  one.estimate_s = estimate;
  one.owner = owner;
  for (long k = 0; k < repeat; ++k) {
    spec.sessions.push_back(one);
    one.submit_s += every;
  }
  return {};
}

Result<AllocationSpec> Parse(std::string_view text) {
  auto j = ParseJsonDocument(text);
  if (!j) return Fail(j.error().Wrap("(top level)"));
  ObjectReader top(*j, "");
  if (auto ok = top.CheckObject(); !ok) return Fail(ok.error());
  if (auto ok = top.OnlyKeys(
          {"nodes", "pus_per_node", "policies", "allocator", "priority", "round_s", "sessions"});
      !ok)
    return Fail(ok.error());
  AllocationSpec spec;
  PSCHED_TRY(nodes, top.Int("nodes", 1, kMaxNodes, 1));
  PSCHED_TRY(pus, top.Int("pus_per_node", 1, kMaxPusPerNode, 1));
  PSCHED_TRY(policies, Policies(top));
  PSCHED_TRY(allocator, top.String("allocator", spec.allocator));
  PSCHED_TRY(priority, top.String("priority", spec.priority));
  PSCHED_TRY(round, Seconds(top, "round_s", 0, true, spec.round_s));
  PSCHED_TRY(sessions, top.Array("sessions", /*required=*/true));
  if (sessions->empty())
    return Fail(ErrorCode::kInvalidArgument, "sessions: expected a non-empty list of sessions");
  spec.nodes = static_cast<int>(nodes);
  spec.pus_per_node = static_cast<int>(pus);
  spec.policies = std::move(policies);
  spec.allocator = std::move(allocator);
  spec.priority = std::move(priority);
  spec.round_s = round;
  for (size_t i = 0; i < sessions->size(); ++i) {
    if (auto ok = AddSessions((*sessions)[i], "sessions[" + std::to_string(i) + "]", spec); !ok)
      return Fail(ok.error());
  }
  return spec;
}

}  // namespace

Result<AllocationSpec> ParseAllocationSpec(std::string_view json) {
  auto spec = Parse(json);
  if (!spec) return Fail(spec.error().Wrap("allocation spec"));
  return spec;
}

}  // namespace psched::sim
