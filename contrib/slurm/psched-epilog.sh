#!/bin/bash
# Slurm Epilog for psched: sweeps what psched's daemons may leave of an ended allocation
# (contrib/slurm/README.md; pairs with psched-prolog.sh). Slurm has ended the daemons' steps
# by now; a leader that ended normally removed its contact file and run directory itself,
# one killed (SIGKILL after KillWait) could not. slurmd runs this as root on every node.
set -u
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
job=${SLURM_JOB_ID:?psched-epilog: SLURM_JOB_ID is not set: run by slurmd as an Epilog}
user=${SLURM_JOB_USER:?psched-epilog: SLURM_JOB_USER is not set}
uid=${SLURM_JOB_UID:-$(id -u "$user")}
[[ "$job" =~ ^[0-9]+$ ]] || exit 0
# The leader's run directory on this node (launcher/slurm SlurmRunDir).
rm -rf "/tmp/psched-$uid-slurm-$job"
# The job's directory (contact file, start lock), as the user: root may not write a home
# on NFS (root_squash).
home=$(getent passwd "$user" | cut -d: -f6)
if [[ -n "$home" && -d "$home/.psched/$job" ]]; then
  runuser -u "$user" -- rm -rf "$home/.psched/$job"
fi
exit 0
