#include "pmix/session_layout.hpp"

#include <algorithm>
#include <set>

namespace psched::pmix {

Result<void> ValidateSessionInfo(const PmixSessionInfo& info) {
  auto bad = [&](const std::string& what) {
    return Fail(Error(ErrorCode::kInvalidArgument, "PMIx session layout: " + what)
                    .WithSession(info.session_id));
  };
  if (info.nspace.empty()) return bad("empty namespace");
  // PMIx copies the nspace into a fixed PMIX_MAX_NSLEN (255) buffer.
  if (info.nspace.size() > 255) return bad("namespace longer than 255 characters");
  if (info.ranks.empty()) return bad("no ranks");
  if (info.hostnames.empty()) return bad("no hostnames");
  if (info.this_node < 0 || info.this_node >= static_cast<int>(info.hostnames.size())) {
    return bad("this node " + std::to_string(info.this_node) + " is not one of the " +
               std::to_string(info.hostnames.size()) + " nodes");
  }
  for (const auto& h : info.hostnames) {
    if (h.empty() || h.find_first_of(",;[] ") != std::string::npos) {
      return bad("hostname '" + h + "' is empty or contains , ; [ ] or a space");
    }
  }
  if (info.universe_size < info.ranks.size()) {
    return bad("universe size " + std::to_string(info.universe_size) + " < job size " +
               std::to_string(info.ranks.size()));
  }
  if (!info.app_sizes.empty()) {
    uint64_t total = 0;
    for (size_t a = 0; a < info.app_sizes.size(); ++a) {
      if (info.app_sizes[a] == 0) return bad("app " + std::to_string(a) + " has no ranks");
      total += info.app_sizes[a];
    }
    if (total != info.ranks.size()) {
      return bad("apps hold " + std::to_string(total) + " ranks, the job has " +
                 std::to_string(info.ranks.size()));
    }
  }
  std::vector<std::set<int>> local(info.hostnames.size());
  for (size_t r = 0; r < info.ranks.size(); ++r) {
    const auto& p = info.ranks[r];
    if (p.node < 0 || p.node >= static_cast<int>(info.hostnames.size())) {
      return bad("rank " + std::to_string(r) + " is on unknown node " + std::to_string(p.node));
    }
    if (p.local_rank < 0 || !local[p.node].insert(p.local_rank).second) {
      return bad("rank " + std::to_string(r) + " has a negative or duplicate local rank " +
                 std::to_string(p.local_rank) + " on node " + std::to_string(p.node));
    }
  }
  for (size_t n = 0; n < local.size(); ++n) {
    // Local ranks are 0..k-1 without gaps: Open MPI indexes arrays with them.
    if (!local[n].empty() && *local[n].rbegin() != static_cast<int>(local[n].size()) - 1) {
      return bad("local ranks on node " + std::to_string(n) + " are not 0.." +
                 std::to_string(local[n].size() - 1));
    }
  }
  return {};
}

std::vector<int> JobNodes(const PmixSessionInfo& info) {
  std::set<int> nodes;
  for (const auto& p : info.ranks) nodes.insert(p.node);
  return {nodes.begin(), nodes.end()};
}

std::vector<uint32_t> RanksOnNode(const PmixSessionInfo& info, int node) {
  std::vector<std::pair<int, uint32_t>> by_local;
  for (size_t r = 0; r < info.ranks.size(); ++r) {
    if (info.ranks[r].node == node) by_local.emplace_back(info.ranks[r].local_rank, r);
  }
  std::sort(by_local.begin(), by_local.end());
  std::vector<uint32_t> out;
  out.reserve(by_local.size());
  for (const auto& [local, rank] : by_local) out.push_back(rank);
  return out;
}

std::string JoinRanks(const std::vector<uint32_t>& ranks) {
  std::string out;
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(ranks[i]);
  }
  return out;
}

std::string NodeListCsv(const PmixSessionInfo& info) {
  std::string out;
  for (int n : JobNodes(info)) {
    if (!out.empty()) out += ',';
    out += info.hostnames[n];
  }
  return out;
}

std::string ProcMapList(const PmixSessionInfo& info) {
  std::string out;
  bool first = true;
  for (int n : JobNodes(info)) {
    if (!first) out += ';';
    first = false;
    auto ranks = RanksOnNode(info, n);
    std::sort(ranks.begin(), ranks.end());
    out += JoinRanks(ranks);
  }
  return out;
}

std::string NodeListForSlurm(const PmixSessionInfo& info) {
  // Open MPI 4.1 only checks that SLURM_NODELIST exists to pick its resource-manager
  // path; a plain comma list of the job's hosts is a valid Slurm hostlist.
  std::vector<std::string> seen;
  for (int n : JobNodes(info)) {
    if (std::find(seen.begin(), seen.end(), info.hostnames[n]) == seen.end()) {
      seen.push_back(info.hostnames[n]);
    }
  }
  std::string out;
  for (const auto& h : seen) out += (out.empty() ? "" : ",") + h;
  return out;
}

std::vector<AppSpan> Apps(const PmixSessionInfo& info) {
  if (info.app_sizes.empty()) return {AppSpan{0, static_cast<uint32_t>(info.ranks.size())}};
  std::vector<AppSpan> out;
  uint32_t first = 0;
  for (uint32_t size : info.app_sizes) {
    out.push_back({first, size});
    first += size;
  }
  return out;
}

std::vector<uint32_t> AppOfRank(const PmixSessionInfo& info) {
  std::vector<uint32_t> out;
  out.reserve(info.ranks.size());
  const std::vector<AppSpan> apps = Apps(info);
  for (uint32_t a = 0; a < apps.size(); ++a) out.insert(out.end(), apps[a].size, a);
  out.resize(info.ranks.size(), static_cast<uint32_t>(apps.size()) - 1);  // unvalidated input
  return out;
}

}  // namespace psched::pmix
