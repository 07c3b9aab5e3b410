#include "pmix/session_links.hpp"

namespace psched::pmix {

void SessionLinks::Link(const std::vector<std::string>& nspaces) {
  for (const std::string& a : nspaces) {
    for (const std::string& b : nspaces)
      if (a != b) peers_[a].insert(b);
  }
}

std::vector<std::string> SessionLinks::End(const std::string& nspace) {
  auto it = peers_.find(nspace);
  if (it == peers_.end()) return {};
  std::vector<std::string> peers(it->second.begin(), it->second.end());
  peers_.erase(it);
  for (const std::string& p : peers) {
    auto other = peers_.find(p);
    if (other == peers_.end()) continue;
    other->second.erase(nspace);
    if (other->second.empty()) peers_.erase(other);
  }
  return peers;
}

std::vector<std::string> SessionLinks::PeersOf(const std::string& nspace) const {
  auto it = peers_.find(nspace);
  if (it == peers_.end()) return {};
  return {it->second.begin(), it->second.end()};
}

}  // namespace psched::pmix
