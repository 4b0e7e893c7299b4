#!/usr/bin/env bash
# End-to-end test of kernelscope in Emacs with eglot (editors/emacs/kernelscope.el).
#
# Installs emacs-nox and elpa-eglot if they are missing, runs test-eglot.el in a batch
# Emacs whose HOME is a temp dir, on writable copies of examples/saxpy.rs (one good, one
# broken), and prints `N passed, N failed`. Exits non-zero on any failure.
# The server comes from $KERNELSCOPE_BIN (default: build/server/kernelscope).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
KERNELSCOPE_BIN=${KERNELSCOPE_BIN:-$ROOT/build/server/kernelscope}

missing=()
for p in emacs-nox elpa-eglot; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "[emacs-e2e] installing ${missing[*]}" >&2
  as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if [ ! -x "$KERNELSCOPE_BIN" ]; then
  echo "0 passed, 1 failed (no server at $KERNELSCOPE_BIN; set KERNELSCOPE_BIN)"
  exit 1
fi
KERNELSCOPE_BIN=$(cd "$(dirname "$KERNELSCOPE_BIN")" && pwd)/$(basename "$KERNELSCOPE_BIN")

# The server keeps using the real toolchain cache; Emacs's own files go to the temp dir.
export KERNELSCOPE_CACHE_DIR=${KERNELSCOPE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kernelscope}

TMP=$(mktemp -d "${TMPDIR:-/tmp}/kernelscope-emacs.XXXXXX")
trap '[ -n "${KS_KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
export HOME=$TMP/home XDG_CONFIG_HOME=$TMP/config XDG_DATA_HOME=$TMP/data \
       XDG_STATE_HOME=$TMP/state XDG_CACHE_HOME=$TMP/cache
mkdir -p "$HOME" "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$XDG_STATE_HOME" "$XDG_CACHE_HOME" \
         "$TMP/work/broken"
cp "$ROOT/examples/saxpy.rs" "$TMP/work/saxpy.rs"
# The broken kernel uses a value that does not exist on the SAXPY line.
sed 's/+ \*y\.add(i);/+ undefined_thing;/' "$ROOT/examples/saxpy.rs" >"$TMP/work/broken/saxpy.rs"
grep -q undefined_thing "$TMP/work/broken/saxpy.rs"
export KERNELSCOPE_BIN KS_ROOT=$ROOT KS_WORK=$TMP/work

status=0
# No -Q: Debian activates its elpa packages (eglot) from site-start.
timeout "${KS_TEST_TIMEOUT:-600}" emacs --batch -l "$HERE/test-eglot.el" \
  >"$TMP/results" 2>"$TMP/emacs.err" || status=$?
cat "$TMP/results"
if ! grep -qE '^[0-9]+ passed, [0-9]+ failed' "$TMP/results"; then
  echo "--- emacs stderr (exit status $status) ---"
  tail -50 "$TMP/emacs.err"
  echo "$(grep -c '^ok' "$TMP/results") passed, 1 failed (the test did not finish)"
  exit 1
fi
[ -n "${KS_VERBOSE:-}" ] && cat "$TMP/emacs.err"
grep -qE '^[0-9]+ passed, 0 failed' "$TMP/results" && [ "$status" = 0 ]
