#!/usr/bin/env bash
# The daemons psched-exec starts in an allocation end with it: once salloc has returned,
# no pschedd, no rank of a session that was still running, and no other process of that
# job is left on the host.
source "$(dirname "$0")/lib.sh"

if [[ "$inside" == --inside ]]; then
  timeout 120 "$psched_exec" -n 1 /bin/true || fail "psched-exec -n 1 /bin/true failed ($?)"
  # A session still running on every node when the allocation ends.
  "$psched_exec" -N 4 --ppn 1 -n 4 sleep "$PSCHED_TEST_SLEEP" >/dev/null 2>&1 &
  echo $! >"$PSCHED_TEST_WORK/launcher"
  ranks_up() { [[ $(pgrep -cxf "sleep $PSCHED_TEST_SLEEP") == 4 ]]; }
  wait_until 60 "the 4 ranks of the long session" ranks_up
  daemons_of_job "$SLURM_JOB_ID" >"$PSCHED_TEST_WORK/daemons"
  echo "$SLURM_JOB_ID" >"$PSCHED_TEST_WORK/job"
  [[ $(grep -c . "$PSCHED_TEST_WORK/daemons") == 4 ]] || fail "want 4 daemons while the allocation lives"
  exit 0
fi

require_slurm
require_binary "$psched_exec"
make_test_work
# A duration no other process uses, so pgrep finds exactly our ranks.
PSCHED_TEST_SLEEP="3$$.5"
export PSCHED_TEST_SLEEP
run_in_salloc 4 || fail "the checks inside salloc -N4 failed (see above)"

job=$(<"$PSCHED_TEST_WORK/job")
note "allocation $job ended; daemons were:"$'\n'"$(<"$PSCHED_TEST_WORK/daemons")"
pids_gone() {
  local pid node
  while read -r pid node; do
    [[ "$(cat "/proc/$pid/comm" 2>/dev/null)" == pschedd ]] && return 1
  done <"$PSCHED_TEST_WORK/daemons"
  return 0
}
# Slurm ends the step with SIGTERM, then SIGKILL after KillWait (2 s in slurm-env.sh).
wait_until 60 "the daemons of job $job to exit" pids_gone
no_rank_left() { ! pgrep -xf "sleep $PSCHED_TEST_SLEEP" >/dev/null; }
wait_until 60 "the ranks of the running session to be gone" no_rank_left
launcher_gone() { ! kill -0 "$(<"$PSCHED_TEST_WORK/launcher")" 2>/dev/null; }
wait_until 60 "the launcher of the running session to exit" launcher_gone
no_process_left() { [[ -z "$(processes_of_job "$job")" ]]; }
wait_until 60 "every process of job $job to exit" no_process_left ||
  fail "left behind: $(processes_of_job "$job")"
note "ok: nothing of job $job is left"
