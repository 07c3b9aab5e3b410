#!/usr/bin/env bash
# An Open MPI program under psched-exec inside salloc, with nothing but psched-exec:
# 2 ranks on one node (shared memory: both ranks see node_size 2) and 2 ranks on two
# Slurm nodes (node_size 1 each). mpi_hello_allreduce comes from tests/mpi.
source "$(dirname "$0")/lib.sh"
hello="$bin/mpi_hello_allreduce"

if [[ "$inside" == --inside ]]; then
  out=$(timeout 120 "$psched_exec" -n 2 "$hello" 2>&1) || fail "one node: exit $?: $out"
  [[ $(grep -c ' of 2: allreduce 1 node_size 2 ok$' <<<"$out") == 2 ]] || fail "one node said: $out"
  out=$(timeout 120 "$psched_exec" -N 2 --ppn 1 -n 2 "$hello" 1 2>&1) || fail "two nodes: exit $?: $out"
  [[ $(grep -c ' of 2: allreduce 1 node_size 1 ok$' <<<"$out") == 2 ]] || fail "two nodes said: $out"
  note "ok: MPI hello + allreduce on one node and across two Slurm nodes"
  exit 0
fi

require_slurm
require_binary "$psched_exec"
require_binary "$hello"
run_in_salloc 4 || fail "the checks inside salloc -N4 failed (see above)"
