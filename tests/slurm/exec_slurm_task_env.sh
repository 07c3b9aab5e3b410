#!/usr/bin/env bash
# Every rank of a session in Slurm sees srun's per-task variables for where psched placed
# it, not the launcher's (none from the salloc shell; SLURM_PROCID=0 for every rank from a
# step shell or sbatch): 8 ranks over 4 nodes. Open MPI's direct-launch trio
# (SLURM_JOBID, SLURM_NODELIST, SLURM_STEP_ID) stays set.
source "$(dirname "$0")/lib.sh"

if [[ "$inside" == --inside ]]; then
  out=$(timeout 120 "$psched_exec" -N 4 --ppn 2 -n 8 sh -c 'echo \
"$PSCHED_RANK $PSCHED_LOCAL_RANK $PSCHED_NODE|$SLURM_PROCID $SLURM_LOCALID $SLURM_NODEID \
$SLURMD_NODENAME $SLURM_NTASKS $SLURM_STEP_NUM_TASKS $SLURM_TASKS_PER_NODE \
$SLURM_STEP_NODELIST|${SLURM_JOBID:+j}${SLURM_NODELIST:+n}${SLURM_STEP_ID:+s}"') ||
    fail "psched-exec -N 4 --ppn 2 -n 8 failed ($?): $out"
  note "ranks said:"$'\n'"$out"
  [[ $(grep -c . <<<"$out") == 8 ]] || fail "want 8 lines"
  while IFS='|' read -r psched slurm ompi; do
    read -r rank local node <<<"$psched"
    want="$rank $local $node n$((node + 1)) 8 8 2(x4) n1,n2,n3,n4"
    [[ "$slurm" == "$want" ]] || fail "rank $rank: SLURM_* say '$slurm', want '$want'"
    [[ "$ompi" == jns ]] || fail "rank $rank lacks one of SLURM_JOBID, SLURM_NODELIST, SLURM_STEP_ID"
  done <<<"$out"
  note "ok: 8 ranks, each with srun's variables for its place"
  exit 0
fi

require_slurm
require_binary "$psched_exec"
run_in_salloc 4 || fail "the checks inside salloc -N4 failed (see above)"
