#!/usr/bin/env bash
# The test Slurm itself: salloc -N4 grants n1..n4, a step with one task per node runs
# once on each of them (SLURMD_NODENAME), whole nodes are granted (all CPUs), and
# slurm-env.sh rejects bad input with a clear message and a non-zero status.
source "$(dirname "$0")/lib.sh"

if [[ "$inside" == --inside ]]; then
  [[ "${SLURM_JOB_NUM_NODES:-}" == 4 ]] || fail "SLURM_JOB_NUM_NODES='${SLURM_JOB_NUM_NODES:-}', want 4"
  cpus=$(sinfo -h -N -n n1 -o '%c')
  [[ "$SLURM_JOB_CPUS_PER_NODE" == "${cpus}(x4)" ]] ||
    fail "SLURM_JOB_CPUS_PER_NODE='$SLURM_JOB_CPUS_PER_NODE', want whole nodes '${cpus}(x4)'"
  names=$(srun --overlap -N4 --ntasks-per-node=1 printenv SLURMD_NODENAME | sort | tr '\n' ' ')
  [[ "$names" == "n1 n2 n3 n4 " ]] || fail "one task per node ran on '$names', want 'n1 n2 n3 n4'"
  note "salloc -N4: one task on each of $names"
  exit 0
fi

require_slurm
run_in_salloc 4 || fail "salloc -N4 step failed"

# Bad input: each gets a message naming what was wrong and a non-zero status.
expect_error() {  # expect_error TEXT CMD...
  local text=$1 out rc=0
  shift
  out=$("$@" 2>&1) || rc=$?
  ((rc != 0)) || fail "'$*' succeeded; want an error"
  grep -q -- "$text" <<<"$out" || fail "'$*' said '$out'; want it to mention '$text'"
}
expect_error "unknown action 'restart'" "$slurm_env" restart
expect_error "missing action" "$slurm_env"
expect_error "too many arguments" "$slurm_env" start /tmp/a /tmp/b
expect_error "PSCHED_SLURM_NODES must be a positive integer, got 'x'" \
  env PSCHED_SLURM_NODES=x "$slurm_env" start /tmp/psched-slurm-bad-input
expect_error "PSCHED_SLURM_CPUS must be a positive integer, got '0'" \
  env PSCHED_SLURM_CPUS=0 "$slurm_env" start /tmp/psched-slurm-bad-input
[[ ! -e /tmp/psched-slurm-bad-input ]] || fail "a rejected start created its state directory"
"$slurm_env" --help | grep -q "start|stop|status|env" || fail "--help does not show the usage"
note "ok"
