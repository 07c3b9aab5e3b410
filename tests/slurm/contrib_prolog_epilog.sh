#!/usr/bin/env bash
# contrib/slurm's Prolog and Epilog on the test Slurm, run as slurmd runs them with
# PrologFlags=Alloc (as root, once per node of the allocation, in the environment slurmd
# gives them: SLURM_JOB_ID, SLURM_JOB_USER, SLURM_NODELIST, ...): the Prolog returns
# at once on every node, the daemons start on their own (one per node, the leader on n1,
# the contact file written) and the user's first psched-exec finds them warm. After the
# allocation, whose leader was killed with SIGKILL so that it could not clean up, the Epilog
# removes its contact file and run directory.
# (The shared test cluster has no Prolog configured, so slurmd itself does not call them
# here; they were checked once on a second test cluster whose slurmd did, Slurm 22.05.)
source "$(dirname "$0")/lib.sh"
prolog="$source_dir/contrib/slurm/psched-prolog.sh"
epilog="$source_dir/contrib/slurm/psched-epilog.sh"

# as_slurmd SCRIPT NODE: SCRIPT with the environment slurmd 22.05 gives a Prolog or Epilog on
# NODE (seen with a Prolog that printed it), its settings in a PSCHED_PROLOG_CONF file.
as_slurmd() {
  printf 'PSCHED_BIN=%q\nPSCHED_PROLOG_LOG=%q\n' "$bin" "$PSCHED_TEST_WORK/prolog.log" \
    >"$PSCHED_TEST_WORK/prolog.conf"
  env -i SLURM_CONF="$SLURM_CONF" PSCHED_PROLOG_CONF="$PSCHED_TEST_WORK/prolog.conf" \
    SLURM_JOB_ID="$job" SLURM_JOBID="$job" SLURM_JOB_USER="$(id -un)" SLURM_JOB_UID="$(id -u)" \
    SLURM_UID="$(id -u)" SLURM_JOB_GID="$(id -g)" SLURM_NODELIST="$nodelist" \
    SLURM_JOB_CPUS_PER_NODE="$cpus" SLURM_JOB_NUM_NODES=4 SLURM_CLUSTER_NAME=psched \
    SLURM_SCRIPT_CONTEXT=prolog_slurmd SLURMD_NODENAME="$2" timeout 10 /bin/bash "$1"
}

if [[ "$inside" == --inside ]]; then
  job=$SLURM_JOB_ID nodelist=$SLURM_JOB_NODELIST cpus=$SLURM_JOB_CPUS_PER_NODE
  echo "$job $nodelist $cpus" >"$PSCHED_TEST_WORK/job"
  contact="$HOME/.psched/$job/contact"
  # Run by hand, without slurmd's variables, it starts nothing and fails nothing (a failed
  # Prolog drains the node).
  env -i /bin/bash "$prolog" || fail "the Prolog without Slurm's variables exited $?"
  [[ -z "$(daemons_of_job "$job")" ]] || fail "the Prolog without Slurm's variables started daemons"
  for node in n1 n2 n3 n4; do
    start=$SECONDS
    as_slurmd "$prolog" "$node" || fail "the Prolog on $node exited $?"
    ((SECONDS - start <= 2)) || fail "the Prolog on $node held the job for $((SECONDS - start)) s"
  done
  four_daemons() { [[ $(daemons_of_job "$job" | grep -c .) == 4 && -e "$contact" ]]; }
  wait_until 60 "the daemons the Prolog starts (log: $(cat "$PSCHED_TEST_WORK/prolog.log" 2>/dev/null))" \
    four_daemons
  daemons=$(daemons_of_job "$job")
  [[ "$(awk '{print $2}' <<<"$daemons" | sort | tr '\n' ' ')" == "n1 n2 n3 n4 " ]] ||
    fail "want one daemon on each of n1..n4: $daemons"
  out=$(timeout 60 "$psched_exec" -v -N 4 --ppn 1 -n 4 /bin/true 2>&1) || fail "psched-exec: $out"
  [[ "$(daemons_of_job "$job")" == "$daemons" ]] || fail "psched-exec did not use the warm daemons"
  grep -q "using the slurm daemon at" <<<"$out" || fail "psched-exec -v: $out"
  # A leader killed where it stands (as Slurm's SIGKILL after KillWait would) leaves its
  # contact file and run directory for the Epilog.
  kill -KILL "$(awk '$2 == "n1" {print $1}' <<<"$daemons")"
  note "ok: the Prolog started the daemons, psched-exec found them warm"
  exit 0
fi

require_slurm
require_binary "$psched_exec"
command -v runuser >/dev/null || fail "runuser (util-linux) is missing"
make_test_work
run_in_salloc 4 || fail "the checks inside salloc -N4 failed (see above)"

read -r job nodelist cpus <"$PSCHED_TEST_WORK/job"
[[ -e "$HOME/.psched/$job/contact" ]] || fail "the killed leader's contact file is not there"
for node in n1 n2 n3 n4; do
  as_slurmd "$epilog" "$node" || fail "the Epilog on $node exited $?"
done
[[ ! -e "$HOME/.psched/$job" ]] || fail "the Epilog left $HOME/.psched/$job"
[[ ! -e "/tmp/psched-$(id -u)-slurm-$job" ]] || fail "the Epilog left /tmp/psched-$(id -u)-slurm-$job"
note "ok: the Epilog removed what the killed leader left of job $job"
