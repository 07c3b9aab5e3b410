#!/usr/bin/env bash
# The README's main job: a small djsb (reconstructed metrics) on an emulated allocation
# sized to this machine's real cores (one real core per emulated PU: 2 cores give 2 nodes
# x 1 PU, 16 give 4 x 4, 160 the paper's 4 x 40), every psched policy and today's
# baseline, repeated until each D's 95% interval is tight; about 4 minutes on 2 cores.
# Prints progress, the table, the verdict and where the SVG report is.
#
#   scripts/demo.sh [extra psched-djsb options, e.g. --check to print the plan]
#   scripts/demo.sh --interactive [options]   the interactive djsb (djsb/interactive.toml):
#     analyses pull slices from the running simulation through MPI; one node of 2 PUs,
#     every scenario once, about a minute on 2 cores (outside the main job's budget)
#
# Environment: BUILD_DIR (default build), DEMO_NO_BUILD=1 to reuse an existing build.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build="$root/${BUILD_DIR:-build}"
out="$build/djsb-results"
interactive=
if [[ "${1:-}" == --interactive ]]; then
  interactive=1
  shift
  out="$build/djsb-interactive"
fi

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
if [[ -n "$interactive" ]]; then
  echo "== interactive djsb: psched-alloc -N 1 --topology 'pack:1 core:2 pu:1' =="
  "$bin/psched-alloc" -N 1 --topology "pack:1 core:2 pu:1" -- \
    "$bin/psched-djsb" -c "$root/djsb/interactive.toml" -o "$out" "$@" || rc=$?
else
  read -r nodes topology < <("$bin/psched-djsb" --demo-allocation)
  echo "== djsb on this machine's real cores: psched-alloc -N $nodes --topology '$topology' =="
  "$bin/psched-alloc" -N "$nodes" --topology "$topology" -- \
    "$bin/psched-djsb" -c "$root/djsb/demo.toml" --machine-sized -o "$out" "$@" || rc=$?
fi

[[ -f "$out/djsb.svg" ]] || exit "$rc"  # --check, or nothing ran
if command -v rsvg-convert >/dev/null; then
  rsvg-convert -o "$out/djsb.png" "$out/djsb.svg" && echo "demo: PNG of the report: $out/djsb.png"
fi
echo "demo: SVG report: $out/djsb.svg"
# psched-djsb exits 3 when some scenario failed (the table says which and why), 2 when it
# could not run (a folded allocation among others: it says why).
exit "$rc"
