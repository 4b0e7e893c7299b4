#!/usr/bin/env bash
# End-to-end tests of the Neovim plugin (editors/nvim) against the kernelscope server.
#
# Installs Neovim if it is missing and runs, each in a headless Neovim whose config, data,
# state and cache live in a temp dir:
#   test_plugin.lua   the plugin driven as a user does, on a writable copy of examples/saxpy.rs;
#   test_setup.lua    `setup{}` from a clean config, once per case: the server on PATH only
#                     (the plugin copied out of the checkout), no server at all, and the
#                     server built in the plugin's checkout;
#   test_stages.lua   the tiled stage windows that follow the current buffer;
#   test_filters.lua  the views' filters on and off, linked highlighting exact in both;
#   test_profile.lua  `:Kernelscope profile` / `run` through a runner that answers with
#                     results recorded on a GPU: hints and heat, cleared by an edit;
#   test_diagnostics.lua  a type error's expected/found, a quick fix applied by code action;
#   test_specs.lua    a launch spec's error at its line and columns, its quick fix applied;
#   test_paths.lua    a crate under a non-ASCII path: linked and inlined highlighting;
#   test_inlined.lua  an inlined call's line: its code marked in the tiled stages (line
#                     highlight and ▎ bar), readable in light and dark.
# Prints one line per check and `N passed, N failed`; exits non-zero on any failure.
# The server comes from $KERNELSCOPE_BIN (default: build/server/kernelscope); another
# Neovim than the one on PATH from $KS_NVIM (for checking newer releases);
# KS_NVIM_TESTS="setup stages" runs only some of the files.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../common.sh
source "$HERE/../common.sh"
NVIM=${KS_NVIM:-nvim}
# With KS_NVIM the Neovim under test is given; otherwise Debian's is installed.
if [ -n "${KS_NVIM:-}" ]; then editor_test_setup nvim; else editor_test_setup nvim neovim; fi
TESTS=${KS_NVIM_TESTS:-plugin setup stages filters profile diagnostics specs paths inlined}
mkdir -p "$TMP/src" "$TMP/examples"
cp "$ROOT/examples/saxpy.rs" "$TMP/src/saxpy.rs"
cp -r "$ROOT/examples/crate" "$ROOT/examples/crate-util" "$TMP/examples/"
export KERNELSCOPE_BIN KS_SOURCE=$TMP/src/saxpy.rs KS_RESULTS=$TMP/results KS_CRATE=$TMP/examples/crate
: >"$KS_RESULTS"
PASSED=0 FAILED=0

# run_nvim NAME RUNTIMEPATH SCRIPT [ENV=VALUE...]: one headless Neovim; adds its counts.
run_nvim() {
  local name=$1 rtp=$2 script=$3
  shift 3
  local status=0 before
  before=$(wc -l <"$KS_RESULTS")
  env "$@" timeout "${KS_TEST_TIMEOUT:-600}" "$NVIM" --headless --clean \
    --cmd "set runtimepath^=$rtp" -c "luafile $HERE/$script" >"$TMP/nvim-$name.out" 2>&1 || status=$?
  local summary
  summary=$(tail -n +"$((before + 1))" "$KS_RESULTS" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -1 || true)
  if [ -z "$summary" ]; then
    echo "--- nvim output of $name (exit status $status) ---" >>"$KS_RESULTS"
    cat "$TMP/nvim-$name.out" >>"$KS_RESULTS"
    FAILED=$((FAILED + 1))
    return
  fi
  PASSED=$((PASSED + ${summary%% passed*}))
  local f=${summary#*, }
  FAILED=$((FAILED + ${f%% failed*}))
  if [ "$status" != 0 ] && [ "${f%% failed*}" = 0 ]; then FAILED=$((FAILED + 1)); fi
}

for t in $TESTS; do
  case $t in
  plugin) run_nvim plugin "$ROOT/editors/nvim" test_plugin.lua ;;
  stages)
    # Fresh copies: test_plugin edits its saxpy.rs.
    mkdir -p "$TMP/stages"
    cp "$ROOT/examples/saxpy.rs" "$ROOT/examples/vector_add.rs" "$TMP/stages/"
    run_nvim stages "$ROOT/editors/nvim" test_stages.lua KS_SOURCE="$TMP/stages/saxpy.rs"
    ;;
  filters)
    mkdir -p "$TMP/filters"
    cp "$ROOT/examples/saxpy.rs" "$TMP/filters/"
    # Its own data and state folders: the filter it toggles is remembered there.
    run_nvim filters "$ROOT/editors/nvim" test_filters.lua KS_SOURCE="$TMP/filters/saxpy.rs" \
      XDG_DATA_HOME="$TMP/filters/data" XDG_STATE_HOME="$TMP/filters/state"
    ;;
  profile)
    mkdir -p "$TMP/profile"
    cp "$ROOT/examples/saxpy.rs" "$TMP/profile/"
    cp "$ROOT/tests/fixtures/gpu/coalesce/before.rs" "$TMP/profile/scale.rs"
    run_nvim profile "$ROOT/editors/nvim" test_profile.lua KS_SOURCE="$TMP/profile/saxpy.rs" KS_ROOT="$ROOT" \
      KS_SCALE="$TMP/profile/scale.rs"
    ;;
  diagnostics)
    mkdir -p "$TMP/diagnostics"
    run_nvim diagnostics "$ROOT/editors/nvim" test_diagnostics.lua KS_SOURCE="$TMP/diagnostics/k.rs"
    ;;
  specs)
    mkdir -p "$TMP/specs"
    run_nvim specs "$ROOT/editors/nvim" test_specs.lua KS_SOURCE="$TMP/specs/k.rs"
    ;;
  inlined)
    mkdir -p "$TMP/inlined"
    cp "$ROOT/examples/elementwise_mul.rs" "$TMP/inlined/"
    run_nvim inlined "$ROOT/editors/nvim" test_inlined.lua KS_SOURCE="$TMP/inlined/elementwise_mul.rs"
    ;;
  paths)
    paths_dir="$TMP/crates ünïcode"
    mkdir -p "$paths_dir"
    cp -r "$ROOT/examples/crate" "$ROOT/examples/crate-util" "$paths_dir/"
    run_nvim paths "$ROOT/editors/nvim" test_paths.lua KS_CRATE="$paths_dir/crate"
    ;;
  setup)
    # A copy of the plugin outside the checkout, and a PATH whose only kernelscope is the
    # server under test.
    cp -r "$ROOT/editors/nvim" "$TMP/plugin"
    mkdir -p "$TMP/bin"
    ln -s "$KERNELSCOPE_BIN" "$TMP/bin/kernelscope"
    NO_SERVER_PATH=$(printf '%s' "$PATH" | tr ':' '\n' | while read -r d; do
      [ -n "$d" ] && [ ! -e "$d/kernelscope" ] && printf '%s:' "$d"; done)
    run_nvim setup-path "$TMP/plugin" test_setup.lua KS_CASE=path PATH="$TMP/bin:$NO_SERVER_PATH"
    run_nvim setup-missing "$TMP/plugin" test_setup.lua KS_CASE=missing PATH="$NO_SERVER_PATH"
    if [ "$KERNELSCOPE_BIN" = "$ROOT/build/server/kernelscope" ]; then
      run_nvim setup-checkout "$ROOT/editors/nvim" test_setup.lua KS_CASE=checkout PATH="$NO_SERVER_PATH"
    else
      echo "skip - [checkout] the server under test is not $ROOT/build/server/kernelscope" >>"$KS_RESULTS"
    fi
    ;;
  *) echo "unknown test '$t' in KS_NVIM_TESTS" >>"$KS_RESULTS"; FAILED=$((FAILED + 1)) ;;
  esac
done
grep -vE '^[0-9]+ passed, [0-9]+ failed' "$KS_RESULTS" || true
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
