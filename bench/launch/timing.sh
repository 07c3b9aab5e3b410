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
#   timing_table_header        print the header of a table of rows (min, median, max in ms)
#   timing_table_row LABEL US...  print LABEL's row of that table; its median (us) goes to
#                              TIMING_MEDIAN
#   timing_target A B TEXT     print "TEXT: met" when A <= B, else "TEXT: MISSED" and set
#                              TIMING_MISSED=1 (a script's --check exits 1 then)
#   usage                      print the sourcing script's header comment (its --help):
#                              from line 2 up to its `set -euo` line
#   die TEXT...                print "NAME: error: TEXT" (NAME: the script's, without .sh)
#                              on stderr and exit 2, the benchmarks' status for bad usage

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }

die() {
  echo "$(basename "$0" .sh): error: $*" >&2
  exit 2
}

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

timing_table_header() {
  printf '  %-40s %9s %9s %9s\n' "command" "min ms" "median ms" "max ms"
}

TIMING_MEDIAN=0
timing_table_row() {
  local label=$1 med lo hi
  shift
  read -r med lo hi <<<"$(timing_stats "$@")"
  TIMING_MEDIAN=$med
  printf '  %-40s %9s %9s %9s\n' "$label" "$(timing_ms "$lo")" "$(timing_ms "$med")" \
    "$(timing_ms "$hi")"
}

TIMING_MISSED=0
timing_target() {
  if awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; then
    echo "$3: met"
  else
    echo "$3: MISSED"
    TIMING_MISSED=1
  fi
}
