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
ROOT=$(cd "$HERE/../../.." && pwd)
KERNELSCOPE_BIN=${KERNELSCOPE_BIN:-$ROOT/build/server/kernelscope}

NVIM=${KS_NVIM:-nvim}
if [ -z "${KS_NVIM:-}" ] && ! command -v nvim >/dev/null 2>&1; then
  echo "[nvim-e2e] installing neovim" >&2
  as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq neovim >/dev/null
fi
if [ ! -x "$KERNELSCOPE_BIN" ]; then
  echo "0 passed, 1 failed (no server at $KERNELSCOPE_BIN; set KERNELSCOPE_BIN)"
  exit 1
fi
KERNELSCOPE_BIN=$(cd "$(dirname "$KERNELSCOPE_BIN")" && pwd)/$(basename "$KERNELSCOPE_BIN")

# The server keeps using the toolchain cache of the real user (the built `core`, the CUDA
# tools); only the editor's own files go to the temp dir.
export KERNELSCOPE_CACHE_DIR=${KERNELSCOPE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kernelscope}

TMP=$(mktemp -d "${TMPDIR:-/tmp}/kernelscope-nvim.XXXXXX")
trap '[ -n "${KS_KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
export HOME=$TMP/home XDG_CONFIG_HOME=$TMP/config XDG_DATA_HOME=$TMP/data \
       XDG_STATE_HOME=$TMP/state XDG_CACHE_HOME=$TMP/cache
mkdir -p "$HOME" "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$XDG_STATE_HOME" "$XDG_CACHE_HOME" "$TMP/src"
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
