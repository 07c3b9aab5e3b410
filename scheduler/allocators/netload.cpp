#include "scheduler/allocators/netload.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <unordered_map>

#include "scheduler/allocators/rank_layout.hpp"

namespace psched::sched::netload {

void Graph::SetNetworkLoad(int u, int v, double load) {
  auto put = [&](int from, int to) {
    auto& list = adjacency_[from];
    auto it = std::lower_bound(list.begin(), list.end(), std::make_pair(to, -1e300));
    if (it != list.end() && it->first == to) {
      it->second = load;
    } else {
      list.insert(it, {to, load});
    }
  };
  put(u, v);
  put(v, u);
}

double Graph::NetworkLoad(int u, int v) const {
  if (u == v) return 0;
  const auto& list = adjacency_[u];
  auto it = std::lower_bound(list.begin(), list.end(), std::make_pair(v, -1e300));
  return it != list.end() && it->first == v ? it->second : default_nl_;
}

namespace {

// A_v(u) = alpha CL(u) + beta NL(v, u) differs between start nodes only through the
// measured links of v: for every other u, NL(v, u) is the graph's default. So the
// order of the unlinked vertices is the same for every start: sort it once, then
// merge it with v's few linked neighbours. Same order as sorting all of A_v by
// (cost, index), in O(degree + vertices taken) per start instead of O(n log n).
struct AdditionOrder {
  std::vector<std::pair<double, int>> unlinked;  // (cost with default NL, vertex), sorted
};

AdditionOrder MakeOrder(const Graph& graph, double alpha, double beta) {
  AdditionOrder order;
  for (int u = 0; u < graph.Size(); ++u) {
    if (graph.Processors(u) > 0) {
      order.unlinked.push_back(
          {alpha * graph.ComputeLoad(u) + beta * graph.DefaultNetworkLoad(), u});
    }
  }
  std::sort(order.unlinked.begin(), order.unlinked.end());
  return order;
}

// With -N (max_vertices) the sub-graph has exactly that many vertices, and the cheapest
// ones may not hold the demand (a low-load node with one free slot). `room_aware` then
// skips a vertex when the best vertices still to come could not make up the rest:
// vertices by processors, most first, for that check.
struct RoomCheck {
  std::vector<std::pair<int, int>> by_processors;  // (processors, vertex), most first
  // Sum of the `count` largest processor counts among vertices not in `taken`, not `skip`.
  int Best(int count, const std::vector<int>& taken, int skip) const {
    int sum = 0;
    for (const auto& [pc, u] : by_processors) {
      if (count == 0) break;
      if (u == skip || std::find(taken.begin(), taken.end(), u) != taken.end()) continue;
      sum += pc;
      --count;
    }
    return sum;
  }
};

RoomCheck MakeRoomCheck(const Graph& graph) {
  RoomCheck check;
  for (int u = 0; u < graph.Size(); ++u)
    if (graph.Processors(u) > 0) check.by_processors.push_back({graph.Processors(u), u});
  std::sort(check.by_processors.begin(), check.by_processors.end(), std::greater<>());
  return check;
}

std::optional<Candidate> Grow(const Graph& graph, const AdditionOrder& order, int start, int demand,
                              double alpha, double beta, int max_vertices, bool contiguous,
                              const RoomCheck* room_aware = nullptr) {
  std::vector<std::pair<double, int>> linked;  // by addition cost; a contiguous session needs none
  for (const auto& [u, nl] : graph.Neighbours(start)) {
    if (!contiguous && u != start && graph.Processors(u) > 0)
      linked.push_back({alpha * graph.ComputeLoad(u) + beta * nl, u});
  }
  std::sort(linked.begin(), linked.end());
  auto is_linked = [&](int u) {
    const auto& list = graph.Neighbours(start);
    auto it = std::lower_bound(list.begin(), list.end(), std::make_pair(u, -1e300));
    return it != list.end() && it->first == u;
  };

  Candidate c;
  c.start = start;
  c.vertices.push_back(start);  // A_v(v) = 0: the start node always comes first
  c.allocated = graph.Processors(start);
  auto want_more = [&] {
    if (max_vertices > 0) return static_cast<int>(c.vertices.size()) < max_vertices;
    return c.allocated < demand;
  };
  size_t li = 0, ui = 0;
  // A contiguous session grows along the vertices that follow the start, in order.
  for (int u = start + 1; contiguous && want_more() && u < graph.Size() && graph.Processors(u) > 0;
       ++u) {
    c.vertices.push_back(u);
    c.allocated += graph.Processors(u);
  }
  while (!contiguous && want_more()) {
    while (ui < order.unlinked.size() &&
           (order.unlinked[ui].second == start || is_linked(order.unlinked[ui].second)))
      ++ui;
    const bool have_l = li < linked.size(), have_u = ui < order.unlinked.size();
    if (!have_l && !have_u) break;
    int u;
    if (have_l && (!have_u || linked[li] < order.unlinked[ui])) {
      u = linked[li++].second;
    } else {
      u = order.unlinked[ui++].second;
    }
    if (room_aware != nullptr) {
      const int after = max_vertices - static_cast<int>(c.vertices.size()) - 1;
      if (c.allocated + graph.Processors(u) + room_aware->Best(after, c.vertices, u) < demand)
        continue;
    }
    c.vertices.push_back(u);
    c.allocated += graph.Processors(u);
  }
  if (c.allocated < demand) return std::nullopt;
  if (max_vertices > 0 && static_cast<int>(c.vertices.size()) != max_vertices) return std::nullopt;
  for (size_t i = 0; i < c.vertices.size(); ++i) {
    c.compute_load += graph.ComputeLoad(c.vertices[i]);
    for (size_t k = i + 1; k < c.vertices.size(); ++k)
      c.network_load += graph.NetworkLoad(c.vertices[i], c.vertices[k]);
  }
  return c;
}

}  // namespace

// Algorithm 4 as the paper has it; with -N, when the cheapest vertices do not hold the
// demand, grown again skipping those that leave too little room for the rest.
std::optional<Candidate> GrowWithRoom(const Graph& graph, const AdditionOrder& order,
                                      const RoomCheck& room, int start, int demand, double alpha,
                                      double beta, int max_vertices, bool contiguous) {
  auto c = Grow(graph, order, start, demand, alpha, beta, max_vertices, contiguous);
  if (!c && max_vertices > 0 && !contiguous)
    c = Grow(graph, order, start, demand, alpha, beta, max_vertices, contiguous, &room);
  return c;
}

std::optional<Candidate> GrowCandidate(const Graph& graph, int start, int demand, double alpha,
                                       double beta, int max_vertices, bool contiguous) {
  return GrowWithRoom(graph, MakeOrder(graph, alpha, beta), MakeRoomCheck(graph), start, demand,
                      alpha, beta, max_vertices, contiguous);
}

std::optional<Candidate> ChooseSubgraph(const Graph& graph, int demand, double alpha, double beta,
                                        int max_vertices, bool contiguous) {
  const AdditionOrder order = MakeOrder(graph, alpha, beta);
  const RoomCheck room = MakeRoomCheck(graph);
  std::vector<Candidate> candidates;
  for (int v = 0; v < graph.Size(); ++v) {
    if (graph.Processors(v) <= 0) continue;
    if (auto c = GrowWithRoom(graph, order, room, v, demand, alpha, beta, max_vertices, contiguous))
      candidates.push_back(std::move(*c));
  }
  if (candidates.empty()) return std::nullopt;
  double max_c = 0, max_n = 0;
  for (const Candidate& c : candidates) {
    max_c = std::max(max_c, c.compute_load);
    max_n = std::max(max_n, c.network_load);
  }
  auto total = [&](const Candidate& c) {
    return alpha * (max_c > 0 ? c.compute_load / max_c : 0) +
           beta * (max_n > 0 ? c.network_load / max_n : 0);
  };
  size_t best = 0;
  double best_total = total(candidates[0]);
  for (size_t i = 1; i < candidates.size(); ++i) {
    double t = total(candidates[i]);
    if (t < best_total - 1e-12) {
      best = i;
      best_total = t;
    }
  }
  return std::move(candidates[best]);
}

int AvailableProcessors(int cores, double load) {
  if (cores <= 0) return 0;
  double pc = cores - std::fmod(std::max(0.0, load), static_cast<double>(cores));
  return std::clamp(static_cast<int>(std::floor(pc + 1e-9)), 0, cores);
}

std::vector<double> ComputeLoads(const std::vector<Node>& nodes, const NetloadConfig& w) {
  struct Attribute {
    double weight;
    bool capacity;  // more is better: enters as 1 - normalised
    std::function<double(const Node&)> value;
  };
  const Attribute attributes[] = {
      {w.w_cpu_load, false, [](const Node& n) { return n.metrics.cpu_load_1m; }},
      {w.w_cpu_utilisation, false, [](const Node& n) { return n.metrics.cpu_utilisation; }},
      {w.w_node_bandwidth, true, [](const Node& n) { return n.metrics.bandwidth_mbps; }},
      {w.w_used_memory, false, [](const Node& n) { return n.metrics.used_memory_mb; }},
      {w.w_logical_cores, true, [](const Node& n) { return double(n.topology.NumPus()); }},
      {w.w_clock_speed, true, [](const Node& n) { return n.metrics.clock_mhz; }},
      {w.w_total_memory, true, [](const Node& n) { return n.metrics.total_memory_mb; }},
  };
  std::vector<double> load(nodes.size(), 0.0);
  for (const Attribute& a : attributes) {
    double max = 0;
    for (const Node& n : nodes) max = std::max(max, std::max(0.0, a.value(n)));
    for (size_t i = 0; i < nodes.size(); ++i) {
      double norm = max > 0 ? std::max(0.0, a.value(nodes[i])) / max : 0;
      load[i] += a.weight * (a.capacity ? 1 - norm : norm);
    }
  }
  return load;
}

Graph BuildGraph(const Snapshot& snapshot, const std::vector<Node>& nodes,
                 const SessionRequest& request, const NetloadConfig& config) {
  Graph graph(static_cast<int>(nodes.size()));
  std::vector<double> cl = ComputeLoads(nodes, config);
  const int threads = std::max(1, request.threads_per_rank);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& node = nodes[i];
    graph.SetComputeLoad(static_cast<int>(i), cl[i]);
    int pc = std::min(AvailableProcessors(node.topology.NumPus(), node.metrics.cpu_load_1m),
                      node.FreePus()) /
             threads;
    if (request.ppn > 0) pc = std::min(pc, request.ppn);
    if (node.FreeGpus() < request.gpus_per_node) pc = 0;
    graph.SetProcessors(static_cast<int>(i), pc);
  }
  std::unordered_map<NodeId, int> index;
  for (size_t i = 0; i < nodes.size(); ++i) index[nodes[i].id] = static_cast<int>(i);
  double max_lt = 0, max_bw = 0;
  for (const LinkMetrics& l : snapshot.links) {
    max_lt = std::max(max_lt, l.latency_us);
    max_bw = std::max(max_bw, l.bandwidth_mbps);
  }
  double sum = 0;
  int measured = 0;
  for (const LinkMetrics& l : snapshot.links) {
    auto a = index.find(l.a), b = index.find(l.b);
    if (a == index.end() || b == index.end() || a->second == b->second) continue;
    double lt = max_lt > 0 ? std::max(0.0, l.latency_us) / max_lt : 0;
    double bw = max_bw > 0 ? std::max(0.0, l.bandwidth_mbps) / max_bw : 0;
    double nl = config.w_latency * lt + config.w_bandwidth * (1 - bw);
    graph.SetNetworkLoad(a->second, b->second, nl);
    sum += nl;
    ++measured;
  }
  graph.SetDefaultNetworkLoad(measured > 0 ? sum / measured : 0);
  return graph;
}

std::vector<Assignment> NetloadAllocator::Allocate(const Snapshot& snapshot,
                                                   std::span<const SessionRequest> window) const {
  std::vector<Assignment> out;
  std::vector<Node> nodes = snapshot.nodes;  // later sessions see what earlier ones took
  for (const SessionRequest& request : window) {
    Graph graph = BuildGraph(snapshot, nodes, request, config_);
    std::optional<Candidate> c = ChooseSubgraph(graph, request.ranks, config_.alpha, config_.beta,
                                                request.nodes, request.contiguous);
    if (!c) break;
    std::vector<NodeShare> shares;
    int left = request.ranks;
    for (int v : c->vertices) {
      int k = std::min(left, graph.Processors(v));
      if (request.nodes > 0) {
        // -N: every chosen node gets at least one rank.
        int after = static_cast<int>(c->vertices.size() - shares.size()) - 1;
        k = std::min(k, left - after);
      }
      shares.push_back(NodeShare{v, k});
      left -= k;
    }
    std::optional<Placement> p = LayRanks(nodes, request, shares);
    if (!p) break;
    out.push_back(Assignment{request.id, std::move(*p)});
  }
  return out;
}

}  // namespace psched::sched::netload
