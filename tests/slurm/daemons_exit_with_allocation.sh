#!/usr/bin/env bash
# The daemons psched-exec starts in an allocation end with it: once salloc has returned,
# no pschedd (and no other process) of that job is left on the host.
source "$(dirname "$0")/lib.sh"

if [[ "$inside" == --inside ]]; then
  timeout 120 "$psched_exec" -n 1 /bin/true || fail "psched-exec -n 1 /bin/true failed ($?)"
  daemons_of_job "$SLURM_JOB_ID" >"$PSCHED_TEST_WORK/daemons"
  echo "$SLURM_JOB_ID" >"$PSCHED_TEST_WORK/job"
  [[ $(grep -c . "$PSCHED_TEST_WORK/daemons") == 4 ]] || fail "want 4 daemons while the allocation lives"
  exit 0
fi

require_slurm
require_binary "$psched_exec"
PSCHED_TEST_WORK=$(mktemp -d /tmp/psched-slurm-test.XXXXXX)
export PSCHED_TEST_WORK
trap 'rm -rf "$PSCHED_TEST_WORK"' EXIT
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
no_process_left() { [[ -z "$(processes_of_job "$job")" ]]; }
wait_until 60 "every process of job $job to exit" no_process_left ||
  fail "left behind: $(processes_of_job "$job")"
note "ok: nothing of job $job is left"
