#!/usr/bin/env bash
# login_host.sh [options] [BUILD_DIR]
#
# Launch latency from the login host against srun, side by side in one Slurm allocation
# (issue 21 "Speed"), a warm 1 x /bin/true each:
#
#   psched-exec -n 1 /bin/true from the login host: a shell in its own mount namespace with a
#                 private /tmp (tests/slurm/on_login_host.sh), which reaches the leader over
#                 TCP through the contact file ~/.psched/JOBID/contact
#   psched-exec -n 1 /bin/true on the first node: the leader's Unix socket
#   srun --overlap -N1 -n1 /bin/true
#
# The login-host calls run in one long-lived shell inside that namespace (a coprocess that
# times each call itself), so setting up the namespace is never timed. Rounds are
# interleaved (one call of each row per round) so that load drifting on the machine hits
# every row alike. Prints min, median and max per row, the ratios, and whether the targets
# are met: login-host median <= 5 ms and >= 6x faster than srun; Unix socket >= 10x srun.
# On the test Slurm every "node" is this host: the TCP hop is loopback, not a network.
#
# Outside an allocation it starts the test Slurm (scripts/slurm-env.sh) if it is not
# running, re-runs itself under `salloc -N NODES`, and stops Slurm again if it started it.
# Needs root (unshare -m).
#
# Options:
#   -r, --reps N        timed rounds (default 50)
#   -N, --nodes N       nodes to ask salloc for (default 4)
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
nodes=4
keep_slurm=0
check=0
build=""
while (($#)); do
  case "$1" in
    -h | --help)
      usage
      exit 0
      ;;
    -r | --reps) reps=${2:?"$1 needs a value"}; shift 2 ;;
    -N | --nodes) nodes=${2:?"$1 needs a value"}; shift 2 ;;
    --keep-slurm) keep_slurm=1; shift ;;
    --check) check=1; shift ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *)
      [[ -z "$build" ]] || die "more than one BUILD_DIR given: '$build' and '$1'"
      build=$1
      shift
      ;;
  esac
done
for v in reps nodes; do
  [[ "${!v}" =~ ^[1-9][0-9]*$ ]] || die "--$v must be a positive integer, got '${!v}'"
done
build=${build:-$repo/build}
[[ -d "$build" ]] || die "build directory '$build' does not exist (build psched first, or pass BUILD_DIR)"
build=$(cd "$build" && pwd)
psched_exec="$build/bin/psched-exec"
[[ -x "$psched_exec" ]] || die "no $psched_exec (build the psched-exec target)"
((EUID == 0)) || die "needs root: the login host is a mount namespace (unshare -m)"

# ---- outside an allocation: get one, run inside it --------------------------------------
if [[ -z "${SLURM_JOB_ID:-}" ]]; then
  command -v salloc >/dev/null || die "salloc not found: run scripts/install-deps.sh"
  slurm_env="$repo/scripts/slurm-env.sh"
  started=0
  eval "$("$slurm_env" env)"
  if ! "$slurm_env" status >/dev/null 2>&1; then
    echo "login_host: starting the test Slurm ($slurm_env start)"
    "$slurm_env" start
    started=1
  fi
  args=(-r "$reps" -N "$nodes")
  ((check)) && args+=(--check)
  rc=0
  salloc --quiet -N "$nodes" -- "$0" "${args[@]}" "$build" || rc=$?
  if ((started && !keep_slurm)); then
    "$slurm_env" stop >/dev/null
  fi
  exit "$rc"
fi

# ---- inside the allocation ---------------------------------------------------------------
work=$(mktemp -d /tmp/login_host_bench.XXXXXX)
# The login host's shell: reads "run", answers "STATUS MICROSECONDS" for one timed call.
# shellcheck disable=SC2016 # expanded by the inner shell
coproc LOGIN {
  "$repo/tests/slurm/on_login_host.sh" --keep "$repo" --keep "$build" \
    --keep "$(dirname "${SLURM_CONF:-/etc/slurm/slurm.conf}")" -- bash -c '
      source "$1"
      while read -r _; do
        rc=0
        timing_run_us us "$2" -n 1 /bin/true || rc=$?
        echo "$rc $us"
      done' login_shell "$here/timing.sh" "$psched_exec"
}
trap 'rm -rf "$work"' EXIT  # the login shell ends at EOF on its input

row_login() {  # sets the caller's `us`; the call itself happens in the login shell
  local rc
  echo run >&"${LOGIN[1]}"
  read -r rc us <&"${LOGIN[0]}" || return 1
  return "$rc"
}
row_node() { TIMING_LOG="$work/node.log" timing_run_us us "$psched_exec" -n 1 /bin/true; }
row_srun() { TIMING_LOG="$work/srun.log" timing_run_us us srun --overlap -N1 -n1 /bin/true; }

declare -A label=(
  [login]="psched-exec from the login host (TCP)"
  [node]="psched-exec on the first node (Unix)"
  [srun]="srun --overlap -N1 -n1 /bin/true"
)
rows=(login node srun)
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
echo "psched login-host launch benchmark: job $SLURM_JOB_ID on ${SLURM_JOB_NODELIST:-?}" \
  "($(hostname -s), $(nproc) CPUs), build $build"
echo "load average at start: $(loadavg) (figures taken under load are not comparable)"

# The first login-host call starts the daemons (from the login host, as a user's would);
# one more call of each row warms them up.
for row in login login node srun; do
  us=0
  "row_$row" || die "${label[$row]} failed (status $?); see $work/$row.log"
done

declare -A samples=() median=()
for ((i = 0; i < reps; i++)); do
  for row in "${rows[@]}"; do
    us=0
    "row_$row" || die "${label[$row]} failed in round $i"
    samples[$row]+="$us "
  done
done

echo
echo "== 1 rank of /bin/true, $reps interleaved rounds, $nodes daemons =="
timing_table_header
for row in "${rows[@]}"; do
  # shellcheck disable=SC2086
  timing_table_row "${label[$row]}" ${samples[$row]}
  median[$row]=$TIMING_MEDIAN
done

login_ratio=$(timing_ratio "${median[srun]}" "${median[login]}")
node_ratio=$(timing_ratio "${median[srun]}" "${median[node]}")
echo "  ratios (median of srun / median of psched-exec):"
printf '    %-38s %sx\n' "${label[login]}" "$login_ratio" "${label[node]}" "$node_ratio"
timing_target "${median[login]}" 5000 \
  "    target login-host median <= 5 ms ($(timing_ms "${median[login]}") ms)"
timing_target 6 "$login_ratio" "    target login host >= 6x faster than srun"
timing_target 10 "$node_ratio" "    target Unix socket >= 10x faster than srun"
echo
echo "== summary =="
echo "  login host (TCP) $(timing_ms "${median[login]}") ms, first node (Unix)" \
  "$(timing_ms "${median[node]}") ms, srun $(timing_ms "${median[srun]}") ms:" \
  "srun/login ${login_ratio}x, srun/Unix ${node_ratio}x"
echo "  load average at end: $(loadavg)"
if ((check && TIMING_MISSED)); then
  exit 1
fi
exit 0
