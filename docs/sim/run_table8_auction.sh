#!/bin/sh
# Auction runs of Table 8 (workload V on Machine-L, no SLURM bids), one process per cell
# and seed, each with EASY on the same workload, skipping runs whose JSON is already there.
# Seed-major order, cells in the order given, so a partial campaign covers the first cells.
# Several copies may run side by side (claim_run.sh). The solver limit counts CPU time.
#
# HOURS: work per workload. The paper's is 4 h; one 4 h cell costs 1-6 CPU-hours, so the
# committed runs use 0.5 h (docs/sim section 2b).
# CELLS (environment): VARIANT:WORKLOAD pairs, default all fourteen of the paper's table.
# Usage: docs/sim/run_table8_auction.sh PSCHED_SIM [FIRST_SEED [LAST_SEED [HOURS]]]
set -eu
sim=${1:?usage: run_table8_auction.sh PSCHED_SIM [FIRST_SEED [LAST_SEED [HOURS]]]}
first=${2:-1}
last=${3:-7}
hours=${4:-0.5}
cells=${CELLS:-default:V.1 default:V.2 default:V.3 contigonly:V.1 contigonly:V.2 \
largest:V.1 largest:V.2 largest:V.3 largest-shortsolve:V.1 largest-shortsolve:V.2 \
largest-shortsolve:V.3 largest-longsolve:V.1 largest-longsolve:V.2 largest-longsolve:V.3}
out=$(cd "$(dirname "$0")" && pwd)/runs/table8
mkdir -p "$out"

# shellcheck source=claim_run.sh
. "$(dirname "$0")/claim_run.sh"

# variant_flags VARIANT: the paper's variant as psched-sim's auction settings.
variant_flags() {
  case $1 in
    default) echo "--bids-per-job 5 --solver-time-limit 5" ;;
    contigonly) echo "--bids-per-job 5 --solver-time-limit 5 --contiguous-bids-only" ;;
    largest) echo "--bids-per-job 15 --solver-time-limit 5" ;;
    largest-shortsolve) echo "--bids-per-job 15 --solver-time-limit 3" ;;
    largest-longsolve) echo "--bids-per-job 15 --solver-time-limit 10" ;;
    *)
      echo "run_table8_auction.sh: unknown variant '$1' (default, contigonly, largest," \
        "largest-shortsolve, largest-longsolve)" >&2
      exit 2
      ;;
  esac
}

# run BASE ARGS...: one Machine-L simulation of seed $s with $hours of work.
run() {
  base=$1
  shift
  claim_run "$base" "$sim" "$@" --machine L --theoretical-hours "$hours" --first-seed "$s" \
    --seeds 1 --table auction
}

for cell in $cells; do variant_flags "${cell%%:*}" > /dev/null; done
s=$first
while [ "$s" -le "$last" ]; do
  for cell in $cells; do
    variant=${cell%%:*}
    w=${cell#*:}
    run "$out/easy_${w}_h${hours}_s$s" --auction "$w" --scheduler easy
    # shellcheck disable=SC2046 # the flags are words by design
    run "$out/auction_${variant}_${w}_h${hours}_s$s" --auction "$w" --scheduler auction \
      --no-baseline-bids --solver-clock cpu $(variant_flags "$variant")
  done
  s=$((s + 1))
done
