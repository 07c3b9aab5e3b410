#include "scheduler/sim/allocation_mode.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

#include "policies/policy_registry.hpp"
#include "scheduler/leader/step.hpp"
#include "scheduler/priorities/priority_registry.hpp"

namespace psched::sim {
namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

// The share of a running session's slowest rank: 1 on slots of its own, 1/k where k
// ranks share a slot; 0 while suspended or queued.
double Rate(const sched::Snapshot& snapshot, const sched::Session& s) {
  if (s.state == sched::SessionState::kQueued || s.state == sched::SessionState::kSuspended)
    return 0;
  int most = 1;
  for (const sched::RankSlots& r : s.placement.ranks) {
    for (const sched::Node& n : snapshot.nodes) {
      if (n.id != r.node) continue;
      for (int pu : r.pus) most = std::max(most, n.uses[static_cast<size_t>(pu)]);
    }
  }
  return 1.0 / most;
}

class Replay {
 public:
  Replay(const AllocationSpec& spec, std::string policy,
         std::unique_ptr<sched::prio::PriorityModule> priority)
      : spec_(spec),
        policy_(std::move(policy)),
        priority_(std::move(priority)),
        allocators_(sched::AllocatorConfig{}) {
    for (int n = 0; n < spec.nodes; ++n) {
      Do(sched::leader::NodeJoined{n, "n" + std::to_string(n),
                                   sched::NodeTopology::Uniform(1, spec.pus_per_node, 1)},
         0);
    }
  }

  AllocationRun Run() {
    std::vector<size_t> order(spec_.sessions.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return spec_.sessions[a].submit_s < spec_.sessions[b].submit_s;
    });
    run_.policy = policy_;
    run_.sessions.resize(order.size());
    size_t next = 0;
    double now = 0;
    for (;;) {
      const double arrival = next < order.size() ? spec_.sessions[order[next]].submit_s : kNever;
      double completion = kNever;
      bool waiting = false;
      for (const sched::Session& s : state_.snapshot.sessions) {
        const double rate = Rate(state_.snapshot, s);
        if (rate > 0) completion = std::min(completion, now + remaining_[s.request.id] / rate);
        waiting = waiting || s.state == sched::SessionState::kQueued ||
                  s.state == sched::SessionState::kSuspended || s.displaced_by != sched::kNoSession;
      }
      // Rounds matter only while a session waits or is displaced.
      const double round = waiting ? (std::floor(now / spec_.round_s) + 1) * spec_.round_s : kNever;
      const double then = std::min({arrival, completion, round});
      if (then == kNever) break;  // nothing left, or nothing can move any more
      if (completion == kNever && arrival == kNever && ++idle_rounds_ > 10000) break;
      for (const sched::Session& s : state_.snapshot.sessions)
        remaining_[s.request.id] -= Rate(state_.snapshot, s) * (then - now);
      now = then;
      std::vector<sched::SessionId> done;
      for (const sched::Session& s : state_.snapshot.sessions) {
        if (Rate(state_.snapshot, s) > 0 && remaining_[s.request.id] <= 1e-9)
          done.push_back(s.request.id);
      }
      for (sched::SessionId id : done) {
        Result(id).end_s = now;
        Carry(Do(sched::leader::End{id, true}, now), now);
      }
      while (next < order.size() && spec_.sessions[order[next]].submit_s <= now)
        Arrive(order[next++], now);
      if (round <= now) Carry(Do(sched::leader::RoundTick{}, now), now);
    }
    Summarize();
    return std::move(run_);
  }

 private:
  sched::leader::Outcome Do(const sched::leader::Event& event, double now) {
    sched::leader::Deciders deciders{allocators_, *priority_, spec_.allocator, false};
    return sched::leader::Step(state_, event, now, deciders);
  }

  void Arrive(size_t index, double now) {
    const AllocationSession& in = spec_.sessions[index];
    sched::leader::Arrival a;
    a.request.owner = in.owner;
    a.request.command = "session " + std::to_string(index);
    a.request.ranks = in.ranks;
    a.request.estimate_s = in.estimate_s > 0 ? in.estimate_s : in.runtime_s;
    a.request.allocator = spec_.allocator;
    a.policy.name = policy_;
    sched::leader::Outcome out = Do(a, now);
    AllocationSessionResult& r = run_.sessions[index];
    r.submit_s = in.submit_s;
    r.id = out.session;
    if (out.refused) {
      r.refused = true;
      r.refusal = *out.refused;
      return;
    }
    index_of_[out.session] = index;
    remaining_[out.session] = in.runtime_s;
    Carry(out, now);
  }

  // Counts what the plan did to whom (the step put it into the snapshot; nothing here
  // carries plans out, so none is reported back: the next step's plan replaces it).
  void Carry(const sched::leader::Outcome& out, double now) {
    if (out.refused) return;  // a round that could not decide: the next one tries again
    for (const sched::Action& action : out.plan.actions) {
      if (const auto* spawn = std::get_if<sched::StartRanksAction>(&action)) {
        if (Result(spawn->session).start_s < 0) Result(spawn->session).start_s = now;
      } else if (const auto* suspend = std::get_if<sched::SuspendAction>(&action)) {
        ++Result(suspend->session).displaced;
      } else if (const auto* repin = std::get_if<sched::RepinAction>(&action)) {
        if (repin->by != sched::kNoSession) ++Result(repin->session).displaced;
      }
    }
  }

  AllocationSessionResult& Result(sched::SessionId id) {
    auto it = index_of_.find(id);
    return it == index_of_.end() ? scratch_ : run_.sessions[it->second];
  }

  void Summarize() {
    int started = 0;
    for (const AllocationSessionResult& r : run_.sessions) {
      run_.refused += r.refused ? 1 : 0;
      run_.displacements += r.displaced;
      run_.makespan_s = std::max(run_.makespan_s, r.end_s);
      if (r.start_s < 0) continue;
      const double wait = r.start_s - r.submit_s;
      run_.mean_wait_s += wait;
      run_.max_wait_s = std::max(run_.max_wait_s, wait);
      ++started;
    }
    if (started > 0) run_.mean_wait_s /= started;
  }

  const AllocationSpec& spec_;
  std::string policy_;
  std::unique_ptr<sched::prio::PriorityModule> priority_;
  sched::leader::AllocatorCache allocators_;
  sched::leader::State state_;
  std::map<sched::SessionId, double> remaining_;  // seconds of work at full speed
  std::map<sched::SessionId, size_t> index_of_;   // id -> place in the spec
  AllocationSessionResult scratch_;               // actions on ids the spec never had
  AllocationRun run_;
  int idle_rounds_ = 0;
};

}  // namespace

Result<std::vector<AllocationRun>> RunAllocation(const AllocationSpec& spec) {
  std::vector<AllocationRun> runs;
  for (const std::string& policy : spec.policies) {
    if (auto made = policies::MakePolicy(policy, {}); !made) return Fail(made.error());
    sched::PriorityConfig config;
    config.name = spec.priority;
    config.machine_cores = spec.nodes * spec.pus_per_node;
    auto priority = sched::prio::MakePriority(spec.priority, config);
    if (!priority) return Fail(priority.error());
    // Names are checked once, before the replay: a bad one would refuse every session.
    sched::leader::AllocatorCache check{sched::AllocatorConfig{}};
    if (auto a = check.Get(spec.allocator); !a) return Fail(a.error());
    Replay replay(spec, policy, std::move(*priority));
    runs.push_back(replay.Run());
  }
  return runs;
}

std::string AllocationReport(const std::vector<AllocationRun>& runs) {
  std::string out = "policy,sessions,refused,mean_wait_s,max_wait_s,displacements,makespan_s\n";
  char line[256];
  for (const AllocationRun& r : runs) {
    std::snprintf(line, sizeof line, "%s,%zu,%d,%.3f,%.3f,%d,%.3f\n", r.policy.c_str(),
                  r.sessions.size(), r.refused, r.mean_wait_s, r.max_wait_s, r.displacements,
                  r.makespan_s);
    out += line;
  }
  out += "\npolicy,session,submit_s,start_s,end_s,wait_s,displaced,refusal\n";
  for (const AllocationRun& r : runs) {
    for (const AllocationSessionResult& s : r.sessions) {
      std::snprintf(line, sizeof line, "%s,%lld,%.3f,%.3f,%.3f,%.3f,%d,", r.policy.c_str(),
                    static_cast<long long>(s.id), s.submit_s, s.start_s, s.end_s,
                    s.start_s >= 0 ? s.start_s - s.submit_s : -1.0, s.displaced);
      out += line + s.refusal + "\n";
    }
  }
  return out;
}

}  // namespace psched::sim
