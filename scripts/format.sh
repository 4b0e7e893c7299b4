#!/usr/bin/env bash
# Formats every tracked C++ file with the repository's .clang-format:
#   scripts/format.sh           rewrite the files in place
#   scripts/format.sh --check   change nothing; list the files that differ and fail
# Uses clang-format 14 (Debian's `clang-format`; other releases format differently),
# or $CLANG_FORMAT.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CLANG_FORMAT=${CLANG_FORMAT:-$(command -v clang-format-14 || command -v clang-format || true)}
if [ -z "$CLANG_FORMAT" ]; then
  echo "format: clang-format not found (apt-get install clang-format)" >&2
  exit 2
fi
cd "$ROOT"
mapfile -t files < <(git ls-files -- '*.cpp' '*.h')
if [ "${1:-}" = "--check" ]; then
  mapfile -t bad < <("$CLANG_FORMAT" --dry-run --Werror "${files[@]}" 2>&1 | grep -oE '^[^:]+:[0-9]+:[0-9]+: error' |
                     cut -d: -f1 | sort -u)
  if [ ${#bad[@]} -gt 0 ]; then
    echo "format: ${#bad[@]} file(s) are not clang-format clean; fix them with scripts/format.sh:" >&2
    printf '  %s\n' "${bad[@]}" >&2
    exit 1
  fi
  exit 0
fi
"$CLANG_FORMAT" -i "${files[@]}"
