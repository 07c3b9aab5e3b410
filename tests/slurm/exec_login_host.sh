#!/usr/bin/env bash
# psched-exec and psched-ctl from the login host: the salloc shell on a host other than the
# allocation's first node, played by a launcher in its own mount namespace with a private
# /tmp (on_login_host), where the leader's Unix socket cannot be seen. The first call starts
# the daemons there (the leader on n1), every call reaches the leader over TCP through the
# contact file ~/.psched/JOB/contact (0600 in a 0700 directory) with the allocation secret,
# and stdin, exit codes and psched-ctl work as over the Unix socket. Each bad contact file
# is refused with a message naming the job and the file, exit 1, the daemons serving on.
# Once the allocation ends, the leader has removed the contact file.
source "$(dirname "$0")/lib.sh"

# refused WHAT MESSAGE: psched-exec on the login host fails, naming the job, the contact
# file and MESSAGE.
refused() {
  local out rc=0
  out=$(on_login_host timeout 60 "$psched_exec" -n 1 /bin/true 2>&1) || rc=$?
  ((rc != 0)) || fail "psched-exec accepted $1: $out"
  grep -qF "Slurm job $SLURM_JOB_ID" <<<"$out" || fail "the refusal of $1 does not name the job: $out"
  grep -qF "$contact" <<<"$out" || fail "the refusal of $1 does not name $contact: $out"
  grep -qF "$2" <<<"$out" || fail "the refusal of $1 does not say '$2': $out"
  note "refused $1 (exit $rc): $out"
}

# serving AFTER: the daemons still serve the login host after AFTER.
serving() {
  local out
  out=$(on_login_host timeout 60 "$psched_exec" -n 1 echo still serving 2>&1) ||
    fail "after $1 the daemons no longer serve the login host: $out"
  [[ "$out" == "still serving" ]] || fail "after $1: $out"
}

if [[ "$inside" == --inside ]]; then
  echo "$SLURM_JOB_ID" >"$PSCHED_TEST_WORK/job"
  contact="$HOME/.psched/$SLURM_JOB_ID/contact"
  [[ -z "$(daemons_of_job "$SLURM_JOB_ID")" ]] || fail "daemons exist before the first psched-exec"
  on_login_host test ! -e "/tmp/psched-$(id -u)-slurm-$SLURM_JOB_ID" ||
    fail "the login host's /tmp is not private"

  # The first call, from the login host, starts the daemons: the leader on n1.
  out=$(on_login_host timeout 120 "$psched_exec" -N 4 --ppn 1 -n 4 \
    sh -c 'echo "$PSCHED_NODE $SLURMD_NODENAME"' 2>&1) || fail "first psched-exec: $out"
  [[ "$(sort <<<"$out" | tr '\n' ' ')" == "0 n1 1 n2 2 n3 3 n4 " ]] ||
    fail "ranks ran on (PSCHED_NODE SLURMD_NODENAME): $out"
  daemons=$(daemons_of_job "$SLURM_JOB_ID")
  [[ "$(awk '{print $2}' <<<"$daemons" | sort | tr '\n' ' ')" == "n1 n2 n3 n4 " ]] ||
    fail "want exactly one daemon on each of n1..n4: $daemons"

  [[ "$(stat -c %a "$contact")" == 600 ]] || fail "$contact has mode $(stat -c %a "$contact")"
  [[ "$(stat -c %a "$(dirname "$contact")")" == 700 ]] || fail "$(dirname "$contact") is not 0700"
  [[ "$(stat -c %u "$contact")" == "$(id -u)" ]] || fail "$contact is not ours"
  grep -q '^address 127.0.0.1:[0-9]*$' "$contact" || fail "no leader address in $contact"
  # The secret: in the contact file, never in a rank's environment.
  secret=$(sed -n 's/^secret //p' "$contact")
  [[ ${#secret} == 64 ]] || fail "no 64-digit secret in $contact"
  env_out=$(on_login_host timeout 60 "$psched_exec" -n 1 env) || fail "env in a rank failed"
  ! grep -qF "$secret" <<<"$env_out" || fail "a rank's environment holds the secret"

  # Warm calls over TCP: the same daemons, stdin, exit status, psched-ctl.
  out=$(on_login_host timeout 60 "$psched_exec" -v -n 1 /bin/true 2>&1) || fail "warm call: $out"
  grep -q "using the slurm daemon at 127.0.0.1:[0-9]* (TCP, from $contact)" <<<"$out" ||
    fail "the warm call did not use TCP through the contact file: $out"
  [[ "$(daemons_of_job "$SLURM_JOB_ID")" == "$daemons" ]] || fail "the daemons changed"
  out=$(head -c 300000 /dev/zero | on_login_host timeout 60 "$psched_exec" -n 1 wc -c) ||
    fail "stdin over TCP failed"
  [[ "$out" == 300000 ]] || fail "rank 0 read $out bytes of 300000 from stdin"
  rc=0
  on_login_host timeout 60 "$psched_exec" -n 2 sh -c 'exit 7' || rc=$?
  ((rc == 7)) || fail "exit status over TCP: $rc, want 7"
  # A signal to the launcher reaches the rank (SIGTERM is forwarded), over TCP as well.
  marker="login-signal-$$"
  on_login_host "$psched_exec" -n 1 sh -c \
    "trap 'echo got TERM; exit 5' TERM; echo up $marker; while :; do sleep 0.1; done" \
    >"$PSCHED_TEST_WORK/signal.out" 2>&1 &
  launcher=$!
  wait_until 60 "the rank of the signal check" grep -q "up $marker" "$PSCHED_TEST_WORK/signal.out"
  kill -TERM "$(pgrep -f "^$psched_exec -n 1 sh -c .*$marker")"
  rc=0
  wait "$launcher" || rc=$?
  if ! grep -q "got TERM" "$PSCHED_TEST_WORK/signal.out" || ((rc != 5)); then
    fail "SIGTERM over TCP: exit $rc, $(<"$PSCHED_TEST_WORK/signal.out")"
  fi
  status=$(on_login_host timeout 60 "$psched_ctl" status --json) || fail "psched-ctl status over TCP"
  [[ $(grep -c '"state": *"up"' <<<"$status") == 4 ]] || fail "psched-ctl: not 4 nodes up: $status"
  # On a node of the allocation the Unix socket stays the path.
  out=$(timeout 60 "$psched_exec" -v -n 1 /bin/true 2>&1) || fail "call on the node: $out"
  grep -q "using the slurm daemon at /tmp/psched-$(id -u)-slurm-$SLURM_JOB_ID/pschedd.sock" <<<"$out" ||
    fail "on the first node psched-exec did not use the Unix socket: $out"

  # Refusals: each names the job and the file; the daemons serve on.
  cp -p "$contact" "$PSCHED_TEST_WORK/contact"
  sed -i "s/^secret .*/secret $(printf '%064d' 7)/" "$contact"
  refused "a wrong secret" "wrong allocation secret"
  cp -p "$PSCHED_TEST_WORK/contact" "$contact"
  serving "a wrong secret"
  chmod 0644 "$contact"
  refused "a contact file readable by others" "open to others (mode 0644"
  chmod 0600 "$contact"
  chown 65534 "$contact"
  refused "a contact file of another uid" "owned by uid 65534"
  chown "$(id -u)" "$contact"
  chmod 0755 "$(dirname "$contact")"
  refused "a contact directory open to others" "its directory is open to others"
  chmod 0700 "$(dirname "$contact")"
  serving "the refusals"

  # A contact file of a job that has ended (its leader killed before it could remove it).
  ended=$((SLURM_JOB_ID + 100000))
  mkdir -p -m 0700 "$HOME/.psched/$ended"
  printf 'address 127.0.0.1:1\nsecret %s\n' "$secret" >"$HOME/.psched/$ended/contact"
  chmod 0600 "$HOME/.psched/$ended/contact"
  rc=0
  out=$(on_login_host env SLURM_JOB_ID=$ended SLURM_JOBID=$ended timeout 60 "$psched_exec" -n 1 \
    /bin/true 2>&1) || rc=$?
  ((rc != 0)) || fail "a stale contact file was accepted: $out"
  grep -qF "Slurm job $ended has ended: its contact file '$HOME/.psched/$ended/contact' was stale" <<<"$out" ||
    fail "the stale contact file's refusal: $out"
  [[ ! -e "$HOME/.psched/$ended" ]] || fail "the stale contact file was not removed"
  note "refused a stale contact file (exit $rc): $out"
  # No daemons, no contact file: psched-ctl says where it looked.
  rc=0
  out=$(on_login_host env SLURM_JOB_ID=$ended SLURM_JOBID=$ended timeout 60 "$psched_ctl" status \
    2>&1) || rc=$?
  if ((rc == 0)) || ! grep -qF "contact file at $HOME/.psched/$ended/contact" <<<"$out"; then
    fail "psched-ctl with no daemons and no contact file: $out"
  fi
  serving "the stale contact file"
  note "ok: login-host calls over TCP, refusals named the job and the file"
  exit 0
fi

require_slurm
require_binary "$psched_exec"
require_binary "$psched_ctl"
command -v unshare >/dev/null || fail "unshare (util-linux) is missing"
make_test_work
run_in_salloc 4 || fail "the checks inside salloc -N4 failed (see above)"

job=$(<"$PSCHED_TEST_WORK/job")
wait_job_dir_gone "$job"
