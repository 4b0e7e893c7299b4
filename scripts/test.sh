#!/usr/bin/env bash
# Checks the code first (scripts/check.sh: clang-format, fixed by scripts/format.sh; tsc +
# eslint on the VS Code extension), sets
# everything up (idempotent, including what the editor tests need), builds with -Werror,
# runs clang-tidy over the built sources (scripts/check.sh --tidy, in the background beside
# the tests), and runs every test: pipeline unit and golden tests, LSP conversation tests, editor end-to-end
# tests (Neovim, Emacs, Vim, VS Code), the GPU tests (which skip without a GPU); then,
# in a second build with clang, ASan and UBSan (built in the background meanwhile), the unit
# and LSP suites and the libFuzzer target over framing + dispatch for a bounded time from its
# kept corpus.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${KERNELSCOPE_BUILD_DIR:-$ROOT/build}
SANITIZE_DIR=${KERNELSCOPE_SANITIZE_BUILD_DIR:-$ROOT/build-sanitize}
export KERNELSCOPE_EXTRA_APT="neovim emacs-nox elpa-eglot vim vim-ale clang libclang-rt-14-dev chromium build-essential pkg-config python3 python3-jsonschema libkrb5-dev ripgrep clang-format clang-tidy slurmctld slurmd slurm-client munge"

# The quick checks come first, so a slip is reported in seconds.
"$ROOT/scripts/ensure-apt.sh" check clang-format nodejs
"$ROOT/scripts/check.sh" || { echo "[test] code checks failed (see above)" >&2; exit 1; }

# Warnings are errors in the test build (an existing build directory is switched over). The
# unit and language-server suites run in the sanitizer build only, so this one leaves them
# out of its default target (`cmake --build build --target ks_unit_tests ks_lsp_tests`
# builds them for a `ctest` there).
export KERNELSCOPE_CMAKE_ARGS="-DKERNELSCOPE_WERROR=ON -DKERNELSCOPE_SUITES=OFF"
# shellcheck disable=SC2086  # the arguments, one by one
if [ -f "$BUILD_DIR/CMakeCache.txt" ]; then cmake $KERNELSCOPE_CMAKE_ARGS "$BUILD_DIR" >/dev/null; fi
"$ROOT/scripts/setup.sh"

status=0
# The sanitizer build: clang, ASan and UBSan, at -O0 with line tables (40% less build time
# than -O2 -g, for suites that take about 10% longer; their time is mostly the tools', and
# ASan's reports keep their source lines); clang's warnings are errors there, the suites'
# included.
log=$SANITIZE_DIR/build.log
mkdir -p "$SANITIZE_DIR"
sanitizer_flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O0 -gline-tables-only -DNDEBUG"
                 -DKERNELSCOPE_WERROR=ON)
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
# It builds at the lowest priority (as clang-tidy runs) beside the tests of the -Werror build,
# which run one at a time and mostly wait on editors and tools: it takes the idle cores
# (CFS gives a nice-19 job about 1.5% of a core another job wants), so the editors' timings
# stay as they were written for, and its 400 s of compiling mostly vanish from the run. In
# a session of its own (setsid, for its process group) it is also a scheduling group of its
# own where the kernel groups by session (autogroup), which would share the cores half and
# half whatever its nice value: that group is set to the lowest priority as well.
echo "[test] sanitizers and fuzzing: building with clang, ASan and UBSan in $SANITIZE_DIR (in the background)" >&2
nice -n 19 setsid bash -c "{ echo 19 >/proc/self/autogroup; } 2>/dev/null
  $(declare -p ROOT SANITIZE_DIR log sanitizer_flags); $(declare -f build_sanitizer_tree); build_sanitizer_tree" &
sanitizer_build=$!
# It ends with this script, whatever ends it (its process group: cmake, ninja, the compilers).
trap 'kill -TERM -- "-$sanitizer_build" 2>/dev/null || true' EXIT

# clang-tidy (.clang-tidy's few checks) over the C++ the build compiles, after the build:
# about 110 files of LLVM-heavy C++, minutes of both cores, which the tests below mostly
# leave idle. So it runs beside them as the sanitizer build does (lowest priority, a
# scheduling group of its own), and its verdict is read when they are done.
tidy_log=$(mktemp)
nice -n 19 setsid bash -c "{ echo 19 >/proc/self/autogroup; } 2>/dev/null
  $(declare -p ROOT BUILD_DIR); exec \"\$ROOT/scripts/check.sh\" --tidy \"\$BUILD_DIR\"" >"$tidy_log" 2>&1 &
tidy=$!
trap 'kill -TERM -- "-$sanitizer_build" "-$tidy" 2>/dev/null || true; rm -f "$tidy_log"' EXIT

# The unit and LSP suites, which run the pipeline and the server in-process, run in the
# sanitizer build below (the same tests, compiled by clang with ASan and UBSan); every test
# that drives the built kernelscope (conversations, probes, editors, GPU) runs here.
IN_SANITIZER_BUILD='^(unit\.(first|second)|lsp\.unit|lsp\.fuzz|fuzz\.ks_.*)$'
# -j2: only the unit suite's two halves run side by side (tests/CMakeLists.txt).
(cd "$BUILD_DIR" && ctest --output-on-failure --timeout 1500 -j2 -E "$IN_SANITIZER_BUILD" "$@") || status=$?

echo "[test] clang-tidy: waiting for it" >&2
tidy_status=0
wait "$tidy" || tidy_status=$?
cat "$tidy_log" >&2
if [ "$tidy_status" != 0 ]; then echo "[test] clang-tidy failed (see above)" >&2; status=1; fi

echo "[test] sanitizers and fuzzing: waiting for the build in $SANITIZE_DIR" >&2
if ! wait "$sanitizer_build"; then
  grep -E "error|FAILED|CMake Error" "$log" | head -30 >&2 || tail -30 "$log" >&2
  echo "[test] the sanitizer build failed (full log: $log)" >&2
  exit 1
fi
trap 'rm -f "$tidy_log"' EXIT
(cd "$SANITIZE_DIR" && UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  ctest --output-on-failure --timeout 600 -j2 -R "$IN_SANITIZER_BUILD") || status=$?
exit $status
