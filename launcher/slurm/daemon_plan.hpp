// The pure half of starting psched's daemons inside a Slurm allocation: which srun steps,
// what each task runs, and how to read what the tasks report. slurm_daemons.hpp carries
// the plan out.
//
// One pschedd per node, joined in the k-ary tree rooted at node 0. A daemon needs its
// parent's host:port before it starts, and ports are only known once parents listen, so
// the daemons start one tree level per srun step (breadth-first): level 0 is the leader,
// level 1 its children, ... . All tasks of a step share one argv, so each task runs a small
// /bin/sh wrapper that picks its node index (PSCHED_SLURM_FIRST + SLURM_NODEID) and its
// parent (word SLURM_NODEID of PSCHED_SLURM_PARENTS) before exec'ing pschedd.
// srun passes no extra fd to remote tasks, so pschedd reports "port N" and "ready" on
// the task's stdout (the wrapper hands it over as --ready-fd 3), which srun --label brings
// back as "T: port N".
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"

namespace psched::slurm {

// Nodes first..last (inclusive) of one tree level; BFS numbering makes levels contiguous.
struct TreeLevel {
  int first = 0;
  int last = 0;
  int size() const { return last - first + 1; }
};

// Levels of the k-ary tree over `nodes` nodes: node i's parent is (i-1)/fanout.
std::vector<TreeLevel> TreeLevels(int nodes, int fanout);

// The wrapper srun runs on every node: `/bin/sh -c <script> PSCHEDD ARGS...`. It reads
// PSCHED_SLURM_FIRST, PSCHED_SLURM_PARENTS, SLURM_NODEID and SLURMD_NODENAME and execs
// PSCHEDD ARGS... [--parent HOST:PORT] --node I --hostname NODENAME --ready-fd 3 with fd 3
// on srun's stdout and pschedd's stdout on its stderr.
const std::string& DaemonWrapperScript();

// NodeName -> NodeAddr from `scontrol -o show node ...` output (one node per line).
// Lines without both fields are skipped.
std::map<std::string, std::string> ParseNodeAddresses(std::string_view scontrol_output);

// What the tasks of one srun --label step said so far: task -> its lines, in order.
// "  3: port 4711" -> {3: ["port 4711"]}. Unlabelled lines (srun's own) are skipped.
std::map<int, std::vector<std::string>> ParseLabelledLines(std::string_view output);

// The port in "port N" among a task's lines, or -1 when it has not reported yet.
int ReportedPort(const std::vector<std::string>& lines);

}  // namespace psched::slurm
