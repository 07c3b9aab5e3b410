// The leader's directory of running sessions' PMIx layouts, pulled lazily by the
// nodes that need them (connect, spawn, job control across disjoint nodes).
//
// Each session's first node publishes the layout here when its ranks are
// registered and withdraws it when the session ends. The directory remembers who
// published, so that a lost node's sessions can be ended for it (their end never
// comes from it). A node that pulls a layout becomes a subscriber: when the
// session ends, exactly the subscribers must deregister the namespace they
// registered without local ranks. No other node ever hears of the session.
//
// Pure bookkeeping (no messages, no timers): DaemonPmixHost does the sending and
// parks pulls that arrive before the owner's layout.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace psched::pmix {

class LayoutDirectory {
 public:
  // Ended namespaces remembered, so that a late pull gets "ended", not "unknown".
  static constexpr size_t kEndedRemembered = 4096;

  enum class PullOutcome { kFound, kEnded, kUnknown };
  struct Pulled {
    PullOutcome outcome = PullOutcome::kUnknown;
    int64_t session = -1;
    std::string layout;  // kFound: the owner's bytes, unchanged
  };

  // Node `owner` published `session`'s layout. A second publication of a session
  // (or of its namespace) is ignored: returns false.
  bool Add(int64_t session, const std::string& nspace, std::string layout, int owner);
  // `node` asks for `nspace`: kFound makes it a subscriber.
  Pulled Pull(const std::string& nspace, int node);
  // The session ended: forgets it and returns its subscribers (possibly empty).
  std::set<int> End(int64_t session);

  // The running sessions `node` published, ascending: when that node is lost its
  // `End` never comes, so the caller ends them.
  std::vector<int64_t> PublishedBy(int node) const;
  // A lost node will deregister nothing: it stops being a subscriber of every session,
  // so that their ends send it no `drop`.
  void Unsubscribe(int node);
  // A running session's namespace ("" when it is not running).
  std::string NspaceOf(int64_t session) const;

  size_t running() const { return by_session_.size(); }
  const std::set<int>* subscribers(int64_t session) const;

 private:
  struct Entry {
    std::string nspace;
    std::string layout;
    int owner = -1;
    std::set<int> subscribers;
  };
  std::map<int64_t, Entry> by_session_;
  std::map<std::string, int64_t> by_nspace_;
  std::map<std::string, int64_t> ended_;  // nspace -> session, the last kEndedRemembered
  std::deque<std::string> ended_order_;
};

}  // namespace psched::pmix
