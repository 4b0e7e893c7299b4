#!/usr/bin/env bash
# End-to-end test of kernelscope in Emacs with eglot (editors/emacs/kernelscope.el).
#
# Installs emacs-nox and elpa-eglot if they are missing, runs test-eglot.el in a batch
# Emacs whose HOME is a temp dir, on writable copies of examples/saxpy.rs (one good, one
# broken) and of examples/elementwise_mul.rs (an inlined call), and prints
# `N passed, N failed`. Exits non-zero on any failure.
# The server comes from $KERNELSCOPE_BIN (default: build/server/kernelscope).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../common.sh
source "$HERE/../common.sh"
editor_test_setup emacs emacs-nox elpa-eglot
mkdir -p "$TMP/work/broken"
cp "$ROOT/examples/saxpy.rs" "$ROOT/examples/elementwise_mul.rs" "$TMP/work/"
# The broken kernel uses a value that does not exist on the SAXPY line.
sed 's/+ \*y\.add(i);/+ undefined_thing;/' "$ROOT/examples/saxpy.rs" >"$TMP/work/broken/saxpy.rs"
grep -q undefined_thing "$TMP/work/broken/saxpy.rs"
export KERNELSCOPE_BIN KS_ROOT=$ROOT KS_WORK=$TMP/work

status=0
# First the README's set-up as a user writes it: its elisp block, loaded like an init file.
readme_block elisp "$ROOT/editors/emacs/README.md" >"$TMP/readme-init.el"
KS_README_INIT=$TMP/readme-init.el timeout "${KS_TEST_TIMEOUT:-600}" emacs --batch \
  -l "$HERE/test-readme.el" >"$TMP/readme-results" 2>"$TMP/emacs-readme.err" || status=$?
# No -Q: Debian activates its elpa packages (eglot) from site-start.
timeout "${KS_TEST_TIMEOUT:-600}" emacs --batch -l "$HERE/test-eglot.el" \
  >"$TMP/results" 2>"$TMP/emacs.err" || status=$?
merge_readme_results "$TMP/readme-results" "$TMP/results" "$TMP/emacs-readme.err"
cat "$TMP/results"
if ! grep -qE '^[0-9]+ passed, [0-9]+ failed' "$TMP/results"; then
  echo "--- emacs stderr (exit status $status) ---"
  tail -50 "$TMP/emacs.err"
  echo "$(grep -c '^ok' "$TMP/results") passed, 1 failed (the test did not finish)"
  exit 1
fi
[ -n "${KS_VERBOSE:-}" ] && cat "$TMP/emacs.err"
grep -qE '^[0-9]+ passed, 0 failed' "$TMP/results" && [ "$status" = 0 ]
