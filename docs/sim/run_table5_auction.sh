#!/bin/sh
# Auction runs of Table 5 (Machine-S), one process per workload and seed, skipping runs
# whose JSON is already under docs/sim/runs/table5/. Seed-major order: every workload gets
# seed s before any gets seed s+1, so a partial campaign still covers every row.
# Several copies may run side by side: a run is claimed with mkdir before it starts.
# The solver limit counts CPU time (--solver-clock cpu), so a loaded machine does not
# change the results (each copy must run one simulation at a time: -j 1).
# Usage: docs/sim/run_table5_auction.sh PSCHED_SIM [FIRST_SEED [LAST_SEED]]
set -eu
sim=${1:?usage: run_table5_auction.sh PSCHED_SIM [FIRST_SEED [LAST_SEED]]}
first=${2:-1}
last=${3:-7}
out=$(cd "$(dirname "$0")" && pwd)/runs/table5
s=$first
while [ "$s" -le "$last" ]; do
  for w in I.1 I.2 I.3 II.1 II.2 II.3 III.1 III.2 III.3 IV.1 IV.2 IV.3 V.1 V.2 V.3; do
    base=$out/auction_${w}_s$s
    [ -e "$base.json" ] && continue
    mkdir "$base.claim" 2> /dev/null || continue
    echo "$(date -u +%T) auction $w seed $s"
    "$sim" --auction "$w" --machine S --first-seed "$s" --seeds 1 --scheduler auction \
      --bids-per-job 5 --solver-time-limit 5 --solver-clock cpu --table auction -q \
      --json "$base.json.tmp" > "$base.md.tmp"
    mv "$base.md.tmp" "$base.md"
    mv "$base.json.tmp" "$base.json"
    rmdir "$base.claim"
  done
  s=$((s + 1))
done
