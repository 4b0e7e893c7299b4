#!/usr/bin/env bash
# Checks the code first (scripts/check.sh: clang-format, fixed by scripts/format.sh; tsc +
# eslint on the VS Code extension, beside the build), sets everything up (idempotent,
# including what the editor tests need: their npm packages install beside the build), builds
# with -Werror, runs clang-tidy over the built sources (scripts/check.sh --tidy, in the
# background beside the tests), and runs every test: pipeline unit and golden tests, LSP
# conversation tests, editor end-to-end tests (Neovim, Emacs, Vim, VS Code), the GPU tests
# (which skip without a GPU); the unit and LSP suites in a second build with clang, ASan and
# UBSan (built and run in the background meanwhile), then its libFuzzer targets over framing
# + dispatch and the decoders for a bounded time each from their kept corpora.
# Its time on a 2-core machine (the project's bar: under 20 minutes from a fresh clone) is
# mostly the -Werror build and the editors' tests, which leave the cores idle for the rest.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${KERNELSCOPE_BUILD_DIR:-$ROOT/build}
SANITIZE_DIR=${KERNELSCOPE_SANITIZE_BUILD_DIR:-$ROOT/build-sanitize}
export KERNELSCOPE_EXTRA_APT="neovim emacs-nox elpa-eglot vim vim-ale clang libclang-rt-14-dev chromium build-essential pkg-config python3 python3-jsonschema libkrb5-dev ripgrep clang-format clang-tidy-22 slurmctld slurmd slurm-client munge"

# Each step's line says when it came, in minutes since the start: where the time goes.
TEST_STARTED=$(date +%s)
say() {
  local t=$(($(date +%s) - TEST_STARTED))
  printf '[test] %d:%02d %s\n' $((t / 60)) $((t % 60)) "$*" >&2
}

# The quick check comes first, so a slip is reported in seconds.
"$ROOT/scripts/ensure-apt.sh" check clang-format nodejs ccache
"$ROOT/scripts/check.sh" --format || { say "code checks failed (see above)"; exit 1; }

# Jobs beside the build and the tests, each in a session of its own (setsid: its process
# group, ended with this script, whatever ends it) at a priority of its own.
#   in_background NICE LOG SCRIPT    runs the bash SCRIPT; its pid is $!
background_pids=()
in_background() {
  # A session is also a scheduling group of its own where the kernel groups by session
  # (autogroup), which would share the cores half and half whatever its nice value: that
  # group gets the same priority.
  nice -n "$1" setsid bash -c "{ echo $1 >/proc/self/autogroup; } 2>/dev/null
    $3" >"$2" 2>&1 &
  background_pids+=("$!")
}
end_background() {
  local job
  for job in "${background_pids[@]}"; do kill -TERM -- "-$job" 2>/dev/null || true; done
  rm -rf "$logs"
}
logs=$(mktemp -d)
trap end_background EXIT

# Warnings are errors in the test build (an existing build directory is switched over). The
# unit and language-server suites run in the sanitizer build only, so this one leaves them
# out of its default target (`cmake --build build --target ks_unit_tests ks_lsp_tests`
# builds them for a `ctest` there).
#
# Both builds compile through ccache, whose cache (the user's, ~/.cache/ccache unless
# CCACHE_DIR says otherwise) outlives the clone: on a machine that ran this command before,
# a fresh clone recompiles only the sources that changed since. Paths are hashed relative to
# the clone, so a clone elsewhere hits too (but for the sanitizer tree's unity sources, which
# include the sources by their absolute paths: those hit from a clone at the same path).
export CCACHE_BASEDIR=$ROOT CCACHE_NOHASHDIR=1
compiler_cache=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
export KERNELSCOPE_CMAKE_ARGS="-DKERNELSCOPE_WERROR=ON -DKERNELSCOPE_SUITES=OFF ${compiler_cache[*]}"
# shellcheck disable=SC2086  # the arguments, one by one
if [ -f "$BUILD_DIR/CMakeCache.txt" ]; then cmake $KERNELSCOPE_CMAKE_ARGS "$BUILD_DIR" >/dev/null; fi
"$ROOT/scripts/setup.sh" --packages
# Beside the build (at normal priority: their work is mostly waiting on npm's cache, the
# disk and node-gyp): the extension's tsc + eslint, read when the build is done, and the npm
# packages of the VS Code and report tests (code-server's install alone took 3-5 minutes of
# the tests' time on a fresh clone; the tests wait for an install still under way).
in_background 0 "$logs/lint" "$(declare -p ROOT); exec \"\$ROOT/scripts/check.sh\" --lint"
lint=$!
in_background 0 "$logs/editor-packages" "$(declare -p ROOT)
  \"\$ROOT/tests/editors/vscode/install.sh\" && \"\$ROOT/scripts/npm-deps.sh\" \"\$ROOT/tests/report\""
"$ROOT/scripts/setup.sh"
say "set up and built"
lint_status=0
wait "$lint" || lint_status=$?
cat "$logs/lint" >&2
[ "$lint_status" = 0 ] || { say "code checks failed (see above)"; exit 1; }

status=0
# The sanitizer build: clang, ASan and UBSan, at -O0 with line tables (40% less build time
# than -O2 -g, for suites that take about 10% longer; their time is mostly the tools', and
# ASan's reports keep their source lines); clang's warnings are errors there, the suites'
# included. It is a unity build (16 sources a unit): its time is mostly parsing the same
# LLVM, JSON and asio headers again for every source. (The -Werror build compiles each
# source alone, so a missing include still fails there.)
log=$SANITIZE_DIR/build.log
mkdir -p "$SANITIZE_DIR"
sanitizer_flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O0 -gline-tables-only -DNDEBUG"
                 -DKERNELSCOPE_WERROR=ON -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 "${compiler_cache[@]}")
build_sanitizer_tree() {
  if [ ! -f "$SANITIZE_DIR/CMakeCache.txt" ]; then
    cmake -S "$ROOT" -B "$SANITIZE_DIR" -G Ninja "${sanitizer_flags[@]}" -DCMAKE_CXX_COMPILER=clang++ \
          -DKERNELSCOPE_SANITIZE=ON -DKERNELSCOPE_FUZZ=ON >"$log" 2>&1 || return 1
  else
    cmake "${sanitizer_flags[@]}" "$SANITIZE_DIR" >"$log" 2>&1 || return 1
  fi
  cmake --build "$SANITIZE_DIR" --parallel "$(nproc)" --target kernelscope ks_unit_tests ks_lsp_tests ks_lsp_fuzz \
    ks_launch_spec_fuzz ks_gpu_exec_fuzz ks_result_store_fuzz \
    >>"$log" 2>&1
}
# The unit and LSP suites, which run the pipeline and the server in-process, run in the
# sanitizer build (the same tests, compiled by clang with ASan and UBSan), its fuzzers too;
# every test that drives the built kernelscope (conversations, probes, editors, GPU) runs in
# the -Werror build.
SANITIZER_SUITES='^(unit|lsp)\.(first|second)$'
SANITIZER_FUZZERS='^(lsp\.fuzz|fuzz\.ks_.*)$'
# The build, then the suites, then the fuzzers (CPU-bound, for a fixed time each, two at a
# time): exit status 3 when the build failed.
sanitizer_tree() {
  build_sanitizer_tree || return 3
  say "sanitizers: built; the suites"
  local status=0
  cd "$SANITIZE_DIR" || return 3
  # ASan's own alternate signal stack is off: LLVM installs one of its own (malloc'ed, 64 KiB
  # and the system's minimum) on the first thread that registers its signal handlers, a
  # compile's worker in the server's suite, and ASan unmapping it as that thread ends fails
  # its CHECK ("unable to unmap").
  export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=use_sigaltstack=0
  # The limit guards against a hang, not slowness: a half takes about 400 s at -O0 under ASan
  # and half as long again beside the other build's VS Code test.
  ctest --output-on-failure --timeout 1200 -j2 -R "$SANITIZER_SUITES" || status=1
  say "sanitizers: the fuzzers"
  ctest --output-on-failure --timeout 600 -j2 -R "$SANITIZER_FUZZERS" || status=1
  say "sanitizers: done"
  return $status
}
# Both beside the tests of the -Werror build, which run one at a time and mostly wait on
# editors and tools: at nice 10 they take the idle cores (CFS gives such a job about a tenth
# of a core another job wants), so the editors' timings stay as they were written for, and
# their 10 minutes of compiling and testing mostly vanish from the run.
say "sanitizers: building with clang, ASan and UBSan in $SANITIZE_DIR and running the suites there (in the background)"
in_background 10 "$logs/sanitizer" "$(declare -p ROOT SANITIZE_DIR log sanitizer_flags SANITIZER_SUITES SANITIZER_FUZZERS TEST_STARTED)
  $(declare -f say build_sanitizer_tree sanitizer_tree); sanitizer_tree"
sanitizer=$!

# clang-tidy (.clang-tidy's few checks) over the C++ the build compiles, after the build:
# about 120 files of LLVM-heavy C++ in 20 unity files, two minutes of both cores, which the
# tests below mostly leave idle. So it runs beside them as the sanitizer tree does, at the
# lowest priority (its verdict is needed last), and its verdict is read when they are done.
in_background 19 "$logs/tidy" "$(declare -p ROOT BUILD_DIR); exec \"\$ROOT/scripts/check.sh\" --tidy \"\$BUILD_DIR\""
tidy=$!

IN_SANITIZER_BUILD="$SANITIZER_SUITES|$SANITIZER_FUZZERS"
# -j2 (tests/CMakeLists.txt): each of these runs alone.
(cd "$BUILD_DIR" && ctest --output-on-failure --timeout 1500 -j2 -E "$IN_SANITIZER_BUILD" "$@") || status=$?
say "the tests are done"

say "clang-tidy: waiting for it"
tidy_status=0
wait "$tidy" || tidy_status=$?
cat "$logs/tidy" >&2
if [ "$tidy_status" != 0 ]; then say "clang-tidy failed (see above)"; status=1; fi

say "sanitizers: waiting for the suites in $SANITIZE_DIR"
sanitizer_status=0
wait "$sanitizer" || sanitizer_status=$?
if [ "$sanitizer_status" = 3 ]; then
  grep -E "error|FAILED|CMake Error" "$log" | head -30 >&2 || tail -30 "$log" >&2
  say "the sanitizer build failed (full log: $log)"
  exit 1
fi
cat "$logs/sanitizer"
[ "$sanitizer_status" = 0 ] || status=1
exit $status
