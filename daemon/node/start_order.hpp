// The order a node starts its ranks of one session in.
//
// Why not rank order: the daemon starts each rank with vfork and sleeps until the child
// has exec'd; the child first pins itself, so a child pinned to the CPU the daemon runs
// on moves there while the daemon sleeps. When the child execs, the kernel wakes the
// daemon on that same CPU (its last one), queued behind the new rank, and the ranks
// after it wait with it: `perf sched timehist` showed pschedd runnable for 3.3 ms behind
// rank 0 of a 2-rank MPICH hello while the other core idled (Linux 6.18, HZ=250, a KVM
// guest), so rank 1 started 3.5 ms after rank 0 and both waited that long at their
// first PMI barrier. Starting the ranks pinned elsewhere first, and the ones whose CPUs
// include the daemon's own last, leaves the daemon its CPU until the last vfork.
#pragma once

#include <sched.h>

#include <cstddef>
#include <vector>

namespace psched::daemon {

// Indices into `cpus` (each a rank's CPU set; an empty set is an unpinned rank) in the
// order to start them: first every rank whose set does not hold `daemon_cpu`, then the
// others, each part in its given order. `daemon_cpu` < 0 (unknown) keeps the order.
std::vector<size_t> RankStartOrder(const std::vector<cpu_set_t>& cpus, int daemon_cpu);

}  // namespace psched::daemon
