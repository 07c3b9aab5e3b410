#!/bin/bash
# Slurm Prolog for psched: starts psched's daemons when an allocation starts, so that the
# user's first psched-exec finds them warm (contrib/slurm/README.md says how to install it).
#
# slurm.conf:  Prolog=/etc/slurm/psched-prolog.sh
#              PrologFlags=Alloc        (run at allocation, not at the first step)
#              Epilog=/etc/slurm/psched-epilog.sh
#
# slurmd runs it as root on every node of the allocation; it acts on the first node alone
# and returns at once (a Prolog holds the job until it ends). There, as the job's user and
# detached from slurmd, it waits for the job to run and then starts the daemons as the
# first psched-exec of the job would: one srun step per tree level, the leader on the first
# node with its contact file ~/.psched/JOBID/contact. They are ordinary job steps, so Slurm
# accounts for them and ends them with the job; the Epilog only sweeps what a killed leader
# left behind. What the start says goes to syslog (tag psched-prolog).
#
# slurmd gives a Prolog SLURM_JOB_ID, SLURM_JOB_USER, SLURM_NODELIST (the job's nodes),
# SLURM_JOB_CPUS_PER_NODE and SLURMD_NODENAME (seen with Slurm 22.05), but not its own
# environment. Settings come from /etc/psched/slurm-prolog.conf (a shell fragment; another
# file in PSCHED_PROLOG_CONF): PSCHED_BIN, the directory of psched-exec and pschedd (default
# /usr/local/bin); PSCHED_START_WAIT_S, how long to wait for the job to run (default 60);
# PSCHED_PROLOG_LOG, a file for the start's output instead of syslog.
# It never fails: a failed Prolog drains the node. Then psched-exec starts the daemons itself.
set -u
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
conf=${PSCHED_PROLOG_CONF:-/etc/psched/slurm-prolog.conf}
# shellcheck disable=SC1090 # the admin's settings
[[ -r "$conf" ]] && source "$conf"
bin=${PSCHED_BIN:-/usr/local/bin}
wait_s=${PSCHED_START_WAIT_S:-60}
job=${SLURM_JOB_ID:-}
user=${SLURM_JOB_USER:-}
nodes=${SLURM_JOB_NODELIST:-${SLURM_NODELIST:-}}
cpus=${SLURM_JOB_CPUS_PER_NODE:-}
say() { logger -t psched-prolog "job ${job:-?}: $*" 2>/dev/null || true; }
if [[ -z "$job" || -z "$user" || -z "$nodes" || -z "$cpus" ]]; then
  say "SLURM_JOB_ID, SLURM_JOB_USER, SLURM_NODELIST or SLURM_JOB_CPUS_PER_NODE not set: not run by slurmd as a Prolog? daemons not started"
  exit 0
fi
first=$(scontrol show hostnames "$nodes" | head -n 1)
[[ "${SLURMD_NODENAME:-}" == "$first" ]] || exit 0
if [[ ! -x "$bin/psched-exec" ]]; then
  say "no $bin/psched-exec (set PSCHED_BIN in $conf): daemons not started"
  exit 0
fi
home=$(getent passwd "$user" | cut -d: -f6)

# The starter: as the user, in a session of its own, its output to syslog. The job runs
# once every node's Prolog has ended: it waits for that, then starts the daemons as the
# job's first psched-exec (with the job's variables, as salloc's shell has them).
# shellcheck disable=SC2016 # expanded by the starter's shell
runuser -u "$user" -- env -i PATH="$PATH" HOME="$home" USER="$user" LOGNAME="$user" \
  ${SLURM_CONF:+SLURM_CONF="$SLURM_CONF"} SLURM_JOB_ID="$job" SLURM_JOB_NODELIST="$nodes" \
  SLURM_JOB_CPUS_PER_NODE="$cpus" setsid -f bash -c '
    bin=$1 wait_s=$2 log=$3
    if [[ -n "$log" ]]; then
      exec >>"$log" 2>&1
    else
      exec > >(logger -t "psched-prolog[$SLURM_JOB_ID]") 2>&1
    fi
    for ((i = 0; i < wait_s * 10; i++)); do
      [[ "$(squeue -h -j "$SLURM_JOB_ID" -o %T 2>/dev/null)" == RUNNING ]] && break
      sleep 0.1
    done
    "$bin/psched-exec" -n 1 /bin/true ||
      echo "job $SLURM_JOB_ID: starting the psched daemons failed; psched-exec starts them on first use"
  ' psched-start "$bin" "$wait_s" "${PSCHED_PROLOG_LOG:-}" </dev/null >/dev/null 2>&1
exit 0
