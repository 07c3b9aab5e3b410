#!/usr/bin/env bash
# fixture.sh setup|cleanup SOURCE_DIR MARKER
# The CTest fixture "slurm": setup starts the test Slurm (scripts/slurm-env.sh start) and
# leaves MARKER behind when it was not already running; cleanup stops Slurm only when
# MARKER says setup started it, so a cluster a developer brought up survives the tests.
set -euo pipefail
action=${1:?"usage: $0 setup|cleanup SOURCE_DIR MARKER"}
source_dir=${2:?"usage: $0 setup|cleanup SOURCE_DIR MARKER"}
marker=${3:?"usage: $0 setup|cleanup SOURCE_DIR MARKER"}
slurm_env="$source_dir/scripts/slurm-env.sh"

case "$action" in
  setup)
    if "$slurm_env" status >/dev/null 2>&1; then
      echo "fixture: the test Slurm is already running; it will be left running"
      rm -f "$marker"
    else
      "$slurm_env" start
      mkdir -p "$(dirname "$marker")"
      touch "$marker"
    fi
    "$slurm_env" status
    ;;
  cleanup)
    if [[ -e "$marker" ]]; then
      "$slurm_env" stop
      rm -f "$marker"
    else
      echo "fixture: Slurm was running before the tests; leaving it running"
    fi
    ;;
  *)
    echo "fixture: unknown action '$action' (expected setup or cleanup)" >&2
    exit 2
    ;;
esac
