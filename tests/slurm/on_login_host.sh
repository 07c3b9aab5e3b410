#!/usr/bin/env bash
# on_login_host.sh [--keep DIR]... [--] CMD...
#
# Runs CMD as if on a login host, away from the allocation's nodes: in a mount namespace of
# its own whose /tmp is an empty tmpfs, so the leader's Unix socket (/tmp/psched-UID-slurm-JOB
# on the first node) is out of its sight, as on another host. Each --keep DIR under /tmp (the
# build and source trees, the test Slurm's configuration) is bound back into that /tmp; DIRs
# elsewhere are visible anyway. Needs root (unshare -m). Used by tests/slurm and bench/launch.
set -euo pipefail
keep=()
while (($#)); do
  case "$1" in
    --keep) keep+=("${2:?"--keep needs a directory"}"); shift 2 ;;
    --) shift; break ;;
    *) break ;;
  esac
done
(($#)) || { echo "on_login_host.sh: no command given" >&2; exit 2; }
hold=$(mktemp -d /run/psched-login-host.XXXXXX)
rc=0
# shellcheck disable=SC2016 # expanded by the inner shell
unshare -m --propagation private bash -c '
  set -e
  hold=$1 count=$2
  shift 2
  mount --bind /tmp "$hold"
  mount -t tmpfs -o mode=1777 psched-login-tmp /tmp
  for ((i = 0; i < count; i++)); do
    case "$1" in /tmp/*)
      mkdir -p "$1"
      mount --bind "$hold/${1#/tmp/}" "$1" ;;
    esac
    shift
  done
  umount -l "$hold"
  exec "$@"
' on_login_host "$hold" "${#keep[@]}" "${keep[@]}" "$@" || rc=$?
rmdir "$hold" 2>/dev/null || true
exit "$rc"
