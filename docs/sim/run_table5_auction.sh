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

# run BASE ARGS...: one simulation into BASE.json and BASE.md, unless done or claimed.
run() {
  base=$1
  shift
  [ -e "$base.json" ] && return 0
  mkdir "$base.claim" 2> /dev/null || return 0
  echo "$(date -u +%T) $(basename "$base")"
  "$sim" "$@" --machine S --first-seed "$s" --seeds 1 --table auction -q \
    --json "$base.json.tmp" > "$base.md.tmp"
  mv "$base.md.tmp" "$base.md"
  mv "$base.json.tmp" "$base.json"
  rmdir "$base.claim"
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
