#include "scheduler/leader/replay.hpp"

#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <variant>

#include "common/json_object_reader.hpp"
#include "policies/policy_registry.hpp"
#include "scheduler/leader/step.hpp"
#include "scheduler/priorities/priority_registry.hpp"

namespace psched::sched::leader {
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

}  // namespace

namespace {

// `var` names a declaration, it cannot be parenthesized.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define PSCHED_TRY(var, expr)                 \
  auto var##_r = (expr);                      \
  if (!var##_r) return Fail(var##_r.error()); \
  auto var = *var##_r
// NOLINTEND(bugprone-macro-parentheses)

// As pschedd once the nodes carried a plan out: into the snapshot, then the step that
// learns it landed (where each started session runs).
void CarryOut(State& state, Deciders& deciders, const Outcome& decided, double now,
              SessionId arrival = kNoSession) {
  Snapshot before = state.snapshot;
  sched::ApplyPlan(state.snapshot, decided.plan,
                   arrival == kNoSession ? nullptr : &decided.request);
  if (!decided.plan.empty()) {
    Step(state, PlanCarriedOut{decided.plan, std::move(before), arrival, std::nullopt}, now,
         deciders);
  }
}

Result<std::string> Replay(std::string_view text) {
  Json script = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (script.is_discarded())
    return Fail(ErrorCode::kInvalidArgument, "(top level): not valid JSON");
  ObjectReader top(script, "");
  if (auto ok = top.CheckObject(); !ok) return Fail(ok.error());
  if (auto ok = top.OnlyKeys({"nodes", "cores", "allocator", "overbook_mode", "events"}); !ok)
    return Fail(ok.error());
  PSCHED_TRY(nodes, top.Int("nodes", 1, 4096, std::nullopt));
  PSCHED_TRY(cores, top.Int("cores", 1, 4096, std::nullopt));
  PSCHED_TRY(allocator_name, top.String("allocator", "compact"));
  PSCHED_TRY(mode, top.String("overbook_mode", "pinned"));
  if (mode != "pinned" && mode != "float") {
    return Fail(ErrorCode::kInvalidArgument,
                "overbook_mode: expected pinned or float, got '" + mode + "'");
  }
  AllocatorCache allocators{sched::AllocatorConfig{}};
  if (auto allocator = allocators.Get(allocator_name); !allocator)
    return Fail(allocator.error().Wrap("allocator"));
  // pschedd's default priority: first come, first served.
  auto priority = sched::prio::MakePriority("fcfs");
  if (!priority) return Fail(priority.error());
  Deciders deciders{allocators, **priority, allocator_name, false};
  policies::PolicyOptions options;
  options.overbook_mode =
      mode == "float" ? policies::OverbookMode::kFloat : policies::OverbookMode::kPinned;
  PSCHED_TRY(events, top.Array("events", /*required=*/true));
  if (events->empty())
    return Fail(ErrorCode::kInvalidArgument, "events: expected a non-empty list of events");

  State state;
  for (long i = 0; i < nodes; ++i) {
    state.snapshot.nodes.push_back(
        sched::Node::Make(static_cast<int>(i), "n" + std::to_string(i),
                          sched::NodeTopology::Uniform(1, static_cast<int>(cores), 1)));
  }
  std::set<SessionId> arrived;  // refused ones too: an id names one session
  std::ostringstream out;
  out << "allocation " << nodes << " nodes x " << cores << " slots, allocator " << allocator_name
      << ", overbook " << mode << "\n";
  for (size_t i = 0; i < events->size(); ++i) {
    ObjectReader event((*events)[i], "events[" + std::to_string(i) + "]");
    if (auto ok = event.CheckObject(); !ok) return Fail(ok.error());
    const auto now = static_cast<double>(i);  // one second per event
    if (event.Has("end")) {
      if (auto ok = event.OnlyKeys({"end"}); !ok) return Fail(ok.error());
      PSCHED_TRY(id, event.Int("end", 1, 1 << 30, std::nullopt));
      const sched::Session* found = state.snapshot.Find(id);
      if (!found) {
        return Fail(ErrorCode::kInvalidArgument,
                    event.Path("end") + ": no session " + std::to_string(id) + " is known");
      }
      out << "end " << id << "\n";
      if (found->state == sched::SessionState::kQueued) {
        Drop(state, id);  // as pschedd for a session killed while queued: no end plan
        PrintPlan(out, {}, state.snapshot);
        continue;
      }
      Outcome ended = Step(state, End{id, /*ran=*/true}, now, deciders);
      CarryOut(state, deciders, ended, now);
      PrintPlan(out, ended.plan, state.snapshot);
      continue;
    }
    if (event.Has("connect")) {
      // A running session connects to another (PMIx connect, name-service lookup).
      if (auto ok = event.OnlyKeys({"connect", "to"}); !ok) return Fail(ok.error());
      PSCHED_TRY(from, event.Int("connect", 1, 1 << 30, std::nullopt));
      PSCHED_TRY(to, event.Int("to", 1, 1 << 30, std::nullopt));
      for (auto [key, id] : {std::pair{"connect", from}, std::pair{"to", to}}) {
        if (state.snapshot.Find(id) == nullptr) {
          return Fail(ErrorCode::kInvalidArgument,
                      event.Path(key) + ": no session " + std::to_string(id) + " is known");
        }
      }
      out << "connect " << from << " to " << to << "\n";
      Outcome yield = Step(state, Connect{from, to}, now, deciders);
      CarryOut(state, deciders, yield, now);
      for (const std::string& note : yield.log) out << "  note: " << note << "\n";
      PrintPlan(out, yield.plan, state.snapshot);
      continue;
    }
    if (auto ok = event.OnlyKeys({"arrive", "ranks", "threads", "policy", "spread"}); !ok)
      return Fail(ok.error());
    PSCHED_TRY(id, event.Int("arrive", 1, 1 << 30, std::nullopt));
    if (!arrived.insert(id).second) {
      return Fail(ErrorCode::kInvalidArgument,
                  event.Path("arrive") + ": session " + std::to_string(id) + " arrived before");
    }
    PSCHED_TRY(ranks, event.Int("ranks", 1, 1 << 20, std::nullopt));
    PSCHED_TRY(threads, event.Int("threads", 1, 4096, 1));
    PSCHED_TRY(spread, event.Bool("spread", false));
    PSCHED_TRY(name, event.String("policy", "wait"));
    // The leader refuses an unknown policy too, but the script's error names the field.
    if (auto policy = policies::MakePolicy(name, options); !policy)
      return Fail(policy.error().Wrap(event.Path("policy")));

    Arrival arrival;
    arrival.request.ranks = static_cast<int>(ranks);
    arrival.request.threads_per_rank = static_cast<int>(threads);
    arrival.request.allocator = allocator_name;
    arrival.policy = config::ResolvedPolicy{name, spread, options};
    out << "arrive " << id << " (" << ranks << " ranks"
        << (threads > 1 ? " x " + std::to_string(threads) : "") << (spread ? ", spread" : "")
        << ", policy " << name << ")\n";
    state.next_session = id;  // the script names the id the leader gives
    Outcome decided = Step(state, arrival, now, deciders);
    if (decided.refused) {
      // The leader tells the launcher why; its plan held the policy's reject.
      sched::Plan refused;
      refused.actions.push_back(sched::RejectAction{decided.session, *decided.refused});
      PrintPlan(out, refused, state.snapshot);
      continue;
    }
    CarryOut(state, deciders, decided, now, decided.session);
    PrintPlan(out, decided.plan, state.snapshot);
  }
  return out.str();
}

#undef PSCHED_TRY

}  // namespace

Result<std::string> ReplayScript(std::string_view text, std::string_view source) {
  auto replayed = Replay(text);
  if (!replayed) return Fail(replayed.error().Wrap(std::string(source)));
  return replayed;
}

}  // namespace psched::sched::leader
