#!/usr/bin/env bash
# Several psched-exec started at once as the first calls of an allocation share one
# daemon network: all succeed and exactly one pschedd runs per node.
source "$(dirname "$0")/lib.sh"

if [[ "$inside" == --inside ]]; then
  pids=()
  for i in 1 2 3; do
    timeout 120 "$psched_exec" -n 1 sh -c "echo call $i" >"$PSCHED_TEST_WORK/call.$i" 2>&1 &
    pids+=($!)
  done
  for i in 0 1 2; do
    wait "${pids[$i]}" || fail "concurrent call $((i + 1)) failed: $(cat "$PSCHED_TEST_WORK/call.$((i + 1))")"
  done
  for i in 1 2 3; do
    grep -qx "call $i" "$PSCHED_TEST_WORK/call.$i" || fail "call $i printed: $(cat "$PSCHED_TEST_WORK/call.$i")"
  done
  daemons=$(daemons_of_job "$SLURM_JOB_ID")
  [[ "$(awk '{print $2}' <<<"$daemons" | sort | tr '\n' ' ')" == "n1 n2 n3 n4 " ]] ||
    fail "want exactly one daemon per node, got:"$'\n'"$daemons"
  note "ok: 3 concurrent first calls, one daemon per node"
  exit 0
fi

require_slurm
require_binary "$psched_exec"
make_test_work
run_in_salloc 4 || fail "the checks inside salloc -N4 failed (see above)"
