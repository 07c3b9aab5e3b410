#!/usr/bin/env bash
# Co-scheduling operations in the running daemons, on 4 emulated nodes x 40 PUs with
# a 160-rank simulation (blocked processes, so 160 of them fit a 2-core machine):
#   - surpass: suspend of the 160 ranks (confirmed stopped on every node) and their
#     resume, each timed by the leader from sending the orders to the last node's
#     confirmation (status "plans"); target: suspend + resume median <= 20 ms;
#   - sidestep --spread: re-pin of all 160 ranks (every thread, verified) off the
#     32 slots of the analysis, and the restoration; target <= 50 ms each.
# Each analysis is one rank of /bin/true (surpass) or 32 of them (sidestep), so a
# round is: arrival plan, spawn, end, end plan.
#
# Usage: bench/policies/daemon_ops.sh [BUILD_DIR]   (default <repo>/build; REPS=21)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=${1:-${BUILD_DIR:-$repo/build}}
build=$(cd "$build" && pwd)
REPS=${REPS:-21}  # at most 32: the leader keeps 64 plans

for b in psched-alloc psched-exec psched-ctl pschedd cosched_threads; do
  [[ -x $build/bin/$b ]] || { echo "daemon_ops.sh: $build/bin/$b not built" >&2; exit 2; }
done

if [[ ${PSCHED_OPS_INSIDE:-} != 1 ]]; then
  export PSCHED_OPS_INSIDE=1 REPS
  exec "$build/bin/psched-alloc" -N 4 --topology "pack:2 core:20 pu:1" -- "$0" "$build"
fi

bin=$build/bin
"$bin/psched-exec" -n 160 "$bin/cosched_threads" 1 &
sim=$!
for ((i = 0; i < 600; i++)); do
  [[ $("$bin/psched-ctl" status --json | jq '[.sessions[] | select(.state=="running")] | length') == 1 ]] &&
    [[ $(pgrep -c -x cosched_threads || true) -ge 160 ]] && break
  sleep 0.05
done

# The leader keeps the last 64 plans: read them after each phase.
for ((i = 0; i < REPS; i++)); do "$bin/psched-exec" -q --policy surpass -n 1 /bin/true; done
for ((i = 0; i < 200; i++)); do
  surpass=$("$bin/psched-ctl" status --json | jq -c '[.plans[] | select(.kind == "suspend" or .kind == "resume")]')
  [[ $(jq '[.[] | select(.kind == "resume")] | length' <<< "$surpass") -ge $REPS ]] && break
  sleep 0.01
done
for ((i = 0; i < REPS; i++)); do "$bin/psched-exec" -q --policy sidestep --spread -n 32 /bin/true; done
# psched-exec returns at its session's end; the end plan (restore) follows it.
for ((i = 0; i < 200; i++)); do
  sidestep=$("$bin/psched-ctl" status --json | jq -c '[.plans[] | select(.kind == "repin" or .kind == "restore")]')
  [[ $(jq '[.[] | select(.kind == "restore")] | length' <<< "$sidestep") -ge $REPS ]] && break
  sleep 0.01
done

jq -n -r --argjson a "$surpass" --argjson b "$sidestep" '{plans: ($a + $b)} |
  def median: sort | if length == 0 then null
    else (if length % 2 == 1 then .[length/2|floor] else (.[length/2-1] + .[length/2]) / 2 end)
      * 100 | round / 100 end;
  def fig($k): [.plans[] | select(.kind == $k and .ok) | .ms * 100 | round / 100];
  (fig("suspend")) as $s | (fig("resume")) as $r | (fig("repin")) as $p | (fig("restore")) as $o |
  ([range(0; [$s, $r] | map(length) | min)] | map(($s[.] + $r[.]) * 100 | round / 100)) as $sr |
  "ranks per plan: \([.plans[] | .ranks] | unique | map(tostring) | join(","))",
  "suspend 160 ranks:          median \($s | median) ms  (n=\($s | length), min \($s | min), max \($s | max))",
  "resume 160 ranks:           median \($r | median) ms  (n=\($r | length))",
  "suspend + resume:           median \($sr | median) ms  (target <= 20 ms)",
  "sidestep re-pin 160 ranks:  median \($p | median) ms  (n=\($p | length), target <= 50 ms)",
  "restore pinning 160 ranks:  median \($o | median) ms  (n=\($o | length), target <= 50 ms)"'
"$bin/psched-ctl" kill 1 > /dev/null
wait "$sim" || true
