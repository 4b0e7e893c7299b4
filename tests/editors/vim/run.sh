#!/usr/bin/env bash
# End-to-end test of kernelscope in Vim with ALE (editors/vim) against the server.
#
# Installs vim and vim-ale if they are missing, runs test_ale.vim in `vim -es` with a temp
# HOME, on writable copies of examples/saxpy.rs (one good, one broken), and prints
# `N passed, N failed`. Exits non-zero on any failure.
# The server comes from $KERNELSCOPE_BIN (default: build/server/kernelscope).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../common.sh
source "$HERE/../common.sh"
editor_test_setup vim vim vim-ale
mkdir -p "$TMP/work/broken"
cp "$ROOT/examples/saxpy.rs" "$TMP/work/saxpy.rs"
sed 's/+ \*y\.add(i);/+ undefined_thing;/' "$ROOT/examples/saxpy.rs" >"$TMP/work/broken/saxpy.rs"
export KERNELSCOPE_BIN KS_ROOT=$ROOT KS_WORK=$TMP/work KS_RESULTS=$TMP/results \
       KS_ALE_DIR=${KS_ALE_DIR:-/usr/share/vim-ale}

status=0
# First the README's set-up as a user writes it: its vim block is the vimrc.
readme_block vim "$ROOT/editors/vim/README.md" >"$HOME/.vimrc"
KS_RESULTS=$TMP/readme-results timeout "${KS_TEST_TIMEOUT:-600}" \
  vim -N -i NONE -es -u "$HOME/.vimrc" -S "$HERE/test_readme.vim" \
  </dev/null >"$TMP/vim-readme.out" 2>&1 || status=$?
timeout "${KS_TEST_TIMEOUT:-600}" vim -Nu NONE -i NONE -es -S "$HERE/test_ale.vim" \
  </dev/null >"$TMP/vim.out" 2>&1 || status=$?
merge_readme_results "$TMP/readme-results" "$TMP/results" "$TMP/vim-readme.out"
cat "$TMP/results"
if ! grep -qE '^[0-9]+ passed, [0-9]+ failed' "$TMP/results"; then
  echo "--- vim output (exit status $status) ---"
  tail -50 "$TMP/vim.out"
  echo "$(grep -c '^ok' "$TMP/results") passed, 1 failed (the test did not finish)"
  exit 1
fi
grep -qE '^[0-9]+ passed, 0 failed' "$TMP/results" && [ "$status" = 0 ]
