#!/usr/bin/env bash
# A psched-exec that comes while another one is still starting the allocation's daemons
# (the leader already answers, the other nodes have not all joined) waits for them and
# says so with -v, instead of failing "the allocation is still starting". A chain of four
# tree levels (PSCHED_SLURM_FANOUT=1) keeps that window open for several srun steps.
source "$(dirname "$0")/lib.sh"

if [[ "$inside" == --inside ]]; then
  export PSCHED_SLURM_FANOUT=1
  socket="/tmp/psched-$(id -u)-slurm-$SLURM_JOB_ID/pschedd.sock"
  timeout 120 "$psched_exec" -n 1 sh -c 'echo first' >"$PSCHED_TEST_WORK/first" 2>&1 &
  first=$!
  leader_listens() { [[ -S "$socket" ]]; }
  wait_until 60 "the leader's socket $socket" leader_listens
  rc=0
  timeout 120 "$psched_exec" -v -N 4 --ppn 1 -n 4 sh -c 'echo second' \
    >"$PSCHED_TEST_WORK/second" 2>&1 || rc=$?
  wait "$first" || fail "the first call failed: $(<"$PSCHED_TEST_WORK/first")"
  ((rc == 0)) || fail "the second call failed ($rc): $(<"$PSCHED_TEST_WORK/second")"
  [[ $(grep -c '^second$' "$PSCHED_TEST_WORK/second") == 4 ]] ||
    fail "the second call printed: $(<"$PSCHED_TEST_WORK/second")"
  grep -q "waiting up to [0-9]* s for the daemons of Slurm job $SLURM_JOB_ID" \
    "$PSCHED_TEST_WORK/second" ||
    fail "the second call did not come while the daemons started (nothing to test): $(<"$PSCHED_TEST_WORK/second")"
  note "ok: the second call waited:"$'\n'"$(<"$PSCHED_TEST_WORK/second")"
  exit 0
fi

require_slurm
require_binary "$psched_exec"
make_test_work
run_in_salloc 4 || fail "the checks inside salloc -N4 failed (see above)"
