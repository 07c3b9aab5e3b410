#!/usr/bin/env bash
# The README's main job: a small djsb (reconstructed metrics) on an emulated 4-node
# allocation, every psched policy and today's baseline, a few minutes on 2 cores.
# Prints the table and where the SVG report is.
#
#   scripts/demo.sh [extra psched-djsb options, e.g. --repeats 1]
#
# Environment: BUILD_DIR (default build), DEMO_NO_BUILD=1 to reuse an existing build.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build="$root/${BUILD_DIR:-build}"
out="$build/djsb-results"

if [[ -z "${DEMO_NO_BUILD:-}" ]]; then
  bash scripts/install-deps.sh
  # Same build type and folder as scripts/test.sh, so running one after the other rebuilds nothing.
  echo "== build (RelWithDebInfo) into $build =="
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$build" -j"$(nproc)"
fi

bin="$build/bin"
for tool in psched-exec psched-alloc pschedd psched-ctl psched-djsb psched-stream; do
  [[ -x "$bin/$tool" ]] || { echo "demo: $bin/$tool is missing: build first (unset DEMO_NO_BUILD)" >&2; exit 1; }
done

rc=0
echo "== djsb on an emulated allocation: psched-alloc -N 4 --topology 'pack:1 core:2 pu:1' =="
"$bin/psched-alloc" -N 4 --topology "pack:1 core:2 pu:1" -- \
  "$bin/psched-djsb" -c "$root/djsb/demo.toml" -o "$out" "$@" || rc=$?

if command -v rsvg-convert >/dev/null; then
  rsvg-convert -o "$out/djsb.png" "$out/djsb.svg" && echo "demo: PNG of the report: $out/djsb.png"
fi
echo "demo: SVG report: $out/djsb.svg"
# psched-djsb exits 3 when some scenario failed (the table says which and why).
exit "$rc"
