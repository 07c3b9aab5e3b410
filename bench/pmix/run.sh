#!/bin/sh
# PMIx benchmarks of psched, figures on stdout. Usage: bench/pmix/run.sh BUILD_DIR [ROUNDS]
#  1. cross-node PMIx fence over 4/16/64 emulated daemons (one rank each): empty, and
#     with 1 KB put by every rank (PMIX_COLLECT_DATA), median of ROUNDS fences; then the
#     same 64 ranks under one daemon and under mpirun (one PMIx server, no tree);
#  2. 2-rank MPI hello on one node, interleaved runs: inside `salloc -N 1` when a Slurm
#     answers (psched-exec vs srun --mpi=pmix vs mpirun), else in an emulated
#     allocation (psched-exec vs mpirun).
# Load on the machine shows in the figures: the load average is printed with them.
# FANOUT=k sets the daemon tree's fan-out (default 8, pschedd's default).
set -eu
bin=$(cd "${1:?usage: run.sh BUILD_DIR [ROUNDS]}/bin" && pwd)
rounds=${2:-50}
PATH=$bin:$PATH
export PATH OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
uptime
fanout=${FANOUT:-8}
for n in 4 16 64; do
  echo "== $n emulated nodes, 1 rank each, tree fan-out $fanout (load $(cut -d' ' -f1-3 /proc/loadavg))"
  psched-alloc -N "$n" --fanout "$fanout" --topology "pack:1 core:1 pu:1" -- \
    psched-exec -n "$n" --ppn 1 pmix_fence_bench "$rounds" 1024
done

# Reference rows for the 64-daemon figure: the same 64 PMIx clients under ONE server
# (one psched daemon, and mpirun's) - what PMIx itself costs without 64 daemons on
# this machine's cores.
echo "== 64 ranks on one node, one daemon (load $(cut -d' ' -f1-3 /proc/loadavg))"
psched-alloc -N 1 --topology "pack:1 core:64 pu:1" -- psched-exec -n 64 pmix_fence_bench "$rounds" 1024
echo "== 64 ranks on one node under mpirun (load $(cut -d' ' -f1-3 /proc/loadavg))"
mpirun -n 64 --oversubscribe pmix_fence_bench "$rounds" 1024 2>&1 | grep -v '^data check'

hello=$bin/mpi_hello_allreduce
out=/tmp/psched-hello-bench.$$
loop='
  psched-exec -n 2 '"$hello"' > /dev/null  # first use starts the daemons: not timed
  for i in 1 2 3 4 5 6 7 8 9 10; do
    for tool in psched srun mpirun; do
      case $tool in
        psched) cmd="psched-exec -n 2 '"$hello"'" ;;
        srun) [ -n "${SLURM_JOB_ID:-}" ] || continue; cmd="srun --mpi=pmix -n 2 '"$hello"'" ;;
        mpirun) cmd="mpirun -n 2 --oversubscribe '"$hello"'" ;;
      esac
      s=$(date +%s%N); sh -c "$cmd" > /dev/null 2>&1; e=$(date +%s%N)
      echo "$tool $(( (e - s) / 1000000 ))"
    done
  done'
if timeout 5 sinfo > /dev/null 2>&1; then
  echo "== 2-rank MPI hello on one node inside salloc -N 1 (ms, median of 10 interleaved runs)"
  salloc -N 1 --quiet sh -c "$loop" > "$out"
else
  echo "== 2-rank MPI hello on one node, emulated allocation (ms, median of 10 interleaved runs)"
  psched-alloc -N 1 --topology "pack:1 core:2 pu:1" -- sh -c "$loop" > "$out"
fi
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for tool in psched srun mpirun; do
  grep -q "^$tool " "$out" || continue
  printf '%s: median %s ms\n' "$tool" "$(grep "^$tool " "$out" | cut -d' ' -f2 | median)"
done
rm -f "$out"
uptime
