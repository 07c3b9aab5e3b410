#!/usr/bin/env bash
# psched-exec from a step shell on the first node (`srun -N1 -n1 --overlap bash`, a common
# way to get a shell there): the leader daemon still starts on n1 and there is exactly one
# daemon per node (without srun --relative=0 the leader's step landed on n2, beside node 1's).
# Were it to land there anyway (an srun that drops --relative=0), the start fails with an
# error naming both nodes.
source "$(dirname "$0")/lib.sh"

if [[ "$inside" == --inside ]]; then
  out=$(timeout 120 srun --overlap -N1 -n1 "$psched_exec" -N 4 --ppn 1 -n 4 \
    sh -c 'echo "$PSCHED_NODE $SLURMD_NODENAME"' 2>&1) || fail "psched-exec in a step shell: $out"
  daemons=$(daemons_of_job "$SLURM_JOB_ID")
  note "daemons (pid node):"$'\n'"$daemons"
  [[ "$(awk '{print $2}' <<<"$daemons" | sort | tr '\n' ' ')" == "n1 n2 n3 n4 " ]] ||
    fail "want exactly one daemon on each of n1..n4"
  [[ "$(sort <<<"$out" | tr '\n' ' ')" == "0 n1 1 n2 2 n3 3 n4 " ]] ||
    fail "ranks ran on (PSCHED_NODE SLURMD_NODENAME): $out"
  note "ok: leader on n1, one daemon per node"
  exit 0
fi

require_slurm
require_binary "$psched_exec"
run_in_salloc 4 || fail "the checks inside salloc -N4 failed (see above)"

fake=$(mktemp -d /tmp/psched-slurm-test.XXXXXX)
trap 'rm -rf "$fake"' EXIT
printf '%s\n' '#!/bin/bash' 'args=()' \
  'for a in "$@"; do [[ "$a" == --relative=0 ]] || args+=("$a"); done' \
  "exec $(command -v srun) \"\${args[@]}\"" >"$fake/srun"
chmod +x "$fake/srun"
out=$(timeout 120 salloc --quiet -N4 --time=3 -- srun --overlap -N1 -n1 \
  env PATH="$fake:$PATH" "$psched_exec" -n 1 /bin/true 2>&1) &&
  fail "two daemons on n2 were not refused: $out"
grep -q "node 1 joins from Slurm node n2, where node 0's daemon already runs" <<<"$out" ||
  fail "the refusal does not name both nodes: $out"
note "ok: a second daemon on n2 is refused"
