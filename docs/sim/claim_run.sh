# shellcheck shell=sh
# Sourced by the campaign scripts (run_table5_auction.sh, run_table8_auction.sh).
# claim_run BASE COMMAND...: one psched-sim run (COMMAND -q --json ...) into BASE.json and BASE.md,
# unless BASE.json is there already or another copy of a campaign claimed BASE (mkdir is
# the claim, so several copies can share one campaign). Half-written output stays in
# BASE.*.tmp; a copy killed mid-run leaves BASE.claim behind, remove it to rerun.
claim_run() {
  base=$1
  shift
  [ -e "$base.json" ] && return 0
  mkdir "$base.claim" 2> /dev/null || return 0
  echo "$(date -u +%T) $(basename "$base")"
  "$@" -q --json "$base.json.tmp" > "$base.md.tmp"
  mv "$base.md.tmp" "$base.md"
  mv "$base.json.tmp" "$base.json"
  rmdir "$base.claim"
}
