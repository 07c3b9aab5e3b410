#!/usr/bin/env bash
# psched-exec in a broken Slurm environment: a malformed SLURM_JOB_NODELIST or
# SLURM_JOB_CPUS_PER_NODE is a clear error naming the variable, with a non-zero status,
# not a silent fallback to another mode. Needs no running Slurm.
source "$(dirname "$0")/lib.sh"
require_binary "$psched_exec"
for v in $(compgen -e | grep '^SLURM_' || true); do
  [[ "$v" == SLURM_CONF ]] || unset "$v"
done

expect_error() {  # expect_error TEXT VAR=VALUE...
  local text=$1 out rc=0
  shift
  out=$(env "$@" "$(command -v timeout)" 60 "$psched_exec" -n 1 /bin/true 2>&1) || rc=$?
  ((rc != 0)) || fail "psched-exec with $* succeeded; want an error"
  ((rc != 124)) || fail "psched-exec with $* hung"
  grep -q -- "$text" <<<"$out" || fail "psched-exec with $* said '$out'; want it to name '$text'"
  note "with $*: exit $rc, '$out'"
}
expect_error SLURM_JOB_NODELIST SLURM_JOB_ID=77 'SLURM_JOB_NODELIST=n[1-' SLURM_JOB_CPUS_PER_NODE=2
expect_error SLURM_JOB_CPUS_PER_NODE SLURM_JOB_ID=77 SLURM_JOB_NODELIST=n1 SLURM_JOB_CPUS_PER_NODE=two
expect_error SLURM_JOB_CPUS_PER_NODE SLURM_JOB_ID=77 'SLURM_JOB_NODELIST=n[1-4]' 'SLURM_JOB_CPUS_PER_NODE=2(x3)'
expect_error SLURM_JOB_ID SLURM_JOB_ID=abc SLURM_JOB_NODELIST=n1 SLURM_JOB_CPUS_PER_NODE=2
# A well-formed allocation but no srun to start the daemons with: the error says so.
rm -rf "/tmp/psched-$(id -u)-slurm-987654"
expect_error "cannot run 'srun'" PATH=/nonexistent SLURM_JOB_ID=987654 SLURM_JOB_NODELIST=n1 \
  SLURM_JOB_CPUS_PER_NODE=2
rm -rf "/tmp/psched-$(id -u)-slurm-987654"
note "ok"
