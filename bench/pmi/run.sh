#!/usr/bin/env bash
# run.sh [options] [BUILD_DIR [ROUNDS]]
#
# PMI (MPICH) benchmarks of psched (issue 25, item 7), figures on stdout, each against
# what it is compared with, side by side in one run:
#  1. 64 emulated daemons (one rank each, tree fan-out 8) in ONE allocation: the PMI-1
#     barrier (pmi1_barrier_bench) and the PMIx empty fence (pmix_fence_bench) over the
#     same daemons, alternated 3 times; median of ROUNDS each, then the median of the 3
#     runs' medians; ratio barrier / fence (target: at most 1.5).
#  2. a 2-rank MPICH hello (init, allreduce, finalize) on one node: psched-exec (daemons
#     warm) against mpiexec.hydra -n 2, interleaved (the order turns by run); medians
#     and the ratio psched / hydra (target: at most 0.5). Wall time is the launcher's
#     whole run, read from bash's clock (no process forked around it). Beside it, in the
#     same runs, each launcher with 2 ranks of `true`: what the launcher itself takes,
#     and so what of the hello is the ranks' own MPICH start.
# The load average is printed with the figures: load on the machine shows in them.
#
# Options:
#   -r, --rounds N      barrier and fence rounds per run (default 50; also the second
#                       positional argument)
#   -n, --runs N        interleaved hello runs of each launcher (default 10), after one
#                       untimed run of each
#   --check             exit 1 when a target is missed
#   -h, --help          this text
# BUILD_DIR defaults to <repo>/build (bin/psched-alloc, psched-exec, pmi1_barrier_bench,
# pmix_fence_bench, mpich_hello_allreduce); mpiexec.hydra comes from Debian's mpich.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=bench/launch/timing.sh
source "$repo/bench/launch/timing.sh"

rounds=50
runs=10
check=0
inside=""
positional=()
while (($#)); do
  case "$1" in
    -h | --help) usage; exit 0 ;;
    -r | --rounds) rounds=${2:?"$1 needs a value"}; shift 2 ;;
    -n | --runs) runs=${2:?"$1 needs a value"}; shift 2 ;;
    --check) check=1; shift ;;
    --inside) inside=${2:?"$1 needs a value"}; shift 2 ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) positional+=("$1"); shift ;;
  esac
done
((${#positional[@]} <= 2)) || die "more than BUILD_DIR and ROUNDS given: '${positional[*]}'"
build=${positional[0]:-$repo/build}
((${#positional[@]} < 2)) || rounds=${positional[1]}
for v in rounds runs; do
  [[ "${!v}" =~ ^[1-9][0-9]*$ ]] || die "--$v must be a positive integer, got '${!v}'"
done
[[ -d "$build" ]] || die "build directory '$build' does not exist (build psched first, or pass BUILD_DIR)"
bin=$(cd "$build/bin" 2>/dev/null && pwd) || die "'$build' has no bin/ (not a build directory)"
for tool in psched-alloc psched-exec pmi1_barrier_bench pmix_fence_bench mpich_hello_allreduce; do
  [[ -x "$bin/$tool" ]] || die "$bin/$tool is missing (build it first)"
done
command -v mpiexec.hydra >/dev/null || die "mpiexec.hydra not found: run scripts/install-deps.sh"
PATH=$bin:$PATH
export PATH
hello=$bin/mpich_hello_allreduce
load() { cut -d' ' -f1-3 /proc/loadavg; }

# ---- inside an allocation: one part's runs ------------------------------------------------
case "$inside" in
  barrier)
    for _ in 1 2 3; do
      psched-exec -n 64 --ppn 1 --mpi pmi1 pmi1_barrier_bench "$rounds"
      psched-exec -n 64 --ppn 1 --mpi pmix pmix_fence_bench "$rounds" 0
    done
    exit 0
    ;;
  hello)
    psched-exec -n 2 "$hello" >/dev/null  # the first calls warm the daemons: not timed
    mpiexec.hydra -n 2 "$hello" >/dev/null
    us=0
    for ((i = 0; i < runs; i++)); do
      order=(psched hydra psched-true hydra-true)
      ((i % 2)) && order=(hydra-true psched-true hydra psched)
      for tool in "${order[@]}"; do
        case $tool in
          psched) cmd=(psched-exec -n 2 "$hello") ;;
          hydra) cmd=(mpiexec.hydra -n 2 "$hello") ;;
          psched-true) cmd=(psched-exec -n 2 true) ;;
          hydra-true) cmd=(mpiexec.hydra -n 2 true) ;;
        esac
        timing_run_us us "${cmd[@]}" || die "'${cmd[*]}' failed"
        echo "$tool $us"
      done
    done
    exit 0
    ;;
  "") ;;
  *) die "--inside takes barrier or hello, got '$inside'" ;;
esac

# ---- outside: one allocation per part ------------------------------------------------------
cpus=$(nproc)
out=$(mktemp /tmp/psched-pmi-bench.XXXXXX)
trap 'rm -f "$out"' EXIT
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
fold() {
  (($1 > cpus)) || return 0
  echo "note: $1 emulated PUs fold onto $cpus real CPUs: these figures measure the wire" \
    "protocols and the daemon tree under contention, nothing about placement"
}

echo "== 64 emulated daemons, 1 rank each, fan-out 8, $rounds rounds (load $(load))"
fold 64
psched-alloc -N 64 --fanout 8 --topology "pack:1 core:1 pu:1" -- \
  "$0" --inside barrier -r "$rounds" "$build" 2> >(grep -v "fold onto" >&2) >"$out"
grep -E '^(PMI-1 barrier|empty fence)' "$out"
barrier=$(sed -n 's/^PMI-1 barrier, nothing put: .* median \([0-9.]*\) ms.*/\1/p' "$out" | median)
fence=$(sed -n 's/^empty fence: .* median \([0-9.]*\) ms.*/\1/p' "$out" | median)
[[ -n "$barrier" && -n "$fence" ]] || die "the barrier or fence runs printed no figures"
echo "PMI-1 barrier $barrier ms vs PMIx empty fence $fence ms (median of the 3 runs' medians):" \
  "ratio $(awk -v b="$barrier" -v f="$fence" 'BEGIN {printf "%.2f", b / f}') (target <= 1.5)"
timing_target "$barrier" "$(awk -v f="$fence" 'BEGIN {print 1.5 * f}')" \
  "target: the PMI-1 barrier at most 1.5x the PMIx empty fence"

echo "== 2-rank MPICH hello on one node, 2 emulated PUs (ms, median of $runs interleaved runs; load $(load))"
fold 2
psched-alloc -N 1 --topology "pack:1 core:2 pu:1" -- \
  "$0" --inside hello -n "$runs" "$build" 2> >(grep -v "fold onto" >&2) >"$out"
# shellcheck disable=SC2046
read -r p p_min _ <<<"$(timing_stats $(sed -n 's/^psched //p' "$out"))"
# shellcheck disable=SC2046
read -r h h_min _ <<<"$(timing_stats $(sed -n 's/^hydra //p' "$out"))"
((p > 0 && h > 0)) || die "the hello runs printed no times"
echo "psched-exec: median $(timing_ms "$p") ms (min $(timing_ms "$p_min")); mpiexec.hydra:" \
  "median $(timing_ms "$h") ms (min $(timing_ms "$h_min")); ratio" \
  "$(awk -v p="$p" -v h="$h" 'BEGIN {printf "%.2f", p / h}') (target <= 0.5)"
timing_target "$p" "$(awk -v h="$h" 'BEGIN {printf "%.0f", 0.5 * h}')" \
  "target: psched-exec's hello at most 0.5x mpiexec.hydra's"
# What each launcher itself takes (two ranks of true, same runs): the rest of a hello is
# the ranks' own MPICH start (UCX's transports, the shared-memory segments), in which
# psched's ranks skip hwloc's discovery (the daemon hands them its topology).
# shellcheck disable=SC2046
read -r pt _ <<<"$(timing_stats $(sed -n 's/^psched-true //p' "$out"))"
# shellcheck disable=SC2046
read -r ht _ <<<"$(timing_stats $(sed -n 's/^hydra-true //p' "$out"))"
echo "the launchers alone, 2 ranks of true: psched-exec $(timing_ms "$pt") ms, mpiexec.hydra" \
  "$(timing_ms "$ht") ms; the ranks' own start in the hello: psched's" \
  "$(timing_ms $((p - pt))) ms, hydra's $(timing_ms $((h - ht))) ms"
uptime
if ((check && TIMING_MISSED)); then exit 1; fi
exit 0
