#include "scheduler/leader/replay.hpp"

#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <variant>

#include "common/json_object_reader.hpp"
#include "policies/policy_registry.hpp"
#include "scheduler/leader/failure_report.hpp"
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
        if constexpr (std::is_same_v<T, sched::StartRanksAction>) {
          out << "start " << a.session << (a.exclusive ? " exclusive" : "")
              << (a.overbooked ? " overbooked" : "") << (a.floating ? " floating" : "") << ": "
              << FormatPlacement(a.placement);
        } else if constexpr (std::is_same_v<T, sched::SuspendAction>) {
          // A user's stop makes room for nobody.
          out << "suspend " << a.session
              << (a.by == sched::kNoSession ? "" : " by " + std::to_string(a.by));
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

// "  sessions 1 sidestepped by 2, 2 running (stopped by the user), 3 queued"
std::string FormatSessions(const State& state) {
  std::ostringstream out;
  out << "  sessions";
  const std::vector<sched::Session>& sessions = state.snapshot.sessions;
  if (sessions.empty()) out << " none";
  for (size_t i = 0; i < sessions.size(); ++i) {
    const sched::Session& s = sessions[i];
    out << (i ? ", " : " ") << s.request.id << " " << sched::SessionStateName(s.state);
    if (s.displaced_by != sched::kNoSession) out << " by " << s.displaced_by;
    if (const Session* decided = state.Find(s.request.id); decided && decided->stopped_by_user)
      out << " (stopped by the user)";
  }
  return out.str();
}

void PrintState(std::ostringstream& out, const State& state) {
  out << FormatUses(state.snapshot) << "\n" << FormatSessions(state) << "\n";
}

// `plan` as decided, each action the nodes do not carry out (`nodes`: NodePlan leaves
// out suspends and resumes of sessions the user stopped) marked so; then the state.
void PrintPlan(std::ostringstream& out, const sched::Plan& plan, const sched::Plan& nodes,
               const State& after) {
  if (plan.empty()) out << "  (no action)\n";
  size_t carried = 0;  // NodePlan keeps the plan's order and only leaves actions out
  for (const sched::Action& a : plan.actions) {
    const std::string text = FormatAction(a);
    const bool on_nodes =
        carried < nodes.actions.size() && FormatAction(nodes.actions[carried]) == text;
    carried += on_nodes ? 1 : 0;
    out << "  " << text << (on_nodes ? "" : " (not on the nodes: stopped by the user)") << "\n";
  }
  PrintState(out, after);
}

// One script's run: its allocation, the leader's state and what it printed.
class ScriptRun {
 public:
  ScriptRun(long nodes, long cores, std::string allocator, policies::PolicyOptions options,
            std::unique_ptr<prio::PriorityModule> priority)
      : options_(options),
        priority_(std::move(priority)),
        deciders_{allocators_, *priority_, std::move(allocator), false} {
    for (int i = 0; i < static_cast<int>(nodes); ++i) {
      Step(state_,
           NodeJoined{i, "n" + std::to_string(i),
                      sched::NodeTopology::Uniform(1, static_cast<int>(cores), 1)},
           0, deciders_);
    }
  }

  Result<void> CheckAllocator() {
    if (auto allocator = allocators_.Get(deciders_.default_allocator); !allocator)
      return Fail(allocator.error().Wrap("allocator"));
    return {};
  }

  // Event `i` at `i` seconds.
  Result<void> Event(const ObjectReader& event, double now) {
    if (auto ok = event.CheckObject(); !ok) return ok;
    if (event.Has("end")) return EndEvent(event, now);
    if (event.Has("connect")) return ConnectEvent(event, now);
    if (event.Has("round")) return RoundEvent(event, now);
    if (event.Has("stop")) return ControlEvent(event, "stop", now);
    if (event.Has("resume")) return ControlEvent(event, "resume", now);
    if (event.Has("lose")) return LoseEvent(event, now);
    if (event.Has("fail")) return FailEvent(event, now);
    if (event.Has("kill")) return KillEvent(event, now);
    return ArriveEvent(event, now);
  }

  std::ostringstream& out() { return out_; }

 private:
  Result<SessionId> KnownSession(const ObjectReader& event, std::string_view key) const {
    PSCHED_TRY(id, event.Int(key, 1, 1 << 30, std::nullopt));
    if (state_.snapshot.Find(id) == nullptr) {
      return Fail(ErrorCode::kInvalidArgument,
                  event.Path(key) + ": no session " + std::to_string(id) + " is known");
    }
    return id;
  }

  // As pschedd once the nodes carried a plan out (NodePlan: without the sessions the
  // user stopped): the step that learns it landed (where each started session runs;
  // the step put it into the snapshot). Prints the plan and the state after it.
  void CarryOut(const Outcome& decided, double now) {
    const sched::Plan nodes = NodePlan(state_, decided.plan);
    if (!decided.plan.empty()) Step(state_, PlanCarriedOut{std::nullopt}, now, deciders_);
    PrintPlan(out_, decided.plan, nodes, state_);
  }

  // Or the nodes failed the plan (`why`) and rolled it back: printed, then what the
  // step told each session it concerned and the arrival it refused (dropped, as pschedd
  // drops it once its launcher is told), then the queue that starts without it.
  void FailOnTheNodes(const Outcome& decided, const std::string& why, double now) {
    const sched::Plan nodes = NodePlan(state_, decided.plan);
    if (decided.plan.empty()) return PrintPlan(out_, decided.plan, nodes, state_);
    for (const sched::Action& a : nodes.actions) out_ << "  " << FormatAction(a) << "\n";
    out_ << "  failed on the nodes and rolled back: " << why << "\n";
    Outcome undone = Step(state_, PlanCarriedOut{why}, now, deciders_);
    for (const Note& note : undone.notes)
      out_ << "  told " << note.session << ": " << note.text << "\n";
    if (undone.refused) {
      out_ << "  refused " << undone.session << ": " << *undone.refused << "\n";
      Drop(state_, undone.session);
    }
    if (undone.user_control && undone.user_control->undone) {
      out_ << "  user told: session " << undone.user_control->session << " "
           << *undone.user_control->undone << "\n";
    }
    CarryOut(undone, now);
  }

  // The event's optional "fails": the nodes fail its plan with that reason.
  Result<std::optional<std::string>> Fails(const ObjectReader& event) const {
    if (!event.Has("fails")) return std::optional<std::string>{};
    PSCHED_TRY(why, event.String("fails", ""));
    return std::optional<std::string>{why};
  }

  // Every node reported the session done: its end step, as pschedd's Finish.
  void Finish(SessionId id, double now, bool ran) {
    CarryOut(Step(state_, End{id, ran}, now, deciders_), now);
  }

  Result<void> EndEvent(const ObjectReader& event, double now) {
    if (auto ok = event.OnlyKeys({"end", "fails"}); !ok) return ok;
    PSCHED_TRY(id, KnownSession(event, "end"));
    PSCHED_TRY(fails, Fails(event));
    out_ << "end " << id << "\n";
    if (state_.snapshot.Find(id)->state == sched::SessionState::kQueued) {
      Drop(state_, id);  // as pschedd for a session killed while queued: no end plan
      PrintPlan(out_, {}, {}, state_);
      return {};
    }
    if (fails) {
      FailOnTheNodes(Step(state_, End{id, true}, now, deciders_), *fails, now);
      return {};
    }
    Finish(id, now, /*ran=*/true);
    return {};
  }

  // A running session connects to another (PMIx connect, name-service lookup).
  Result<void> ConnectEvent(const ObjectReader& event, double now) {
    if (auto ok = event.OnlyKeys({"connect", "to"}); !ok) return ok;
    PSCHED_TRY(from, KnownSession(event, "connect"));
    PSCHED_TRY(to, KnownSession(event, "to"));
    out_ << "connect " << from << " to " << to << "\n";
    Outcome yield = Step(state_, Connect{from, to}, now, deciders_);
    for (const std::string& note : yield.log) out_ << "  note: " << note << "\n";
    CarryOut(yield, now);
    return {};
  }

  // The leader's periodic scheduling round (round.hpp).
  Result<void> RoundEvent(const ObjectReader& event, double now) {
    if (auto ok = event.OnlyKeys({"round"}); !ok) return ok;
    PSCHED_TRY(round, event.Bool("round", false));
    if (!round) {
      return Fail(ErrorCode::kInvalidArgument,
                  event.Path("round") + ": expected true (a scheduling round)");
    }
    out_ << "round\n";
    Outcome decided = Step(state_, RoundTick{}, now, deciders_);
    if (decided.refused) {  // pschedd logs it; the next round tries again
      out_ << "  failed: " << *decided.refused << "\n";
      PrintState(out_, state_);
      return {};
    }
    CarryOut(decided, now);
    return {};
  }

  // The user stops (Ctrl-Z, psched-ctl suspend) or resumes (fg, psched-ctl resume) a
  // session: a plan in flight like any other, but only its ranks change, not the
  // snapshot (it keeps its slots); the nodes may fail it ("fails"), and it is undone.
  Result<void> ControlEvent(const ObjectReader& event, const std::string& key, double now) {
    if (auto ok = event.OnlyKeys({key, "fails"}); !ok) return ok;
    PSCHED_TRY(id, KnownSession(event, key));
    PSCHED_TRY(fails, Fails(event));
    const bool stop = key == "stop";
    out_ << "user " << (stop ? "stops " : "resumes ") << id << "\n";
    Outcome decided = Step(state_, UserControl{id, stop}, now, deciders_);
    if (decided.refused) {  // the user is told; nothing changes
      out_ << "  refused: session " << id << " " << *decided.refused << "\n";
      PrintState(out_, state_);
      return {};
    }
    if (fails) {
      FailOnTheNodes(decided, *fails, now);
      return {};
    }
    CarryOut(decided, now);
    return {};
  }

  // What a step's failures do once pschedd carried them out (LeaderService::EndSessions):
  // a queued session killed is dropped (no end plan); a failed one is killed on the nodes
  // still running it, which report it done, and it ends once no node runs it (its launcher
  // told its failure); so does one that runs nowhere any more.
  void CarryOutFailures(const Outcome& failed, double now) {
    for (const Outcome::Dropped& d : failed.dropped)
      out_ << "  drop " << d.session << ": " << d.text << "\n";
    for (const Outcome::Kill& k : failed.kills) {
      if (const Session* s = state_.Find(k.session); s != nullptr && s->failure)
        out_ << "  fail " << k.session << ": " << s->failure->first << "\n";
      if (k.nodes.empty()) continue;
      out_ << "  kill " << k.session << " on";
      for (int n : k.nodes) out_ << " n" << n;
      out_ << "\n";
    }
    PrintState(out_, state_);
    std::vector<std::pair<SessionId, std::string>> ends;
    ends.reserve(failed.ended.size() + failed.kills.size());
    for (SessionId id : failed.ended) ends.emplace_back(id, "no node runs it");
    for (const Outcome::Kill& k : failed.kills) {
      for (int n : k.nodes) {
        for (SessionId done : Step(state_, NodeDone{k.session, n}, now, deciders_).ended)
          ends.emplace_back(done, "killed on its nodes");
      }
    }
    for (const auto& [id, why] : ends) {
      out_ << "end " << id << " (" << why << ")\n";
      if (const Session* s = state_.Find(id); s != nullptr && s->failure) {
        std::istringstream told(FailureText(state_, *s));
        for (std::string line; std::getline(told, line);) out_ << "  told: " << line << "\n";
      }
      Finish(id, now, /*ran=*/true);
    }
  }

  // The daemons of some nodes are gone: sessions with ranks there fail.
  Result<void> LoseEvent(const ObjectReader& event, double now) {
    if (auto ok = event.OnlyKeys({"lose", "cause"}); !ok) return ok;
    PSCHED_TRY(list, event.Array("lose", /*required=*/true));
    PSCHED_TRY(cause, event.String("cause", "its daemon was killed"));
    NodesLost lost{{}, cause};
    for (size_t k = 0; k < list->size(); ++k) {
      const Json& n = (*list)[k];
      const std::string at = event.Path("lose") + "[" + std::to_string(k) + "]";
      const bool known =
          n.is_number_integer() &&
          std::any_of(state_.snapshot.nodes.begin(), state_.snapshot.nodes.end(),
                      [&](const sched::Node& node) { return node.id == n.get<long>(); });
      if (!known) {
        return Fail(ErrorCode::kInvalidArgument,
                    at + ": not a node of the allocation still running: " + n.dump());
      }
      if (std::find(lost.nodes.begin(), lost.nodes.end(), n.get<int>()) != lost.nodes.end())
        return Fail(ErrorCode::kInvalidArgument, at + ": node " + n.dump() + " is listed twice");
      lost.nodes.push_back(n.get<int>());
    }
    if (lost.nodes.empty()) {
      return Fail(ErrorCode::kInvalidArgument,
                  event.Path("lose") + ": expected a non-empty list of node ids");
    }
    out_ << "lose";
    for (int n : lost.nodes) out_ << " n" << n;
    out_ << " (" << cause << ")\n";
    CarryOutFailures(Step(state_, lost, now, deciders_), now);
    return {};
  }

  // A rank of a running session exits non-zero (session.rank_exited).
  Result<void> FailEvent(const ObjectReader& event, double now) {
    if (auto ok = event.OnlyKeys({"fail", "rank", "code"}); !ok) return ok;
    PSCHED_TRY(id, KnownSession(event, "fail"));
    const sched::Session* model = state_.snapshot.Find(id);
    PSCHED_TRY(rank, event.Int("rank", 0, model->request.ranks - 1, 0));
    PSCHED_TRY(code, event.Int("code", 1, 255, 1));
    if (model->state == sched::SessionState::kQueued ||
        static_cast<size_t>(rank) >= model->placement.ranks.size()) {
      return Fail(ErrorCode::kInvalidArgument, event.Path("fail") + ": session " +
                                                   std::to_string(id) + " is queued: no rank runs");
    }
    const int node = model->placement.ranks[static_cast<size_t>(rank)].node;
    out_ << "rank " << rank << " of " << id << " exits with status " << code << "\n";
    RankExit exit{id,   static_cast<int>(rank),
                  node, static_cast<int>(code),
                  0,    "exited with status " + std::to_string(code)};
    CarryOutFailures(Step(state_, RankFailed{exit}, now, deciders_), now);
    return {};
  }

  // psched-ctl kill.
  Result<void> KillEvent(const ObjectReader& event, double now) {
    if (auto ok = event.OnlyKeys({"kill"}); !ok) return ok;
    PSCHED_TRY(id, KnownSession(event, "kill"));
    out_ << "kill " << id << "\n";
    CarryOutFailures(Step(state_, SessionKilled{id, 128 + 9, "session killed by psched-ctl kill"},
                          now, deciders_),
                     now);
    return {};
  }

  Result<void> ArriveEvent(const ObjectReader& event, double now) {
    if (auto ok = event.OnlyKeys({"arrive", "ranks", "threads", "policy", "spread", "fails"}); !ok)
      return ok;
    PSCHED_TRY(fails, Fails(event));
    PSCHED_TRY(id, event.Int("arrive", 1, 1 << 30, std::nullopt));
    if (!arrived_.insert(id).second) {
      return Fail(ErrorCode::kInvalidArgument,
                  event.Path("arrive") + ": session " + std::to_string(id) + " arrived before");
    }
    PSCHED_TRY(ranks, event.Int("ranks", 1, 1 << 20, std::nullopt));
    PSCHED_TRY(threads, event.Int("threads", 1, 4096, 1));
    PSCHED_TRY(spread, event.Bool("spread", false));
    PSCHED_TRY(name, event.String("policy", "wait"));
    // The leader refuses an unknown policy too, but the script's error names the field.
    if (auto policy = policies::MakePolicy(name, options_); !policy)
      return Fail(policy.error().Wrap(event.Path("policy")));

    Arrival arrival;
    arrival.request.ranks = static_cast<int>(ranks);
    arrival.request.threads_per_rank = static_cast<int>(threads);
    arrival.request.allocator = deciders_.default_allocator;
    arrival.policy = config::ResolvedPolicy{name, spread, options_};
    out_ << "arrive " << id << " (" << ranks << " ranks"
         << (threads > 1 ? " x " + std::to_string(threads) : "") << (spread ? ", spread" : "")
         << ", policy " << name << ")\n";
    state_.next_session = id;  // the script names the id the leader gives
    Outcome decided = Step(state_, arrival, now, deciders_);
    if (decided.refused) {
      // The leader tells the launcher why; its plan held the policy's reject.
      sched::Plan refused;
      refused.actions.push_back(sched::RejectAction{decided.session, *decided.refused});
      PrintPlan(out_, refused, refused, state_);
      return {};
    }
    if (fails) {
      FailOnTheNodes(decided, *fails, now);
      return {};
    }
    CarryOut(decided, now);
    return {};
  }

  // The solver's limit counts CPU time, as psched-sim's: a loaded machine must not
  // change a golden case's decision (the cases are small enough to be solved).
  static sched::AllocatorConfig SolverOnCpuTime() {
    sched::AllocatorConfig config;
    config.auction.cpu_time_limit = true;
    config.ipwindow.cpu_time_limit = true;
    return config;
  }

  policies::PolicyOptions options_;
  AllocatorCache allocators_{SolverOnCpuTime()};
  std::unique_ptr<prio::PriorityModule> priority_;
  Deciders deciders_;
  State state_;
  std::set<SessionId> arrived_;  // refused ones too: an id names one session
  std::ostringstream out_;
};

Result<std::string> Replay(std::string_view text) {
  auto script = ParseJsonDocument(text);
  if (!script) return Fail(script.error().Wrap("(top level)"));
  ObjectReader top(*script, "");
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
  // pschedd's default priority: first come, first served.
  auto priority = sched::prio::MakePriority("fcfs");
  if (!priority) return Fail(priority.error());
  policies::PolicyOptions options;
  options.overbook_mode =
      mode == "float" ? policies::OverbookMode::kFloat : policies::OverbookMode::kPinned;
  ScriptRun run(nodes, cores, allocator_name, options, std::move(*priority));
  if (auto ok = run.CheckAllocator(); !ok) return Fail(ok.error());
  PSCHED_TRY(events, top.Array("events", /*required=*/true));
  if (events->empty())
    return Fail(ErrorCode::kInvalidArgument, "events: expected a non-empty list of events");

  run.out() << "allocation " << nodes << " nodes x " << cores << " slots, allocator "
            << allocator_name << ", overbook " << mode << "\n";
  for (size_t i = 0; i < events->size(); ++i) {
    ObjectReader event((*events)[i], "events[" + std::to_string(i) + "]");
    if (auto ok = run.Event(event, static_cast<double>(i)); !ok) return Fail(ok.error());
  }
  return run.out().str();
}

}  // namespace

Result<std::string> ReplayScript(std::string_view text, std::string_view source) {
  auto replayed = Replay(text);
  if (!replayed) return Fail(replayed.error().Wrap(std::string(source)));
  return replayed;
}

}  // namespace psched::sched::leader
