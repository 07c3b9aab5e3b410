# shellcheck shell=bash
# Helpers shared by the Slurm end-to-end tests (source from bash).
#
# Every test script is called as `SCRIPT BUILD_DIR SOURCE_DIR [--inside]`: it checks its
# prerequisites, then re-runs itself with --inside under `salloc`, and checks afterwards
# what must hold once the allocation is gone.
set -euo pipefail

build_dir=${1:?"usage: $0 BUILD_DIR SOURCE_DIR"}
source_dir=${2:?"usage: $0 BUILD_DIR SOURCE_DIR"}
inside=${3:-}
bin="$build_dir/bin"
psched_exec="$bin/psched-exec"
psched_ctl="$bin/psched-ctl"
slurm_env="$source_dir/scripts/slurm-env.sh"
test_name=$(basename "$0" .sh)

# Clients find the test cluster that the `slurm` fixture started.
eval "$("$slurm_env" env)"

fail() {
  echo "$test_name: FAIL: $*" >&2
  exit 1
}
note() { echo "$test_name: $*"; }

require_binary() {
  [[ -x "$1" ]] || fail "$1 is missing: build it first (cmake --build BUILD --target $(basename "$1"))"
}

require_slurm() {
  "$slurm_env" status >/dev/null 2>&1 ||
    fail "the test Slurm is not running: run '$slurm_env start' (the CTest fixture 'slurm' does)"
}

# make_test_work: PSCHED_TEST_WORK, a directory the outer run and its --inside run in the
# allocation share (exported), removed when the outer run exits.
make_test_work() {
  PSCHED_TEST_WORK=$(mktemp -d /tmp/psched-slurm-test.XXXXXX)
  export PSCHED_TEST_WORK
  trap 'rm -rf "$PSCHED_TEST_WORK"' EXIT
}

# run_in_salloc NODES: re-run this script with --inside in a fresh allocation. salloc's
# --time bounds a test that hangs; the allocation's end cleans up what it started.
run_in_salloc() {
  local nodes=$1
  timeout 180 salloc --quiet -N "$nodes" --time=3 -- "$0" "$build_dir" "$source_dir" --inside
}

# pschedd processes that belong to Slurm job JOB (their environ has SLURM_JOB_ID=JOB),
# one "PID NODE" line each, NODE from SLURMD_NODENAME.
daemons_of_job() {
  local job=$1 dir pid env_text node
  for dir in /proc/[0-9]*; do
    pid=${dir#/proc/}
    [[ "$(cat "$dir/comm" 2>/dev/null)" == pschedd ]] || continue
    env_text=$(tr '\0' '\n' 2>/dev/null <"$dir/environ") || continue
    grep -qx "SLURM_JOB_ID=$job" <<<"$env_text" || continue
    node=$(sed -n 's/^SLURMD_NODENAME=//p' <<<"$env_text")
    echo "$pid ${node:-?}"
  done | sort -n
}

# Any process still carrying SLURM_JOB_ID=JOB in its environment ("PID COMM" lines).
processes_of_job() {
  local job=$1 dir
  for dir in /proc/[0-9]*; do
    [[ "$dir" == "/proc/$$" || "$dir" == "/proc/$BASHPID" ]] && continue
    tr '\0' '\n' 2>/dev/null <"$dir/environ" | grep -qx "SLURM_JOB_ID=$job" || continue
    echo "${dir#/proc/} $(cat "$dir/comm" 2>/dev/null)"
  done
}

# wait_until SECONDS DESCRIPTION CMD...: poll CMD every 0.1 s until it succeeds; fail after
# SECONDS (generous: the machine is small and shared).
wait_until() {
  local seconds=$1 what=$2
  shift 2
  local deadline=$((SECONDS + seconds))
  until "$@"; do
    ((SECONDS < deadline)) || fail "timed out after ${seconds}s waiting for $what"
    sleep 0.1
  done
}

# wait_job_dir_gone JOB: wait until the job's shared directory ~/.psched/JOB (contact file,
# start lock) is gone: the leader removes it when Slurm ends it with the allocation.
wait_job_dir_gone() {
  local dir="$HOME/.psched/$1"
  job_dir_gone() { [[ ! -e "$dir" ]]; }
  wait_until 60 "the job's directory $dir to be removed" job_dir_gone
  note "ok: $dir is gone with the allocation"
}

# on_login_host CMD...: run CMD as a launcher on a login host, away from the allocation's
# nodes (on_login_host.sh: its own mount namespace with a private /tmp).
on_login_host() {
  "$source_dir/tests/slurm/on_login_host.sh" --keep "$source_dir" --keep "$build_dir" \
    --keep "$(dirname "$SLURM_CONF")" -- "$@"
}
