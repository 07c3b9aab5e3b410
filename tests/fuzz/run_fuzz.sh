#!/bin/sh
# Runs one libFuzzer target for SECONDS, at most RUNS inputs: new inputs go to WORK/corpus
# (the committed seeds in SEEDS are only read), a crash's input to WORK/. A fixed seed and
# a bounded count: the same inputs in the same order on every machine, however fast, so
# what CI finds is found again here, and CI never fails by chance on a finding older than
# the change it tests (a longer hunt: run the target by hand, README.md). Usage:
#   run_fuzz.sh FUZZER SEEDS WORK SECONDS RUNS
set -eu
fuzzer=$1 seeds=$2 work=$3 seconds=$4 runs=$5
rm -rf "$work"
mkdir -p "$work/corpus"
exec "$fuzzer" -seed=1 -max_total_time="$seconds" -runs="$runs" -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix="$work/" -print_final_stats=1 "$work/corpus" "$seeds"
