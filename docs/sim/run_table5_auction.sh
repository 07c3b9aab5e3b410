#!/bin/sh
# Auction runs of Table 5 (Machine-S), one process per workload and seed, skipping runs
# whose JSON is already there. Seed-major order: every workload gets seed s before any gets
# seed s+1, so a partial campaign still covers every row.
# Several copies may run side by side: a run is claimed with mkdir before it starts.
# The solver limit counts CPU time (--solver-clock cpu), so a loaded machine does not
# change the results (each copy must run one simulation at a time: -j 1).
#
# PRIORITY fcfs (default): the table's runs, runs/table5/auction_W_sS.*.
# Any other priority module (multifactor): runs/table5/PRIORITY/, where each workload and
# seed also gets EASY with that priority on the whole queue (easy_W_sS) and 100 jobs deep
# (easy_depth100_W_sS), the comparison make_tables.py lays out.
# WORKLOADS (environment): the rows to run, default all fifteen.
# Usage: docs/sim/run_table5_auction.sh PSCHED_SIM [FIRST_SEED [LAST_SEED [PRIORITY]]]
set -eu
sim=${1:?usage: run_table5_auction.sh PSCHED_SIM [FIRST_SEED [LAST_SEED [PRIORITY]]]}
first=${2:-1}
last=${3:-7}
priority=${4:-fcfs}
workloads=${WORKLOADS:-I.1 I.2 I.3 II.1 II.2 II.3 III.1 III.2 III.3 IV.1 IV.2 IV.3 V.1 V.2 V.3}
out=$(cd "$(dirname "$0")" && pwd)/runs/table5
scheduler=auction
if [ "$priority" != fcfs ]; then
  out=$out/$priority
  scheduler=auction/$priority
  mkdir -p "$out"
fi

# shellcheck source=claim_run.sh
. "$(dirname "$0")/claim_run.sh"

# run BASE ARGS...: one Machine-S simulation of seed $s, laid out like Table 5.
run() {
  base=$1
  shift
  claim_run "$base" "$sim" "$@" --machine S --first-seed "$s" --seeds 1 --table auction
}

s=$first
while [ "$s" -le "$last" ]; do
  for w in $workloads; do
    run "$out/auction_${w}_s$s" --auction "$w" --scheduler "$scheduler" \
      --bids-per-job 5 --solver-time-limit 5 --solver-clock cpu
    if [ "$priority" != fcfs ]; then
      run "$out/easy_${w}_s$s" --auction "$w" --scheduler "easy/$priority"
      run "$out/easy_depth100_${w}_s$s" --auction "$w" --scheduler "easy/$priority" --queue-depth 100
    fi
  done
  s=$((s + 1))
done
