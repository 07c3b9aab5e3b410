#!/usr/bin/env bash
# Fails, naming the files, when a C or C++ source differs from what clang-format makes of
# it with the repository's .clang-format. CTest runs it (test "clang_format_clean").
set -euo pipefail
cd "$(dirname "$0")/.."
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.c' '*.h' '*.cpp' '*.hpp')
else
  mapfile -t files < <(find . -path ./build\* -prune -o -type f \( -name '*.c' -o -name '*.h' \
    -o -name '*.cpp' -o -name '*.hpp' \) -print)
fi
bad=()
for f in "${files[@]}"; do
  clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if ((${#bad[@]})); then
  echo "check-format: ${#bad[@]} file(s) not clang-formatted (run clang-format -i on them):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files clang-formatted"
