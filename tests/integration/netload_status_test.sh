#!/usr/bin/env bash
# `psched-ctl status --json` shows what the daemons' monitors measured: a metrics
# object on every node (memory and load sampled at once when a daemon joins) and
# a links list. Emulated 3-node allocation (psched-alloc), no privileges needed.
# Usage: netload_status_test.sh BIN_DIR
set -u
BIN=${1:?usage: $0 BIN_DIR}
# Bad monitoring options: pschedd refuses them, naming the option.
for bad in "--monitor-interval 0" "--probe-interval -1" "--probe-peers 0" "--probe-bytes 10"; do
  opt=${bad%% *}
  # shellcheck disable=SC2086
  if err=$(PSCHED_SECRET="" "$BIN/pschedd" --node 0 --nodes 1 --rundir /nonexistent $bad 2>&1); then
    echo "pschedd accepted $bad"; exit 1
  fi
  grep -q -- "$opt" <<<"$err" || { echo "pschedd $bad: error does not name $opt: $err"; exit 1; }
done
# shellcheck disable=SC2016 # expanded by the bash inside the allocation
check='
for i in $(seq 300); do
  s=$("$0"/psched-ctl status --json) || exit 1
  if jq -e "([.nodes[] | .metrics.total_memory_mb > 0] | all) and (.nodes | length) == 3" \
      <<<"$s" >/dev/null; then
    jq -e ".links | type == \"array\"" <<<"$s" >/dev/null || { echo "no links list: $s"; exit 1; }
    jq -e "[.nodes[] | .metrics | has(\"cpu_load_1m\", \"cpu_load_5m\", \"cpu_load_15m\",
            \"cpu_utilisation\", \"used_memory_mb\", \"bandwidth_mbps\")] | all" <<<"$s" \
      >/dev/null || { echo "metrics incomplete: $s"; exit 1; }
    jq -e "[.nodes[] | .metrics.used_memory_mb > 0 and .metrics.used_memory_mb <= .metrics.total_memory_mb] | all" \
      <<<"$s" >/dev/null || { echo "memory figures wrong: $s"; exit 1; }
    # Every allocator runs inside the daemon (one instance per name in the leader).
    for a in compact spread netload auction ipwindow; do
      out=$("$0"/psched-exec -n 2 --allocator $a sh -c "echo rank=\$PSCHED_NODE" 2>&1) ||
        { echo "--allocator $a failed: $out"; exit 1; }
      [ "$(grep -c "^rank=" <<<"$out")" -eq 2 ] || { echo "--allocator $a: $out"; exit 1; }
    done
    if out=$("$0"/psched-exec --allocator bogus true 2>&1); then echo "bogus allocator ran"; exit 1; fi
    grep -q bogus <<<"$out" || { echo "unknown allocator error does not name it: $out"; exit 1; }
    echo PASS; exit 0
  fi
  sleep 0.1
done
echo "no metrics after 30 s: $s"; exit 1'
"$BIN/psched-alloc" -N 3 --topology "pack:1 core:2 pu:1" -- bash -c "$check" "$BIN" || exit 1

# The admin config bounds --allocator: with only compact allowed, netload is refused
# by the leader with a message naming it.
conf=$(mktemp /tmp/psched-netload-conf.XXXXXX)
trap 'rm -f "$conf"' EXIT
printf '[allocator]\ndefault = "compact"\nallowed = ["compact"]\n' >"$conf"
out=$(PSCHED_CONF="$conf" "$BIN/psched-alloc" -N 1 -- "$BIN/psched-exec" --allocator netload true 2>&1) &&
  { echo "netload ran although the config forbids it"; exit 1; }
grep -q netload <<<"$out" || { echo "refusal does not name netload: $out"; exit 1; }
echo PASS
