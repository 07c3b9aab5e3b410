#!/usr/bin/env bash
# Installs what psched needs, builds it, and runs every test:
#   1. the full build (unit, integration, MPI and Slurm end-to-end tests) under CTest;
#   2. every unit test (label "unit") again under AddressSanitizer + UndefinedBehaviorSanitizer;
#   3. the libFuzzer targets of tests/fuzz, built with clang in build-fuzz, 60 CPU seconds in all.
# Exit status: 0 only when all pass.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

bash scripts/install-deps.sh

echo "== build (RelWithDebInfo) =="
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$jobs"

echo "== tests =="
(cd build && ctest --output-on-failure -j"$jobs" --timeout 300)

echo "== unit tests under ASan+UBSan =="
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DPSCHED_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$jobs"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --output-on-failure -j"$jobs" -L unit)

echo "== fuzz targets (clang, libFuzzer, 60 CPU seconds in all) =="
if command -v clang++-16 >/dev/null; then
  CC=clang-16 CXX=clang++-16 cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DPSCHED_FUZZ=ON >/dev/null
  cmake --build build-fuzz -j"$jobs" --target psched_fuzzers
  (cd build-fuzz && ctest --output-on-failure -j"$jobs" -L fuzz)
else
  echo "clang++-16 not found: the fuzz targets are not built (scripts/install-deps.sh installs it)"
fi
