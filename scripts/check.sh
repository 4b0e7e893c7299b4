#!/usr/bin/env bash
# The code checks of the test command, each failing with a message that says how to fix it:
#   scripts/check.sh               clang-format (fix: scripts/format.sh), tsc --noEmit + eslint
#   scripts/check.sh --format      clang-format only
#   scripts/check.sh --lint        tsc --noEmit + eslint only
#   scripts/check.sh --tidy BUILD  clang-tidy (.clang-tidy's checks) over the C++ sources
#                                  compiled in BUILD (needs its compile_commands.json)
# (The -Werror build is the test command's own.)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
say() { printf '[check] %s\n' "$*" >&2; }

if [ "${1:-}" = "--tidy" ]; then
  build=${2:?usage: check.sh --tidy BUILD_DIR}
  # LLVM 22's (the release the build links): it skips the system headers' declarations,
  # which halves the time 14's took over this code (minutes of both cores in the test command).
  # Its deprecation warnings are left to the build's compiler: clang 22 reports GCC 12's
  # libstdc++ using its own deprecated std::get_temporary_buffer (std::stable_sort).
  tidy=$(command -v clang-tidy-22 || command -v clang-tidy || true)
  [ -n "$tidy" ] || { say "clang-tidy not found (apt-get install clang-tidy-22)"; exit 2; }
  [ -f "$build/compile_commands.json" ] || { say "no $build/compile_commands.json: configure the build first"; exit 2; }
  cd "$ROOT"
  mapfile -t sources < <(git ls-files -- 'pipeline/*.cpp' 'protocol/*.cpp' 'server/*.cpp')
  # The sources of one target 16 at a time, through files that include them (tidy-units.py
  # says why: a sixth of the time); a source the build does not compile, alone.
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  mapfile -t units < <(python3 "$ROOT/scripts/tidy-units.py" "$build" "$work" "${sources[@]}" 2>"$work/alone")
  mapfile -t alone <"$work/alone"
  [ ${#units[@]} -gt 0 ] || { say "clang-tidy: no sources of $build/compile_commands.json to check"; exit 2; }
  say "clang-tidy: ${#sources[@]} files (${#units[@]} unity files, ${#alone[@]} alone)"
  tidy_args=(--config-file="$ROOT/.clang-tidy" --quiet --extra-arg=-Wno-unknown-warning-option
             --extra-arg=-Wno-deprecated-declarations)
  log=$work/log
  if ! { printf '%s\n' "${units[@]}" | xargs -r -P "$(nproc)" -n 1 "$tidy" -p "$work" "${tidy_args[@]}" &&
         printf '%s\n' "${alone[@]}" | xargs -r -P "$(nproc)" -n 4 "$tidy" -p "$build" "${tidy_args[@]}"; } >"$log" 2>&1; then
    grep -E "(error|warning):" "$log" | sort -u >&2 || tail -30 "$log" >&2
    say "clang-tidy found problems (checks in .clang-tidy)"
    exit 1
  fi
  say "clang-tidy: clean"
  exit 0
fi

status=0
if [ "${1:-}" != "--lint" ]; then
  "$ROOT/scripts/format.sh" --check || status=1
  [ $status -eq 0 ] && say "clang-format: clean"
  [ "${1:-}" = "--format" ] && exit $status
fi

ext=$ROOT/editors/vscode
"$ROOT/scripts/npm-deps.sh" "$ext" || { say "npm ci failed"; exit 1; }
if (cd "$ext" && npm run --silent lint); then
  say "VS Code extension: tsc --noEmit and eslint clean"
else
  say "VS Code extension: tsc --noEmit or eslint failed (cd editors/vscode && npm run lint)"
  status=1
fi
exit $status
