#!/usr/bin/env bash
# Integration: netload chooses from live measurements.
#
# Six pschedd, each in its own network namespace, joined through a bridge in a
# hub namespace (private 10.77.0.0/24 that exists only inside these namespaces).
# Nodes 0-2 have their veth shaped to 8 Mbit/s with tbf (both directions) and
# their CPU (cpu 1) loaded by stress-ng; nodes 3-5 are unshaped on cpu 0. Once
# every pair's link has been probed, `psched-exec --allocator netload -n 4` must
# run all its ranks on nodes 3-5 (compact, by contrast, fills node 0 first), and
# `psched-ctl status --json` must show the metrics and links behind it.
#
# Usage: netload_monitor_test.sh BIN_DIR. Exit 77 (skip) only when network
# namespaces cannot be created (not root, no CAP_SYS_ADMIN).
set -u
BIN=${1:?usage: $0 BIN_DIR}
NODES=6
TAG="pmon$$"
HUB="${TAG}-hub"
WORK=$(mktemp -d /tmp/psched-netload.XXXXXX)
PIDS=()
STRESS_PID=""

cleanup() {
  for pid in "${PIDS[@]}" $STRESS_PID; do kill -9 "$pid" 2>/dev/null; done
  for pid in "${PIDS[@]}" $STRESS_PID; do wait "$pid" 2>/dev/null; done
  for i in $(seq 0 $((NODES - 1))); do ip netns del "${TAG}-n$i" 2>/dev/null; done
  ip netns del "$HUB" 2>/dev/null  # takes the bridge, the veths and their qdiscs with it
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fail() {
  echo "FAIL: $*" >&2
  for log in "$WORK"/pschedd-*.log; do
    [ -s "$log" ] && { echo "--- $log" >&2; tail -n 20 "$log" >&2; }
  done
  exit 1
}

if ! ip netns add "$HUB" 2>"$WORK/netns.err"; then
  echo "SKIP: cannot create network namespaces: $(cat "$WORK/netns.err")" >&2
  exit 77
fi
ns() { ip netns exec "$@"; }
ns "$HUB" ip link set lo up || fail "lo up in $HUB"
ns "$HUB" ip link add br0 type bridge || fail "bridge"
ns "$HUB" ip link set br0 up || fail "bridge up"
for i in $(seq 0 $((NODES - 1))); do
  n="${TAG}-n$i"
  ip netns add "$n" || fail "netns add $n"
  ns "$n" ip link set lo up
  # Create the pair inside the hub so no interface ever appears in the host namespace.
  ns "$HUB" ip link add "vh$i" type veth peer name eth0 netns "$n" || fail "veth for node $i"
  ns "$HUB" ip link set "vh$i" master br0 up || fail "vh$i up"
  ns "$n" ip addr add "10.77.0.$((i + 1))/24" dev eth0 || fail "address of node $i"
  ns "$n" ip link set eth0 up || fail "eth0 of node $i up"
  if [ "$i" -lt 3 ]; then
    ns "$n" tc qdisc add dev eth0 root tbf rate 8mbit burst 16kb latency 100ms ||
      fail "tbf on eth0 in $n"
    ns "$HUB" tc qdisc add dev "vh$i" root tbf rate 8mbit burst 16kb latency 100ms ||
      fail "tbf on vh$i in $HUB"
  fi
done

# Load on the slow nodes' CPU, bounded in time whatever happens to this script.
stress-ng --cpu 1 --taskset 1 --timeout 90 --quiet &
STRESS_PID=$!

od -An -tx1 -N32 /dev/urandom | tr -d ' \n' >"$WORK/secret"
chmod 600 "$WORK/secret"
mkdir -m 700 "$WORK/run"
MON=(--monitor-interval 0.5 --probe-interval 0.5 --probe-peers 5 --probe-bytes 131072)
start_daemon() {
  local i=$1 cpu=$2
  shift 2
  mkdir -m 700 "$WORK/run-$i"
  # Not through ns(): a backgrounded shell function is a subshell, so $! would be that
  # subshell and cleanup's kill would orphan the daemon. ip netns exec and taskset exec.
  ip netns exec "${TAG}-n$i" taskset -c "$cpu" "$BIN/pschedd" --node "$i" --nodes $NODES \
    --listen "10.77.0.$((i + 1))" --hostname "n$i" --secret-file "$WORK/secret" \
    --topology "pack:1 core:4 pu:1" "${MON[@]}" "$@" >"$WORK/pschedd-$i.log" 2>&1 &
  PIDS+=($!)
}
start_daemon 0 1 --port 7700 --rundir "$WORK/run"
for _ in $(seq 600); do [ -S "$WORK/run/pschedd.sock" ] && break; sleep 0.05; done
[ -S "$WORK/run/pschedd.sock" ] || fail "the leader did not open its socket"
for i in $(seq 1 $((NODES - 1))); do
  cpu=0
  [ "$i" -lt 3 ] && cpu=1
  start_daemon "$i" "$cpu" --parent 10.77.0.1:7700 --rundir "$WORK/run-$i"
done

export PSCHED_ALLOCATION="$WORK/run"
status() { "$BIN/psched-ctl" status --json 2>/dev/null; }
# Every node up, every pair measured, and the shaped links measured slower (below 20
# Mbit/s, and less than half of the slowest free one), all from the leader's snapshot.
# A link's figure is its latest probe: on a loaded host a probe whose daemons waited for
# a CPU reads a free link far slower than it is (a 128 KiB probe that waits 60 ms reads
# 17 Mbit/s), so the status is read until it shows the shaping, not once after a sleep.
pairs=$((NODES * (NODES - 1) / 2))
ready=""
slow="" fast=""
for _ in $(seq 400); do
  s=$(status) || s=""
  up=$(jq '[.nodes[] | select(.state == "up")] | length' <<<"$s" 2>/dev/null)
  measured=$(jq '[.links[]? | select(.bandwidth_mbps > 0)] | length' <<<"$s" 2>/dev/null)
  if [ "${up:-0}" -eq $NODES ] && [ "${measured:-0}" -eq $pairs ]; then
    slow=$(jq '[.links[] | select(.a < 3 or .b < 3) | .bandwidth_mbps] | max' <<<"$s")
    fast=$(jq '[.links[] | select(.a >= 3 and .b >= 3) | .bandwidth_mbps] | min' <<<"$s")
    if awk -v s="$slow" -v f="$fast" 'BEGIN { exit !(s < 20 && f > 2 * s) }'; then
      ready=1
      break
    fi
  fi
  sleep 0.1
done
if [ "${up:-0}" -ne $NODES ] || [ "${measured:-0}" -ne $pairs ]; then
  fail "links not all measured: $(status)"
fi
[ -n "$ready" ] ||
  fail "shaped links ($slow Mbit/s at best) not slower than free ones ($fast Mbit/s at worst)"
echo "$s" | jq -c '.links[]' >&2
echo "$s" | jq -c '.nodes[] | {id, metrics}' >&2
jq -e '[.nodes[] | .metrics.total_memory_mb > 0] | all' <<<"$s" >/dev/null ||
  fail "a node has no memory metrics"
# One more round so the slow nodes' loads have been sampled under stress too.
sleep 1

# shellcheck disable=SC2016 # $PSCHED_NODE expands in the rank's shell
out=$("$BIN/psched-exec" -n 4 --allocator netload sh -c 'echo "node=$PSCHED_NODE"' 2>&1) ||
  fail "psched-exec --allocator netload failed: $out"
echo "$out" >&2
count=$(grep -c '^node=' <<<"$out")
[ "$count" -eq 4 ] || fail "expected 4 ranks, got: $out"
if grep '^node=' <<<"$out" | grep -qv '^node=[345]$'; then
  fail "netload placed ranks on a shaped, loaded node: $out"
fi
# The same request under compact lands on node 0: the choice above was netload's.
# shellcheck disable=SC2016
out=$("$BIN/psched-exec" -n 4 --allocator compact sh -c 'echo "node=$PSCHED_NODE"' 2>&1) ||
  fail "psched-exec --allocator compact failed: $out"
grep -q '^node=0$' <<<"$out" || fail "compact did not start on node 0: $out"
"$BIN/psched-ctl" shutdown >/dev/null 2>&1
echo "PASS"
