#!/usr/bin/env bash
# MPICH programs under psched-exec inside salloc (the test Slurm of tests/slurm), with
# nothing but psched-exec: 2 ranks on one Slurm node with no option (shared memory: both
# see node_size 2), 2 ranks on two Slurm nodes with --mpi pmi1 (node_size 1 each: the
# barrier crossed the daemon tree between slurmd's nodes), and an MPI_Comm_spawn over
# PMI-1 (a bare client, as in MpichDaemon.SpawnOverPmi1StartsChildrenThroughTheLeader).
source "${2:?usage: $0 BUILD_DIR SOURCE_DIR}/tests/slurm/lib.sh"
hello="$bin/mpich_hello_allreduce"

if [[ "$inside" == --inside ]]; then
  out=$(timeout 120 "$psched_exec" -n 2 "$hello" 2>&1) || fail "one node: exit $?: $out"
  [[ $(grep -c ' of 2: allreduce 1 node_size 2 ok$' <<<"$out") == 2 ]] || fail "one node said: $out"
  out=$(timeout 120 "$psched_exec" -N 2 --ppn 1 -n 2 --mpi pmi1 "$hello" 2>&1) ||
    fail "two nodes: exit $?: $out"
  [[ $(grep -c ' of 2: allreduce 1 node_size 1 ok$' <<<"$out") == 2 ]] || fail "two nodes said: $out"
  dir=$(mktemp -d)
  out=$(timeout 120 "$psched_exec" -n 1 --mpi pmi1 "$bin/pmi_spawn" 2 "$dir" 2>&1) ||
    fail "spawn: exit $?: $out"
  rm -rf "$dir"
  grep -q '^parent rank 0: cmd=spawn_result rc=0$' <<<"$out" || fail "spawn said: $out"
  [[ $(grep -c 'of 2 (child, app 0): parent port port-of-' <<<"$out") == 2 ]] || fail "children said: $out"
  note "ok: MPICH hello + allreduce on one and two Slurm nodes, spawn over PMI-1"
  exit 0
fi

require_slurm
require_binary "$psched_exec"
require_binary "$hello"
require_binary "$bin/pmi_spawn"
run_in_salloc 2 || fail "the checks inside salloc -N2 failed (see above)"
