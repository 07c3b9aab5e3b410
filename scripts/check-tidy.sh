#!/usr/bin/env bash
# Runs clang-tidy (the repository's .clang-tidy) over every C++ source in the build's
# compile_commands.json and fails, listing the findings, if there is any. Not part of the
# test command: the whole tree takes 20-30 CPU-minutes. Usage: scripts/check-tidy.sh [BUILD_DIR]
#
# clang-tidy-16, not Debian's default 14: 14 crashes in readability-braces-around-statements
# on GCC 12's C++23 headers. Clang 16 knows C++23 as c++2b, and libstdc++ 12 declares
# std::expected only for __cpp_concepts >= 202002L, which clang 16 does not define yet:
# both are given on the command line. C files are left out (the extra args are C++'s), and
# so is djsb/stream_main.cpp (OpenMP: clang has no omp.h here).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
[[ -f $build/compile_commands.json ]] || {
  echo "check-tidy: no $build/compile_commands.json (configure the build first)" >&2
  exit 2
}
command -v run-clang-tidy-16 >/dev/null || {
  echo "check-tidy: run-clang-tidy-16 not found (apt-get install clang-tidy-16)" >&2
  exit 2
}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
run-clang-tidy-16 -p "$build" -j "$(nproc)" -quiet -clang-tidy-binary clang-tidy-16 \
  -extra-arg=-std=c++2b -extra-arg=-D__cpp_concepts=202002L \
  -extra-arg=-Wno-builtin-macro-redefined \
  "^$PWD/(?!djsb/stream_main\\.cpp)[^ ]*\\.cpp\$" >"$log" 2>&1 || true
findings=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E "^$PWD/[^ ]*: (warning|error):" | sort -u || true)
if [[ -n $findings ]]; then
  echo "$findings" >&2
  echo "check-tidy: $(wc -l <<<"$findings") finding(s)" >&2
  exit 1
fi
echo "check-tidy: clean"
