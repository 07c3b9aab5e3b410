#!/bin/sh
# PMIx benchmarks of psched, figures on stdout. Usage: bench/pmix/run.sh BUILD_DIR [ROUNDS]
#  1. cross-node PMIx fence over 64 emulated daemons (one rank each): empty, and
#     with 1 KB put by every rank (PMIX_COLLECT_DATA), median of ROUNDS fences;
#  2. 2-rank MPI hello on one node: psched-exec vs mpirun -n 2, interleaved runs.
# Load on the machine shows in the figures: uptime is printed with them.
set -eu
bin=$(cd "${1:?usage: run.sh BUILD_DIR [ROUNDS]}/bin" && pwd)
rounds=${2:-50}
PATH=$bin:$PATH
export PATH OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
uptime
for n in 4 16 64; do
  echo "== $n emulated nodes, 1 rank each"
  psched-alloc -N "$n" --topology "pack:1 core:1 pu:1" -- \
    psched-exec -n "$n" --ppn 1 pmix_fence_bench "$rounds" 1024
done

echo "== 2-rank MPI hello on one node (wall time of the whole launch, 10 interleaved runs)"
ms() { s=$(date +%s%N); "$@" > /dev/null 2>&1; e=$(date +%s%N); echo $(( (e - s) / 1000000 )); }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
hello=$bin/mpi_hello_allreduce
# psched-exec runs inside one long-lived emulated allocation, as users would.
psched-alloc -N 1 --topology "pack:1 core:2 pu:1" -- sh -c "
  for i in 1 2 3 4 5 6 7 8 9 10; do
    s=\$(date +%s%N); psched-exec -n 2 $hello > /dev/null; e=\$(date +%s%N)
    echo psched \$(( (e - s) / 1000000 ))
    s=\$(date +%s%N); mpirun -n 2 --oversubscribe $hello > /dev/null 2>&1; e=\$(date +%s%N)
    echo mpirun \$(( (e - s) / 1000000 ))
  done" > /tmp/psched-hello-bench.$$
for tool in psched mpirun; do
  printf '%s: median %s ms\n' "$tool" "$(grep "^$tool " /tmp/psched-hello-bench.$$ | cut -d' ' -f2 | median)"
done
rm -f /tmp/psched-hello-bench.$$
