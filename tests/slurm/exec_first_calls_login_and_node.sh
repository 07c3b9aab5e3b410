#!/usr/bin/env bash
# Two first calls of an allocation from two hosts at the same moment: one from the login
# host (on_login_host: its own /tmp, as another host) and one on the allocation's first node
# (this shell: the test Slurm's nodes share this host's /tmp). They share the start lock in
# the job's directory under the shared home, ~/.psched/JOB/start.lock, so exactly one daemon
# network starts and both run their command; when the allocation ends, the leader removes
# that directory with its contact file and the lock.
source "$(dirname "$0")/lib.sh"

if [[ "$inside" == --inside ]]; then
  echo "$SLURM_JOB_ID" >"$PSCHED_TEST_WORK/job"
  [[ -z "$(daemons_of_job "$SLURM_JOB_ID")" ]] || fail "daemons exist before the first psched-exec"
  go="$PSCHED_TEST_WORK/go"
  # Each waits for $go, then runs psched-exec: both start within a few milliseconds.
  first_call() { # WHERE [on_login_host.sh ARGS...]
    local where=$1
    shift
    "$@" timeout 120 sh -c 'while [ ! -e "$1" ]; do sleep 0.005; done; shift; exec "$@"' \
      first_call "$go" "$psched_exec" -v -n 1 sh -c "echo ran on the $where" \
      >"$PSCHED_TEST_WORK/$where" 2>&1
  }
  first_call "login host" "$source_dir/tests/slurm/on_login_host.sh" --keep "$source_dir" \
    --keep "$build_dir" --keep "$(dirname "$SLURM_CONF")" --keep "$PSCHED_TEST_WORK" -- &
  login=$!
  first_call "first node" &
  node=$!
  sleep 0.5 # both namespaces are set up and polling
  touch "$go"
  rc_login=0 rc_node=0
  wait "$login" || rc_login=$?
  wait "$node" || rc_node=$?
  for where in "login host" "first node"; do
    note "the call on the $where said:"$'\n'"$(<"$PSCHED_TEST_WORK/$where")"
  done
  ((rc_login == 0)) || fail "the login host's call failed ($rc_login)"
  ((rc_node == 0)) || fail "the first node's call failed ($rc_node)"
  for where in "login host" "first node"; do
    grep -qx "ran on the $where" "$PSCHED_TEST_WORK/$where" || fail "the $where's call did not run"
  done
  daemons=$(daemons_of_job "$SLURM_JOB_ID")
  [[ "$(awk '{print $2}' <<<"$daemons" | sort | tr '\n' ' ')" == "n1 n2 n3 n4 " ]] ||
    fail "want exactly one daemon network (one daemon on each of n1..n4), got:"$'\n'"$daemons"
  [[ -e "$HOME/.psched/$SLURM_JOB_ID/start.lock" ]] ||
    fail "no start lock in the job's shared directory $HOME/.psched/$SLURM_JOB_ID"
  note "ok: concurrent first calls from the login host and the first node, one daemon network"
  exit 0
fi

require_slurm
require_binary "$psched_exec"
command -v unshare >/dev/null || fail "unshare (util-linux) is missing"
make_test_work
run_in_salloc 4 || fail "the checks inside salloc -N4 failed (see above)"

job=$(<"$PSCHED_TEST_WORK/job")
wait_job_dir_gone "$job"
