// netload: the network-and-load-aware sub-graph allocator (Kumar & Jain).
//
// The allocation is a graph: a vertex per node with a compute load CL_v and an
// available processor count pc_v, an edge per pair with a network load NL(u,v).
//   CL_v  = sum over attributes a of w_a * val_va, attributes normalised to [0, 1]
//           over the nodes (divided by the largest value). CPU load, utilisation and
//           used memory add load; node bandwidth, logical cores, clock speed and total
//           memory are capacities, so they enter as (1 - normalised): more is less load.
//   NL    = w_lt * LT + w_bw * (1 - BW), latency and bandwidth normalised over the
//           measured links: higher bandwidth, lower load. An unmeasured pair gets the
//           mean NL of the measured ones (0 when nothing is measured).
//   pc_v  = coreCount_v - Load_v % coreCount_v (the paper's formula, % as the
//           floating-point remainder), then limited to the node's free slots.
// For every start node v, the candidate sub-graph grows from v by increasing addition
// cost A_v(u) = alpha * CL(u) + beta * NL(v, u) (A_v(v) = 0) until the processes
// allocated reach the demand; the candidate with the least total load
// T = alpha * C_norm + beta * N_norm wins (C = sum of CL over its vertices, N = sum of
// NL over the edges between its vertices, each normalised by the largest over the
// candidates). Missing metrics (all zero) leave every node alike: the graph is then
// decided by free slots and node order alone.
#pragma once

#include <optional>
#include <vector>

#include "scheduler/allocator.hpp"
#include "scheduler/config.hpp"

namespace psched::sched::netload {

// The weighted graph the algorithm works on; built from a snapshot or given directly.
class Graph {
 public:
  explicit Graph(int size, double default_network_load = 0)
      : compute_load_(size, 0.0),
        processors_(size, 0),
        adjacency_(size),
        default_nl_(default_network_load) {}

  int Size() const { return static_cast<int>(compute_load_.size()); }
  void SetComputeLoad(int v, double load) { compute_load_[v] = load; }
  void SetProcessors(int v, int count) { processors_[v] = count; }
  void SetNetworkLoad(int u, int v, double load);  // symmetric
  double ComputeLoad(int v) const { return compute_load_[v]; }
  int Processors(int v) const { return processors_[v]; }
  double NetworkLoad(int u, int v) const;
  // Measured neighbours of v with their network load.
  const std::vector<std::pair<int, double>>& Neighbours(int v) const { return adjacency_[v]; }
  double DefaultNetworkLoad() const { return default_nl_; }
  void SetDefaultNetworkLoad(double load) { default_nl_ = load; }

 private:
  std::vector<double> compute_load_;
  std::vector<int> processors_;
  std::vector<std::vector<std::pair<int, double>>> adjacency_;  // sorted by neighbour
  double default_nl_;
};

struct Candidate {
  int start = 0;
  std::vector<int> vertices;  // in the order they were added (start first)
  int allocated = 0;          // sum of pc over vertices (may exceed the demand)
  double compute_load = 0;    // C_Gv
  double network_load = 0;    // N_Gv
};

// Algorithm 4: the candidate sub-graph grown from `start` until `demand` processes
// (or `max_vertices` vertices when > 0 and the demand is met; when the cheapest vertices
// do not hold it, vertices that leave too little room for the rest are skipped). nullopt
// when the whole graph cannot hold the demand. `contiguous` (a session that wants one block of
// neighbouring nodes, as in the papers' workloads) grows it along start + 1, start + 2, ...
// instead, up to the first vertex without processors: vertices are the snapshot's nodes
// in id order, so the candidates are then the runs of neighbouring free nodes.
std::optional<Candidate> GrowCandidate(const Graph& graph, int start, int demand, double alpha,
                                       double beta, int max_vertices = 0, bool contiguous = false);

// All candidates, then the one with the least normalised total load (ties: lowest start).
std::optional<Candidate> ChooseSubgraph(const Graph& graph, int demand, double alpha, double beta,
                                        int max_vertices = 0, bool contiguous = false);

// CL_v of each node from its metrics (normalised over `nodes`).
std::vector<double> ComputeLoads(const std::vector<Node>& nodes, const NetloadConfig& config);
// pc_v = cores - load % cores.
int AvailableProcessors(int cores, double load);
// The graph of a snapshot for one session: pc in ranks of that session (free slots
// and the paper's pc, divided by threads_per_rank, capped by ppn); nodes without the
// session's GPUs get pc 0.
Graph BuildGraph(const Snapshot& snapshot, const std::vector<Node>& nodes,
                 const SessionRequest& request, const NetloadConfig& config);

class NetloadAllocator : public Allocator {
 public:
  explicit NetloadAllocator(const NetloadConfig& config) : config_(config) {}
  std::string_view name() const override { return "netload"; }
  // Places the window in order, each on its best candidate sub-graph; stops at the
  // first session that does not fit.
  std::vector<Assignment> Allocate(const Snapshot& snapshot,
                                   std::span<const SessionRequest> window) const override;

 private:
  NetloadConfig config_;
};

}  // namespace psched::sched::netload
