#!/usr/bin/env bash
# mix.sh [options] [BUILD_DIR]
#
# A fixed mix of Open MPI programs under psched-exec and under mpirun, side by side in one
# run (issue 26, item 9): each round launches every kernel of bench/ompi/mix_kernels.c
# (p2p, coll, spawn, connect; see there), and mpi4py's own ring test (`python3 -m
# mpi4py.bench ringtest`) when python3-mpi4py is installed, once with `psched-exec -n RANKS` in a psched-alloc
# allocation, once with `mpirun -n RANKS --oversubscribe` on this host, and, for reference,
# once with mpirun told `--mca pml ob1` as psched-exec tells its ranks on fabric-free nodes
# (Open MPI then skips probing MTLs and UCX), interleaved (the order turns by round) so
# that load drifting on the machine hits all alike. Wall time is the whole launch: start,
# MPI_Init, the kernel, the end.
#
# Prints per kernel the median wall time of each launcher and psched's ratio to each, the
# median of the rounds' mix totals and its ratios, and whether psched's is at most 0.8x
# mpirun's (the plain one: what users run); and every kernel run that failed under any
# launcher (a kernel that passes under mpirun must pass under psched). When the allocation's emulated PUs exceed this machine's real
# CPUs it says so: the ranks then share CPUs and the figures say nothing about placement.
#
# Options:
#   -r, --rounds N      timed rounds (default 10), after one untimed warm-up round
#   -n, --ranks N       ranks per kernel (default 4; spawn adds 2 children)
#   -N, --nodes N       psched-alloc's emulated nodes (default 1: like mpirun, one host)
#   --topology T        each emulated node's hwloc synthetic topology (default
#                       "pack:1 core:8 pu:1": room for the ranks and the spawned children)
#   --check             exit 1 when the target is missed or a kernel failed
#   -h, --help          this text
# BUILD_DIR defaults to <repo>/build (bin/psched-alloc, bin/psched-exec, bin/ompi_mix_kernels).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=bench/launch/timing.sh
source "$repo/bench/launch/timing.sh"


rounds=10
ranks=4
nodes=1
topology="pack:1 core:8 pu:1"
check=0
inside=0
build=""
while (($#)); do
  case "$1" in
    -h | --help) usage; exit 0 ;;
    -r | --rounds) rounds=${2:?"$1 needs a value"}; shift 2 ;;
    -n | --ranks) ranks=${2:?"$1 needs a value"}; shift 2 ;;
    -N | --nodes) nodes=${2:?"$1 needs a value"}; shift 2 ;;
    --topology) topology=${2:?"$1 needs a value"}; shift 2 ;;
    --check) check=1; shift ;;
    --inside) inside=1; shift ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *)
      [[ -z "$build" ]] || die "more than one BUILD_DIR given: '$build' and '$1'"
      build=$1
      shift
      ;;
  esac
done
for v in rounds ranks nodes; do
  [[ "${!v}" =~ ^[1-9][0-9]*$ ]] || die "--$v must be a positive integer, got '${!v}'"
done
((ranks >= 2)) || die "--ranks must be 2 or more (connect splits the ranks in halves)"
build=${build:-$repo/build}
[[ -d "$build" ]] || die "build directory '$build' does not exist (build psched first, or pass BUILD_DIR)"
build=$(cd "$build" && pwd)
kernels_bin="$build/bin/ompi_mix_kernels"
for b in psched-alloc psched-exec ompi_mix_kernels; do
  [[ -x "$build/bin/$b" ]] || die "$build/bin/$b is missing (build it first)"
done
command -v mpirun >/dev/null || die "mpirun not found: run scripts/install-deps.sh"

# ---- outside the allocation: start one, run inside it ------------------------------------
if ((!inside)); then
  # Emulated PUs: the product of the synthetic topology's counts, per node.
  per_node=1
  for level in $topology; do per_node=$((per_node * ${level#*:})); done
  emulated=$((nodes * per_node))
  real=$(nproc)
  echo "mix: $ranks ranks per kernel; psched-exec in psched-alloc -N $nodes --topology \"$topology\"; mpirun -n $ranks --oversubscribe on this host; $rounds rounds"
  if ((emulated > real)); then
    echo "mix: warning: $emulated emulated PUs ($nodes node(s) x $per_node) fold onto the $real real CPUs here: ranks share CPUs, so the figures compare launch and wire-up costs, not placement"
  fi
  if ((ranks > real)); then
    echo "mix: note: $ranks ranks on $real real CPUs: both launchers oversubscribe (mpirun --oversubscribe makes its ranks yield when idle; psched's do on folded nodes)"
  fi
  args=(--inside -r "$rounds" -n "$ranks" -N "$nodes" --topology "$topology")
  ((check)) && args+=(--check)
  exec "$build/bin/psched-alloc" -N "$nodes" --topology "$topology" -- "$0" "${args[@]}" "$build" \
    2> >(grep -v "psched-alloc: warning: .* fold onto" >&2)
fi

# ---- inside the allocation ---------------------------------------------------------------
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
psched_exec="$build/bin/psched-exec"
work=$(mktemp -d /tmp/psched-ompi-mix.XXXXXX)
trap 'rm -rf "$work"' EXIT
kernels=(p2p coll spawn connect)
# mpi4py's own ring test (mpi4py.bench, the one demo Debian's python3-mpi4py ships), when
# it is installed: the mix as an mpi4py user meets it. Its rank 0 prints "time for ...".
if /usr/bin/python3 -c 'import mpi4py' 2>/dev/null; then
  kernels+=(mpi4py)
else
  echo "mix: python3-mpi4py is not installed: no mpi4py kernel"
fi

# kernel_cmd KERNEL: CMD is the kernel's command line, OK the line (a regex) saying it passed.
kernel_cmd() {
  if [[ $1 == mpi4py ]]; then
    CMD=(/usr/bin/python3 -m mpi4py.bench ringtest -l 100)
    OK="time for 100 loops = .* seconds ($ranks processes, 1 bytes)"
  else
    CMD=("$kernels_bin" "$1")
    OK="$1 ok"
  fi
}
run_psched() { kernel_cmd "$1"; "$psched_exec" -n "$ranks" "${CMD[@]}"; }
run_mpirun() { kernel_cmd "$1"; mpirun -n "$ranks" --oversubscribe "${CMD[@]}"; }
run_ob1() { kernel_cmd "$1"; mpirun -n "$ranks" --oversubscribe --mca pml ob1 "${CMD[@]}"; }
launchers=(psched mpirun ob1)

declare -A samples failures totals
# one LAUNCHER KERNEL ROUND: times one run; a failure is counted and its output kept.
one() {
  local launcher=$1 kernel=$2 round=$3 us rc=0
  TIMING_LOG="$work/$launcher.$kernel.log" timing_run_us us "run_$launcher" "$kernel" || rc=$?
  kernel_cmd "$kernel"
  if ((rc != 0)) || ! grep -qx -e "$OK" "$work/$launcher.$kernel.log"; then
    failures[$launcher.$kernel]+="round $round (status $rc) "
    cp "$work/$launcher.$kernel.log" "$work/$launcher.$kernel.failed"
  fi
  : >"$work/$launcher.$kernel.log"
  ((round >= 0)) && samples[$launcher.$kernel]+="$us "
  LAST_US=$us
}

for ((round = -1; round < rounds; round++)); do  # round -1: the untimed warm-up
  declare -A sum=([psched]=0 [mpirun]=0 [ob1]=0)
  first=$(((round + 1) % ${#launchers[@]}))
  order=("${launchers[@]:first}" "${launchers[@]:0:first}")
  for kernel in "${kernels[@]}"; do
    for launcher in "${order[@]}"; do
      one "$launcher" "$kernel" "$round"
      sum[$launcher]=$((sum[$launcher] + LAST_US))
    done
  done
  if ((round >= 0)); then
    for launcher in "${launchers[@]}"; do totals[$launcher]+="${sum[$launcher]} "; done
  fi
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "n/a" }'; }
printf '  %-32s %10s %10s %6s %13s %6s\n' "kernel ($ranks ranks)" "psched ms" "mpirun ms" \
  "ratio" "mpirun+ob1 ms" "ratio"
# row LABEL PSCHED_SAMPLES MPIRUN_SAMPLES OB1_SAMPLES (each a string of microseconds):
# prints the medians and psched's ratios; MED_P and MED_M keep the first two.
row() {
  local med_o
  # shellcheck disable=SC2086
  read -r MED_P _ _ <<<"$(timing_stats $2)"
  # shellcheck disable=SC2086
  read -r MED_M _ _ <<<"$(timing_stats $3)"
  # shellcheck disable=SC2086
  read -r med_o _ _ <<<"$(timing_stats $4)"
  printf '  %-32s %10s %10s %6s %13s %6s\n' "$1" "$(timing_ms "$MED_P")" "$(timing_ms "$MED_M")" \
    "$(ratio "$MED_P" "$MED_M")" "$(timing_ms "$med_o")" "$(ratio "$MED_P" "$med_o")"
}
for kernel in "${kernels[@]}"; do
  row "$kernel (median of $rounds)" "${samples[psched.$kernel]}" "${samples[mpirun.$kernel]}" \
    "${samples[ob1.$kernel]}"
done
row "mix total (median of $rounds)" "${totals[psched]}" "${totals[mpirun]}" "${totals[ob1]}"
target=$(awk -v a="$MED_P" -v b="$MED_M" 'BEGIN { printf "%.0f", 0.8 * b }')
timing_target "$MED_P" "$target" "target: psched's mix at most 0.8x mpirun's"

failed=0
for key in "${!failures[@]}"; do
  failed=1
  echo "  FAILED: ${key#*.} under ${key%%.*}: ${failures[$key]}; last output:"
  tail -n 6 "$work/$key.failed" | sed 's/^/    | /'
done
((failed)) || echo "  every kernel passed under every launcher in every round"
if ((check && (failed || TIMING_MISSED))); then exit 1; fi
exit 0
