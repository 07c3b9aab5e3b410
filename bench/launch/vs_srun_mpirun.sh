#!/usr/bin/env bash
# vs_srun_mpirun.sh [options] [BUILD_DIR]
#
# Launch latency of psched-exec against what users run today, side by side in one Slurm
# allocation (issue 2 "Speed", issue 3 "Speed"):
#
#   /bin/true, 1 rank:  psched-exec -n 1 (warm daemons)  vs  srun --overlap -N1 -n1
#                       vs  mpirun -n 1 (as inside salloc: Slurm RAS, orted through srun)
#                       vs  mpirun -n 1 --mca plm isolated --mca ras ^slurm (local, fastest)
#                       and, to read psched-exec's figure: psched-exec's start-up alone
#                       (PSCHED_ALLOCATION at a socket that does not exist: start-up, option
#                       parsing, the failed connect; not --help, which throws an exception
#                       and unwinds) and a bare fork+exec of /bin/true
#   MPI hello, 2 ranks: psched-exec -n 2  vs  mpirun -n 2 (both ways)  vs  srun --mpi=pmix -n 2
#
# Repetitions are interleaved (one of each row per round) so that load drifting on the
# machine hits every row alike. Prints min, median and max per row, the ratios, and
# whether the targets are met: psched-exec median <= 10 ms and >= 10x faster than srun and
# than each mpirun for /bin/true; psched-exec <= 0.8x the fastest other for the MPI hello.
#
# Outside an allocation it starts the test Slurm (scripts/slurm-env.sh) if it is not
# running, re-runs itself under `salloc -N NODES`, and stops Slurm again if it started it.
# A row whose binary is missing or whose command fails is skipped with the reason.
#
# Options:
#   -r, --reps N        timed repetitions of each /bin/true row (default 50)
#   -m, --mpi-reps N    timed repetitions of each MPI hello row (default 20)
#   -N, --nodes N       nodes to ask salloc for (default 1: Slurm's mpi/pmix is single-node)
#   --mpi-hello PATH    the MPI hello program (default BUILD_DIR/bin/mpi_hello, else
#                       BUILD_DIR/bin/mpi_hello_allreduce from tests/mpi)
#   --no-mpi            skip the MPI hello rows (the /bin/true target only)
#   --keep-slurm        leave the test Slurm running if this script started it
#   --check             exit 1 when a target is missed (default: report only)
#   -h, --help          this text
# BUILD_DIR defaults to <repo>/build; psched-exec is BUILD_DIR/bin/psched-exec.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=bench/launch/timing.sh
source "$here/timing.sh"


reps=50
mpi_reps=20
nodes=1
mpi_hello=""
keep_slurm=0
check=0
no_mpi=0
build=""
while (($#)); do
  case "$1" in
    -h | --help)
      usage
      exit 0
      ;;
    -r | --reps) reps=${2:?"$1 needs a value"}; shift 2 ;;
    -m | --mpi-reps) mpi_reps=${2:?"$1 needs a value"}; shift 2 ;;
    -N | --nodes) nodes=${2:?"$1 needs a value"}; shift 2 ;;
    --mpi-hello) mpi_hello=${2:?"$1 needs a value"}; shift 2 ;;
    --keep-slurm) keep_slurm=1; shift ;;
    --no-mpi) no_mpi=1; shift ;;
    --check) check=1; shift ;;
    --) shift; break ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *)
      [[ -z "$build" ]] || die "more than one BUILD_DIR given: '$build' and '$1'"
      build=$1
      shift
      ;;
  esac
done
if (($# == 1)) && [[ -z "$build" ]]; then
  build=$1
elif (($#)); then
  die "unexpected arguments: $*"
fi
for v in reps mpi_reps nodes; do
  [[ "${!v}" =~ ^[1-9][0-9]*$ ]] || die "--${v/_/-} must be a positive integer, got '${!v}'"
done
build=${build:-$repo/build}
[[ -d "$build" ]] || die "build directory '$build' does not exist (build psched first, or pass BUILD_DIR)"
build=$(cd "$build" && pwd)
if [[ -z "$mpi_hello" ]]; then
  # tests/mpi builds hello + allreduce as mpi_hello_allreduce.
  mpi_hello=$build/bin/mpi_hello
  [[ -x "$mpi_hello" ]] || mpi_hello=$build/bin/mpi_hello_allreduce
fi

# ---- outside an allocation: get one, run inside it --------------------------------------
if [[ -z "${SLURM_JOB_ID:-}" ]]; then
  command -v salloc >/dev/null || die "salloc not found: run scripts/install-deps.sh"
  slurm_env="$repo/scripts/slurm-env.sh"
  started=0
  eval "$("$slurm_env" env)"
  if ! "$slurm_env" status >/dev/null 2>&1; then
    echo "vs_srun_mpirun: starting the test Slurm ($slurm_env start)"
    "$slurm_env" start
    started=1
  fi
  args=(-r "$reps" -m "$mpi_reps" -N "$nodes" --mpi-hello "$mpi_hello")
  ((check)) && args+=(--check)
  ((no_mpi)) && args+=(--no-mpi)
  rc=0
  salloc --quiet -N "$nodes" -- "$0" "${args[@]}" "$build" || rc=$?
  if ((started && !keep_slurm)); then
    "$slurm_env" stop >/dev/null
  fi
  exit "$rc"
fi

# ---- inside the allocation ---------------------------------------------------------------
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
psched_exec="$build/bin/psched-exec"
work=$(mktemp -d /tmp/vs_srun_mpirun.XXXXXX)
trap 'rm -rf "$work"' EXIT

# The rows. Functions, not strings: calling them costs no extra fork.
row_psched_true() { "$psched_exec" -n 1 /bin/true; }
# Exit status 1 is the expected "cannot connect"; anything else is a failure.
row_psched_startup() {
  local rc=0
  PSCHED_ALLOCATION="$work/no-daemon" "$psched_exec" -n 1 /bin/true || rc=$?
  ((rc == 1))
}
row_fork_exec_true() { /bin/true; }
row_srun_true() { srun --overlap -N1 -n1 /bin/true; }
row_mpirun_true() { mpirun -n 1 /bin/true; }
row_mpirun_local_true() { mpirun --mca plm isolated --mca ras ^slurm -n 1 /bin/true; }
row_psched_hello() { "$psched_exec" -n 2 "$mpi_hello"; }
row_mpirun_hello() { mpirun -n 2 "$mpi_hello"; }
row_mpirun_local_hello() { mpirun --mca plm isolated --mca ras ^slurm -n 2 "$mpi_hello"; }
row_srun_hello() { srun --overlap --mpi=pmix -N1 -n2 "$mpi_hello"; }
# For reference, not a target: psched-exec skips Open MPI's MTL/UCX probe on nodes
# without a fabric (OMPI_MCA_pml=ob1); this is mpirun told the same by hand.
row_mpirun_ob1_hello() { mpirun --mca plm isolated --mca ras ^slurm --mca pml ob1 -n 2 "$mpi_hello"; }

declare -A label=(
  [psched_true]="psched-exec -n 1 /bin/true (warm)"
  [psched_startup]="  psched-exec start-up alone (no daemon)"
  [fork_exec_true]="  /bin/true (fork+exec alone)"
  [srun_true]="srun --overlap -n1 /bin/true"
  [mpirun_true]="mpirun -n 1 /bin/true (in salloc)"
  [mpirun_local_true]="mpirun -n 1 /bin/true (local)"
  [psched_hello]="psched-exec -n 2 mpi_hello"
  [mpirun_hello]="mpirun -n 2 mpi_hello (in salloc)"
  [mpirun_local_hello]="mpirun -n 2 mpi_hello (local)"
  [srun_hello]="srun --mpi=pmix -n2 mpi_hello"
  [mpirun_ob1_hello]="mpirun --mca pml ob1 -n 2 (local)"
)
declare -A median skipped

# A row runs once, untimed, before it is measured: a failure is shown instead of timed,
# and psched-exec's first call starts the daemons, so later calls meet warm ones.
probe() {
  local row=$1 us rc=0
  TIMING_LOG="$work/$row.probe" timing_run_us us "row_$row" || rc=$?
  if ((rc != 0)); then
    skipped[$row]="failed with status $rc"
    echo "  skip ${label[$row]}: failed with status $rc; its output:" >&2
    tail -n 8 "$work/$row.probe" | sed 's/^/    | /' >&2
    return 1
  fi
  TIMING_LOG="$work/$row.probe" timing_run_us us "row_$row" || true  # second warm-up
}

# measure N ROW...: N interleaved rounds over the rows; sets median[ROW], prints the table.
measure() {
  local n=$1 row us i
  shift
  local rows=()
  for row in "$@"; do
    [[ -n "${skipped[$row]:-}" ]] && continue
    probe "$row" && rows+=("$row")
  done
  declare -A samples=()
  for ((i = 0; i < n; i++)); do
    for row in "${rows[@]}"; do
      if ! TIMING_LOG="$work/$row.log" timing_run_us us "row_$row"; then
        echo "vs_srun_mpirun: ${label[$row]} failed in round $i; output:" >&2
        tail -n 8 "$work/$row.log" >&2
        exit 1
      fi
      samples[$row]+="$us "
    done
  done
  timing_table_header
  for row in "$@"; do
    if [[ -n "${skipped[$row]:-}" ]]; then
      printf '  %-40s   skipped: %s\n' "${label[$row]}" "${skipped[$row]}"
      continue
    fi
    # shellcheck disable=SC2086
    timing_table_row "${label[$row]}" ${samples[$row]}
    median[$row]=$TIMING_MEDIAN
  done
}

if [[ ! -x "$psched_exec" ]]; then
  skipped[psched_true]="no $psched_exec (build the psched-exec target)"
  skipped[psched_startup]="no $psched_exec (build the psched-exec target)"
  skipped[psched_hello]="no $psched_exec (build the psched-exec target)"
fi
if [[ ! -x "$mpi_hello" ]]; then
  for row in psched_hello mpirun_hello mpirun_local_hello srun_hello mpirun_ob1_hello; do
    skipped[$row]="no MPI hello at $mpi_hello (build mpi_hello_allreduce or pass --mpi-hello)"
  done
fi

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
echo "psched launch benchmark: job $SLURM_JOB_ID on ${SLURM_JOB_NODELIST:-?} ($(hostname -s)," \
  "$(nproc) CPUs), build $build"
echo "load average at start: $(loadavg) (figures taken under load are not comparable)"
echo
echo "== 1 rank of /bin/true, $reps interleaved rounds =="
measure "$reps" psched_true srun_true mpirun_true mpirun_local_true psched_startup fork_exec_true
if [[ -n "${median[psched_true]:-}" ]]; then
  p=${median[psched_true]}
  echo "  ratios (median of other / median of psched-exec):"
  for row in srun_true mpirun_true mpirun_local_true; do
    [[ -n "${median[$row]:-}" ]] || continue
    r=$(timing_ratio "${median[$row]}" "$p")
    printf '    %-38s %sx\n' "${label[$row]}" "$r"
    timing_target 10 "$r" "      target psched-exec >= 10x faster than ${label[$row]%% /bin/true*}"
  done
  timing_target "$p" 10000 "    target psched-exec median <= 10 ms ($(timing_ms "$p") ms)"
  summary="psched-exec -n 1 /bin/true median $(timing_ms "$p") ms"
  for row in srun_true mpirun_true; do
    [[ -n "${median[$row]:-}" ]] &&
      summary+="; ${label[$row]%% *} $(timing_ms "${median[$row]}") ms = $(timing_ratio "${median[$row]}" "$p")x"
  done
fi

if ((no_mpi)); then
  for row in psched_hello mpirun_hello mpirun_local_hello srun_hello mpirun_ob1_hello; do
    skipped[$row]="--no-mpi"
  done
fi
echo
echo "== 2-rank MPI hello on one node, $mpi_reps interleaved rounds =="
((no_mpi)) && echo "  skipped (--no-mpi)"
((no_mpi)) || measure "$mpi_reps" psched_hello mpirun_hello mpirun_local_hello srun_hello \
  mpirun_ob1_hello
if [[ -n "${median[psched_hello]:-}" ]]; then
  best="" best_row=""
  for row in mpirun_hello mpirun_local_hello srun_hello; do
    [[ -n "${median[$row]:-}" ]] || continue
    if [[ -z "$best" ]] || ((median[$row] < best)); then
      best=${median[$row]} best_row=$row
    fi
  done
  if [[ -n "$best" ]]; then
    r=$(timing_ratio "${median[psched_hello]}" "$best")
    echo "  psched-exec / fastest other (${label[$best_row]}): ${r}x"
    timing_target "$r" 0.8 "    target psched-exec <= 0.8x the fastest"
  fi
  if [[ -n "${median[mpirun_ob1_hello]:-}" ]]; then
    echo "  for reference, psched-exec / ${label[mpirun_ob1_hello]}:" \
      "$(timing_ratio "${median[psched_hello]}" "${median[mpirun_ob1_hello]}")x"
  fi
fi

echo
echo "== summary =="
echo "  ${summary:-psched-exec -n 1 /bin/true: not measured}"
echo "  load average at end: $(loadavg)"
if ((check && TIMING_MISSED)); then
  exit 1
fi
exit 0
