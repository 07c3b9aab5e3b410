#!/usr/bin/env bash
# Launch at scale on an emulated allocation (psched's side of the launch benchmarks):
#   - 1024 ranks of /bin/true over `psched-alloc -N 64 --topology "core:16"`
#     (target: <= 1.5 s wall on the 2-core machine), and
#   - `psched-exec -n 1 /bin/true` on the same warm daemons (target: median <= 10 ms).
# Each figure is the median of REPS runs (min and max shown too).
#
# Usage: bench/launch/scale.sh [BUILD_DIR]   (default <repo>/build; REPS=5 NODES=64 PUS=16
#        RANKS=1024 SMALL_REPS=50 override)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=${1:-${BUILD_DIR:-$repo/build}}
# shellcheck source=bench/launch/timing.sh
source "$here/timing.sh"
REPS=${REPS:-5}
SMALL_REPS=${SMALL_REPS:-50}
NODES=${NODES:-64}
PUS=${PUS:-16}
RANKS=${RANKS:-1024}

for b in psched-alloc psched-exec pschedd; do
  [[ -x $build/bin/$b ]] || { echo "scale.sh: $build/bin/$b not built" >&2; exit 2; }
done

if [[ ${1:-} != --inside && ${PSCHED_SCALE_INSIDE:-} != 1 ]]; then
  export PSCHED_SCALE_INSIDE=1 REPS SMALL_REPS NODES PUS RANKS
  t0=${EPOCHREALTIME/./}
  "$build/bin/psched-alloc" -N "$NODES" --topology "core:$PUS" -- "$0" "$build"
  t1=${EPOCHREALTIME/./}
  echo "(whole run including starting and stopping $NODES daemons: $(timing_ms $((10#$t1 - 10#$t0))) ms)"
  exit 0
fi

exec_bin="$build/bin/psched-exec"
timing_run_us warm "$exec_bin" -n 1 /bin/true  # warm-up: first use of every code path

big=()
for ((i = 0; i < REPS; i++)); do
  timing_run_us us "$exec_bin" -n "$RANKS" /bin/true || { echo "scale.sh: launch failed" >&2; exit 1; }
  big+=("$us")
done
small=()
for ((i = 0; i < SMALL_REPS; i++)); do
  timing_run_us us "$exec_bin" -n 1 /bin/true
  small+=("$us")
done
read -r bmed bmin bmax < <(timing_stats "${big[@]}")
read -r smed smin smax < <(timing_stats "${small[@]}")
verdict() { awk -v v="$1" -v t="$2" 'BEGIN { print (v <= t) ? "met" : "NOT met" }'; }
echo "psched launch at scale: $NODES emulated nodes x $PUS PUs, $(nproc) real cores, load $(cut -d' ' -f1 /proc/loadavg)"
printf '  %-40s median %8s ms  (min %s, max %s, %d runs)  target <= 1500 ms: %s\n' \
  "psched-exec -n $RANKS /bin/true" "$(timing_ms "$bmed")" "$(timing_ms "$bmin")" \
  "$(timing_ms "$bmax")" "$REPS" "$(verdict "$bmed" 1500000)"
printf '  %-40s median %8s ms  (min %s, max %s, %d runs)  target <= 10 ms: %s\n' \
  "psched-exec -n 1 /bin/true (warm)" "$(timing_ms "$smed")" "$(timing_ms "$smin")" \
  "$(timing_ms "$smax")" "$SMALL_REPS" "$(verdict "$smed" 10000)"
