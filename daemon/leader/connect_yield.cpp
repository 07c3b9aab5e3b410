// A surpass that yields to interaction (issue #20, item 7), the leader's side: the PMIx
// host tells which sessions connect (pmix/daemon_interact.cpp); when one of them was
// suspended by another's surpass, that one asked it for something and would wait on a
// stopped process. The decision is the pure leader's Connect step (policies::YieldToConnect
// for a connector that surpassed its victim); the leader carries its plan out like any
// other (one transaction, rolled back on failure); once carried out the step records it
// in the victim's state (yielded_to) for psched-ctl status.
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <optional>

#include "daemon/leader/leader_service.hpp"

namespace psched::daemon {
namespace {

// The session of one of this leader's namespaces, "psched.<leader pid>.<session>" (as
// Spawn and the MPI_Comm_spawn answer name them); nullopt for anything else.
std::optional<int64_t> SessionOfNspace(const std::string& nspace) {
  const std::string prefix = "psched." + std::to_string(getpid()) + ".";
  if (!nspace.starts_with(prefix)) return std::nullopt;
  int64_t id = 0;
  const char* first = nspace.data() + prefix.size();
  const char* last = nspace.data() + nspace.size();
  auto [end, ec] = std::from_chars(first, last, id);
  if (ec != std::errc() || end != last || first == last) return std::nullopt;
  return id;
}

}  // namespace

void LeaderService::SessionsInteract(const std::vector<std::string>& nspaces) {
  std::vector<int64_t> ids;
  for (const std::string& ns : nspaces)
    if (auto id = SessionOfNspace(ns)) ids.push_back(*id);
  for (int64_t victim : ids) {
    for (int64_t connector : ids)
      if (connector != victim) YieldTo(connector, victim);
  }
}

void LeaderService::YieldTo(int64_t connector, int64_t victim) {
  // One plan at a time; the step decides when it runs, on the state of then.
  if (executor_.busy())
    return deferred_.push_back([this, connector, victim] { YieldTo(connector, victim); });
  sched::leader::Outcome yield = Step(sched::leader::Connect{connector, victim});
  for (const std::string& line : yield.log) std::fprintf(stderr, "pschedd[0]: %s\n", line.c_str());
  // Carried out, the victim records its connector and its launcher is told.
  if (!yield.plan.empty()) Execute(yield.plan, 0);
}

std::string LeaderService::YieldedDetail(const sched::leader::Session& s,
                                         const sched::Session& model) const {
  if (s.yielded_to == sched::kNoSession || state_.snapshot.Find(s.yielded_to) == nullptr) return "";
  const std::string n = std::to_string(s.yielded_to);
  std::string why = ", was surpassed: " + n + " connected to it";
  if (model.state == sched::SessionState::kSidestepped && model.displaced_by == s.yielded_to)
    return why;
  // Resumed where it was (no other slot on a node): it shares the connector's slots.
  if (model.state == sched::SessionState::kRunning ||
      model.state == sched::SessionState::kOverbooked)
    return ", sharing " + n + "'s slots" + why;
  return "";
}

}  // namespace psched::daemon
