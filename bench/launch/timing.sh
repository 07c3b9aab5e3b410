# shellcheck shell=bash
# Timing helpers for the launch benchmarks (source this file from bash >= 5).
#
# Wall time comes from $EPOCHREALTIME, which bash reads without forking, so the probe
# itself costs microseconds rather than the millisecond of a `date +%s%N` process.
#
#   timing_run_us VAR CMD...   run CMD (stdout/stderr to $TIMING_LOG or /dev/null) and store
#                              its wall time in microseconds in VAR; returns CMD's status
#   timing_stats US...         print "median min max" in microseconds
#   timing_ms US               print microseconds as milliseconds with one decimal
#   timing_ratio A B           print A/B with one decimal (or "n/a" when B is 0)

timing_run_us() {
  local -n out_us=$1
  shift
  local t0 t1 rc=0
  t0=${EPOCHREALTIME/./}
  "$@" >>"${TIMING_LOG:-/dev/null}" 2>&1 </dev/null || rc=$?
  t1=${EPOCHREALTIME/./}
  out_us=$((10#$t1 - 10#$t0))
  return "$rc"
}

timing_stats() {
  printf '%s\n' "$@" | sort -n | awk '
    { v[NR] = $1 }
    END {
      if (NR == 0) { print "0 0 0"; exit }
      m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
      printf "%d %d %d\n", m, v[1], v[NR]
    }'
}

timing_ms() {
  awk -v us="$1" 'BEGIN { printf "%.1f", us / 1000 }'
}

timing_ratio() {
  awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else printf "n/a" }'
}
