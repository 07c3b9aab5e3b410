#!/usr/bin/env bash
# The README's main job: a small djsb (reconstructed metrics) on an emulated 4-node
# allocation, every psched policy and today's baseline, a few minutes on 2 cores.
# Prints the table and where the SVG report is.
#
#   scripts/demo.sh [extra psched-djsb options, e.g. --repeats 1]
#
# Environment: BUILD_DIR (default build), DEMO_NO_BUILD=1 to reuse an existing build.
#
# Until psched-exec / psched-alloc are built it says what is missing and runs only
# today's baseline (mpirun --oversubscribe), so the report still shows that column.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build="$root/${BUILD_DIR:-build}"
out="$build/djsb-results"

if [[ -z "${DEMO_NO_BUILD:-}" ]]; then
  bash scripts/install-deps.sh
  echo "== build (Release) into $build =="
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  if ! cmake --build "$build" -j"$(nproc)"; then
    echo "demo: the full build failed; building only djsb's programs" >&2
    cmake --build "$build" -j"$(nproc)" --target psched-stream psched-djsb
  fi
fi

bin="$build/bin"
missing=()
for tool in psched-exec psched-alloc pschedd psched-ctl; do
  [[ -x "$bin/$tool" ]] || missing+=("$tool")
done

djsb=("$bin/psched-djsb" -c "$root/djsb/demo.toml" -o "$out" "$@")
rc=0
if [[ " ${missing[*]} " == *" psched-exec "* || " ${missing[*]} " == *" psched-alloc "* ]]; then
  echo "demo: MISSING ${missing[*]} in $bin: running today's baseline only" >&2
  echo "demo: (the policy columns need psched-exec and psched-alloc from launcher/ and daemon/)" >&2
  "${djsb[@]}" --baseline-only || rc=$?
else
  ((${#missing[@]})) && echo "demo: note: ${missing[*]} missing; states come from /proc" >&2
  echo "== djsb on an emulated allocation: psched-alloc -N 4 --topology 'pack:1 core:2 pu:1' =="
  "$bin/psched-alloc" -N 4 --topology "pack:1 core:2 pu:1" -- "${djsb[@]}" || rc=$?
fi

if command -v rsvg-convert >/dev/null; then
  rsvg-convert -o "$out/djsb.png" "$out/djsb.svg" && echo "demo: PNG of the report: $out/djsb.png"
fi
echo "demo: SVG report: $out/djsb.svg"
# psched-djsb exits 3 when some scenario failed (the table says which and why).
exit "$rc"
