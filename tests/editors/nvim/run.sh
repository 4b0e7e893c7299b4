#!/usr/bin/env bash
# End-to-end test of the Neovim plugin (editors/nvim) against the kernelscope server.
#
# Installs Neovim if it is missing, runs tests/editors/nvim/test_plugin.lua in a headless
# Neovim whose config, data, state and cache live in a temp dir, on a writable copy of
# examples/saxpy.rs, and prints `N passed, N failed`. Exits non-zero on any failure.
# The server comes from $KERNELSCOPE_BIN (default: build/server/kernelscope); another
# Neovim than the one on PATH from $KS_NVIM (for checking newer releases).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../common.sh
source "$HERE/../common.sh"
NVIM=${KS_NVIM:-nvim}
# With KS_NVIM the Neovim under test is given; otherwise Debian's is installed.
if [ -n "${KS_NVIM:-}" ]; then editor_test_setup nvim; else editor_test_setup nvim neovim; fi
mkdir -p "$TMP/src"
cp "$ROOT/examples/saxpy.rs" "$TMP/src/saxpy.rs"
export KERNELSCOPE_BIN KS_SOURCE=$TMP/src/saxpy.rs KS_RESULTS=$TMP/results

status=0
timeout "${KS_TEST_TIMEOUT:-600}" "$NVIM" --headless --clean \
  --cmd "set runtimepath^=$ROOT/editors/nvim" \
  -c "luafile $HERE/test_plugin.lua" >"$TMP/nvim.out" 2>&1 || status=$?
touch "$TMP/results"
cat "$TMP/results"
if ! grep -qE '^[0-9]+ passed, [0-9]+ failed' "$TMP/results"; then
  echo "--- nvim output (exit status $status) ---"
  cat "$TMP/nvim.out"
  echo "$(grep -c '^ok' "$TMP/results") passed, 1 failed (the test did not finish)"
  exit 1
fi
grep -qE '^[0-9]+ passed, 0 failed' "$TMP/results" && [ "$status" = 0 ]
