#!/usr/bin/env bash
# psched-exec inside `salloc -N4`: it finds the allocation, starts one pschedd per Slurm
# node (a step started with srun, so each daemon carries SLURMD_NODENAME n1..n4), runs
# one rank on each node (PSCHED_NODE differs), loses no output line across nodes, and
# exits with the failing rank's status.
source "$(dirname "$0")/lib.sh"

if [[ "$inside" == --inside ]]; then
  out=$(timeout 120 "$psched_exec" -N 4 --ppn 1 -n 4 \
    sh -c 'echo "rank=$PSCHED_RANK size=$PSCHED_SIZE node=$PSCHED_NODE"') ||
    fail "psched-exec -N 4 --ppn 1 -n 4 failed with status $?"
  note "ranks said:"$'\n'"$out"
  [[ $(grep -c '^rank=' <<<"$out") == 4 ]] || fail "want 4 rank lines"
  for r in 0 1 2 3; do
    grep -q "^rank=$r size=4 " <<<"$out" || fail "no line from rank $r of 4"
  done
  nodes=$(sed -n 's/.* node=//p' <<<"$out" | sort -u | grep -c .)
  [[ "$nodes" == 4 ]] || fail "the 4 ranks ran on $nodes distinct PSCHED_NODE values, want 4"

  daemons=$(daemons_of_job "$SLURM_JOB_ID")
  note "daemons of job $SLURM_JOB_ID (pid node):"$'\n'"$daemons"
  [[ "$(awk '{print $2}' <<<"$daemons" | sort | tr '\n' ' ')" == "n1 n2 n3 n4 " ]] ||
    fail "want one pschedd started by srun on each of n1..n4"

  # 1000 lines from every rank on every node, none lost or torn.
  lines=$(timeout 120 "$psched_exec" -N 4 --ppn 1 -n 4 \
    sh -c 'i=0; while [ $i -lt 1000 ]; do echo "r$PSCHED_RANK line $i"; i=$((i+1)); done' |
    grep -c '^r[0-3] line [0-9]*$') || true
  [[ "$lines" == 4000 ]] || fail "got $lines whole output lines from 4 ranks x 1000, want 4000"

  rc=0
  timeout 120 "$psched_exec" -N 4 --ppn 1 -n 4 \
    sh -c 'if [ "$PSCHED_RANK" = 2 ]; then exit 7; fi; exit 0' >/dev/null 2>&1 || rc=$?
  [[ "$rc" == 7 ]] || fail "rank 2 exited 7 but psched-exec exited $rc"
  note "ok inside job $SLURM_JOB_ID"
  exit 0
fi

require_slurm
require_binary "$psched_exec"
run_in_salloc 4 || fail "the checks inside salloc -N4 failed (see above)"
