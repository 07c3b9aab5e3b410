#!/usr/bin/env bash
# The daemons start one srun step per tree level: with PSCHED_SLURM_FANOUT=1 the four
# nodes form a chain of four levels (four steps), and a session still spans all nodes.
source "$(dirname "$0")/lib.sh"

if [[ "$inside" == --inside ]]; then
  export PSCHED_SLURM_FANOUT=1
  out=$(timeout 120 "$psched_exec" -N 4 --ppn 1 -n 4 sh -c 'echo "node=$PSCHED_NODE"') ||
    fail "psched-exec -N 4 --ppn 1 -n 4 over a chain of daemons failed ($?)"
  [[ $(sort -u <<<"$out" | grep -c '^node=') == 4 ]] || fail "ranks ran on: $out"
  steps=$(squeue -h --steps -j "$SLURM_JOB_ID" -o '%j' | grep -c '^pschedd$') || true
  [[ "$steps" == 4 ]] || fail "want 4 pschedd steps (one per level), squeue shows $steps"
  [[ $(daemons_of_job "$SLURM_JOB_ID" | grep -c .) == 4 ]] || fail "want 4 daemons"
  note "ok: 4 levels, 4 steps, one rank per node"
  exit 0
fi

require_slurm
require_binary "$psched_exec"
run_in_salloc 4 || fail "the checks inside salloc -N4 failed (see above)"
