#!/bin/sh
# PMI-1 (MPICH) benchmarks of psched, figures on stdout, each against what it is compared
# with, side by side in one run. Usage: bench/pmi/run.sh BUILD_DIR [ROUNDS]
#  1. 64 emulated daemons (one rank each, tree fan-out 8) in ONE allocation: the PMI-1
#     barrier (pmi1_barrier_bench) and the PMIx empty fence (pmix_fence_bench) over the
#     same daemons, alternated 3 times; median of ROUNDS each, then the median of the 3
#     runs' medians; ratio barrier / fence
#     (issue #25: at most 1.5);
#  2. a 2-rank MPICH hello (init, allreduce, finalize) on one node, 10 interleaved runs:
#     psched-exec (daemons warm) against mpiexec.hydra -n 2; medians and the ratio
#     psched / hydra (issue #25: at most 0.5).
# Load on the machine shows in the figures: the load average is printed with them.
set -eu
bin=$(cd "${1:?usage: run.sh BUILD_DIR [ROUNDS]}/bin" && pwd)
rounds=${2:-50}
PATH=$bin:$PATH
export PATH
for tool in pmi1_barrier_bench pmix_fence_bench mpich_hello_allreduce; do
  command -v "$tool" > /dev/null || { echo "run.sh: $bin/$tool is not built" >&2; exit 2; }
done
cpus=$(nproc)
out=/tmp/psched-pmi-bench.$$
trap 'rm -f "$out"' EXIT
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
fold() {
  [ "$1" -gt "$cpus" ] || return 0
  echo "note: $1 emulated PUs fold onto $cpus real CPUs: these figures measure the wire" \
    "protocols and the daemon tree under contention, nothing about placement"
}

echo "== 64 emulated daemons, 1 rank each, fan-out 8, $rounds rounds (load $(cut -d' ' -f1-3 /proc/loadavg))"
fold 64
psched-alloc -N 64 --fanout 8 --topology "pack:1 core:1 pu:1" -- sh -c '
  for i in 1 2 3; do
    psched-exec -n 64 --ppn 1 --mpi pmi1 pmi1_barrier_bench '"$rounds"'
    psched-exec -n 64 --ppn 1 --mpi pmix pmix_fence_bench '"$rounds"' 0
  done' 2> /dev/null > "$out"
grep -E '^(PMI-1 barrier|empty fence)' "$out"
barrier=$(sed -n 's/^PMI-1 barrier, nothing put: .* median \([0-9.]*\) ms.*/\1/p' "$out" | median)
fence=$(sed -n 's/^empty fence: .* median \([0-9.]*\) ms.*/\1/p' "$out" | median)
echo "PMI-1 barrier $barrier ms vs PMIx empty fence $fence ms (median of the 3 runs' medians):" \
  "ratio $(awk -v b="$barrier" -v f="$fence" 'BEGIN {printf "%.2f", b / f}') (target <= 1.5)"

hello=$bin/mpich_hello_allreduce
echo "== 2-rank MPICH hello on one node, 2 emulated PUs (ms, median of 10 interleaved runs; load $(cut -d' ' -f1-3 /proc/loadavg))"
fold 2
psched-alloc -N 1 --topology "pack:1 core:2 pu:1" -- sh -c '
  psched-exec -n 2 '"$hello"' > /dev/null  # the first call warms the daemons: not timed
  for i in 1 2 3 4 5 6 7 8 9 10; do
    for tool in psched hydra; do
      case $tool in
        psched) cmd="psched-exec -n 2 '"$hello"'" ;;
        hydra) cmd="mpiexec.hydra -n 2 '"$hello"'" ;;
      esac
      s=$(date +%s%N); sh -c "$cmd" > /dev/null 2>&1; e=$(date +%s%N)
      echo "$tool $(( (e - s) / 1000000 ))"
    done
  done' 2> /dev/null > "$out"
p=$(grep '^psched ' "$out" | cut -d' ' -f2 | median)
h=$(grep '^hydra ' "$out" | cut -d' ' -f2 | median)
echo "psched-exec: median $p ms; mpiexec.hydra: median $h ms;" \
  "ratio $(awk -v p="$p" -v h="$h" 'BEGIN {printf "%.2f", p / h}') (target <= 0.5)"
uptime
