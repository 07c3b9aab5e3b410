#include "daemon/node/start_order.hpp"

#include <algorithm>
#include <numeric>

namespace psched::daemon {

std::vector<size_t> RankStartOrder(const std::vector<cpu_set_t>& cpus, int daemon_cpu) {
  std::vector<size_t> order(cpus.size());
  std::iota(order.begin(), order.end(), size_t{0});
  if (daemon_cpu < 0 || daemon_cpu >= CPU_SETSIZE) return order;
  std::stable_partition(order.begin(), order.end(),
                        [&](size_t i) { return !CPU_ISSET(daemon_cpu, &cpus[i]); });
  return order;
}

}  // namespace psched::daemon
