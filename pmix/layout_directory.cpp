#include "pmix/layout_directory.hpp"

namespace psched::pmix {

bool LayoutDirectory::Add(int64_t session, const std::string& nspace, std::string layout,
                          int owner) {
  if (by_session_.contains(session) || by_nspace_.contains(nspace)) return false;
  by_session_[session] = Entry{nspace, std::move(layout), owner, {}};
  by_nspace_[nspace] = session;
  return true;
}

LayoutDirectory::Pulled LayoutDirectory::Pull(const std::string& nspace, int node) {
  if (auto it = by_nspace_.find(nspace); it != by_nspace_.end()) {
    Entry& e = by_session_.at(it->second);
    e.subscribers.insert(node);
    return {PullOutcome::kFound, it->second, e.layout};
  }
  if (auto it = ended_.find(nspace); it != ended_.end())
    return {PullOutcome::kEnded, it->second, {}};
  return {};
}

std::set<int> LayoutDirectory::End(int64_t session) {
  auto it = by_session_.find(session);
  if (it == by_session_.end()) return {};
  std::set<int> subscribers = std::move(it->second.subscribers);
  const std::string nspace = it->second.nspace;
  by_nspace_.erase(nspace);
  by_session_.erase(it);
  if (ended_.emplace(nspace, session).second) ended_order_.push_back(nspace);
  if (ended_order_.size() > kEndedRemembered) {
    ended_.erase(ended_order_.front());
    ended_order_.pop_front();
  }
  return subscribers;
}

std::vector<int64_t> LayoutDirectory::PublishedBy(int node) const {
  std::vector<int64_t> sessions;
  for (const auto& [session, e] : by_session_)
    if (e.owner == node) sessions.push_back(session);
  return sessions;
}

void LayoutDirectory::Unsubscribe(int node) {
  for (auto& [session, e] : by_session_) e.subscribers.erase(node);
}

std::string LayoutDirectory::NspaceOf(int64_t session) const {
  auto it = by_session_.find(session);
  return it == by_session_.end() ? "" : it->second.nspace;
}

const std::set<int>* LayoutDirectory::subscribers(int64_t session) const {
  auto it = by_session_.find(session);
  return it == by_session_.end() ? nullptr : &it->second.subscribers;
}

}  // namespace psched::pmix
