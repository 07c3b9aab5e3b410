#include "scheduler/tools/decision_format.hpp"

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

namespace psched::sched::place {
namespace {

char Letter(size_t window_index) {
  static const std::string letters =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  return window_index < letters.size() ? letters[window_index] : '*';
}

const Assignment* Find(const std::vector<Assignment>& decision, SessionId id) {
  for (const Assignment& a : decision)
    if (a.session == id) return &a;
  return nullptr;
}

}  // namespace

std::string RangeList(const std::vector<NodeId>& ids) {
  std::ostringstream out;
  for (size_t i = 0; i < ids.size();) {
    size_t k = i;
    while (k + 1 < ids.size() && ids[k + 1] == ids[k] + 1) ++k;
    if (i > 0) out << ',';
    out << ids[i];
    if (k > i) out << '-' << ids[k];
    i = k + 1;
  }
  return out.str();
}

std::string FormatText(const PlaceInput& input, std::string_view allocator,
                       const std::vector<Assignment>& decision) {
  std::ostringstream out;
  const Snapshot& s = input.snapshot;
  out << "allocator " << allocator << ": " << decision.size() << " of " << input.waiting.size()
      << " waiting sessions placed on " << s.nodes.size() << " nodes\n";
  std::map<NodeId, size_t> node_index;
  for (size_t i = 0; i < s.nodes.size(); ++i) node_index[s.nodes[i].id] = i;
  std::vector<std::string> slots(s.nodes.size()), gpus(s.nodes.size());
  for (size_t i = 0; i < s.nodes.size(); ++i) {
    const Node& n = s.nodes[i];
    for (int u : n.uses) slots[i] += u > 0 ? '#' : '.';
    gpus[i] = std::string(n.gpus_used, '#') + std::string(std::max(0, n.FreeGpus()), '.');
  }
  for (size_t w = 0; w < input.waiting.size(); ++w) {
    const SessionRequest& r = input.waiting[w];
    out << Letter(w) << " session " << r.id << " (" << r.ranks << "x" << r.threads_per_rank;
    if (r.nodes > 0) out << " -N " << r.nodes;
    if (r.ppn > 0) out << " --ppn " << r.ppn;
    if (r.gpus_per_node > 0) out << " gpus/node " << r.gpus_per_node;
    if (r.contiguous) out << " contiguous";
    out << "): ";
    const Assignment* a = Find(decision, r.id);
    if (a == nullptr) {
      out << "waits\n";
      continue;
    }
    std::vector<NodeId> nodes = a->placement.Nodes();
    out << "nodes " << RangeList(nodes) << " (" << nodes.size() << ")\n";
    for (const RankSlots& rank : a->placement.ranks) {
      std::string& line = slots[node_index.at(rank.node)];
      for (int pu : rank.pus) line[pu] = Letter(w);
    }
    for (NodeId id : nodes) {
      std::string& g = gpus[node_index.at(id)];
      for (int k = 0; k < a->placement.gpus_per_node; ++k) {
        size_t free = g.find('.');
        if (free != std::string::npos) g[free] = Letter(w);
      }
    }
  }
  for (size_t i = 0; i < s.nodes.size(); ++i) {
    out << s.nodes[i].hostname << ' ' << slots[i];
    if (!gpus[i].empty()) out << " |" << gpus[i];
    out << '\n';
  }
  return out.str();
}

std::string FormatJson(const PlaceInput& input, std::string_view allocator,
                       const std::vector<Assignment>& decision) {
  nlohmann::json out;
  out["allocator"] = allocator;
  out["placed"] = nlohmann::json::array();
  out["waiting"] = nlohmann::json::array();
  for (const SessionRequest& r : input.waiting) {
    const Assignment* a = Find(decision, r.id);
    if (a == nullptr) {
      out["waiting"].push_back(r.id);
      continue;
    }
    nlohmann::json p;
    p["session"] = r.id;
    p["nodes"] = a->placement.Nodes();
    p["gpus_per_node"] = a->placement.gpus_per_node;
    p["ranks"] = nlohmann::json::array();
    for (const RankSlots& rank : a->placement.ranks)
      p["ranks"].push_back({{"rank", rank.rank}, {"node", rank.node}, {"pus", rank.pus}});
    out["placed"].push_back(std::move(p));
  }
  return out.dump(2) + "\n";
}

}  // namespace psched::sched::place
