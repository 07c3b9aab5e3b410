#!/usr/bin/env bash
# A second psched-exec in the same allocation reuses the daemons the first one started:
# the same pschedd processes (pids) serve every call, and psched-ctl reaches their leader.
source "$(dirname "$0")/lib.sh"

if [[ "$inside" == --inside ]]; then
  [[ -z "$(daemons_of_job "$SLURM_JOB_ID")" ]] || fail "daemons exist before the first psched-exec"
  timeout 120 "$psched_exec" -n 1 /bin/true || fail "first psched-exec -n 1 /bin/true failed ($?)"
  first=$(daemons_of_job "$SLURM_JOB_ID")
  note "after the first call (pid node):"$'\n'"$first"
  [[ $(grep -c . <<<"$first") == 4 ]] || fail "want 4 daemons after the first call"

  timeout 120 "$psched_exec" -n 2 /bin/true || fail "second psched-exec -n 2 /bin/true failed ($?)"
  timeout 120 "$psched_exec" -N 4 --ppn 1 -n 4 /bin/true || fail "third psched-exec failed ($?)"
  second=$(daemons_of_job "$SLURM_JOB_ID")
  [[ "$second" == "$first" ]] ||
    fail "the daemons changed between calls: before"$'\n'"$first"$'\n'"after"$'\n'"$second"

  if [[ -x "$psched_ctl" ]]; then
    status=$(timeout 60 "$psched_ctl" status --json) || fail "psched-ctl status --json failed ($?)"
    # The leader psched-ctl reaches knows the four Slurm nodes by name, all up.
    hosts=$(grep -o '"hostname": *"[^"]*"' <<<"$status" | sed 's/.*"\([^"]*\)"$/\1/' |
      sort | tr '\n' ' ')
    [[ "$hosts" == "n1 n2 n3 n4 " ]] || fail "psched-ctl status --json shows nodes '$hosts': $status"
    [[ $(grep -c '"state": *"up"' <<<"$status") == 4 ]] || fail "not all 4 nodes up: $status"
  else
    note "no $psched_ctl: skipped the psched-ctl check"
  fi
  note "ok: the same 4 daemons served 3 calls"
  exit 0
fi

require_slurm
require_binary "$psched_exec"
run_in_salloc 4 || fail "the checks inside salloc -N4 failed (see above)"
