# Sourced by the editor end-to-end tests: the server to test, the Debian packages the
# editor needs, and a private HOME/XDG tree so a test writes nothing into the real one.
#   editor_test_setup TAG PACKAGE...   sets ROOT, KERNELSCOPE_BIN, TMP (removed on exit)
editor_test_setup() {
  local tag=$1
  shift
  ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  KERNELSCOPE_BIN=${KERNELSCOPE_BIN:-$ROOT/build/server/kernelscope}
  "$ROOT/scripts/ensure-apt.sh" "$tag" "$@"
  if [ ! -x "$KERNELSCOPE_BIN" ]; then
    echo "0 passed, 1 failed (no server at $KERNELSCOPE_BIN; set KERNELSCOPE_BIN)"
    exit 1
  fi
  KERNELSCOPE_BIN=$(cd "$(dirname "$KERNELSCOPE_BIN")" && pwd)/$(basename "$KERNELSCOPE_BIN")
  # The server keeps using the real toolchain cache (the built `core`, the CUDA tools);
  # only the editor's own files go to the temp dir.
  export KERNELSCOPE_CACHE_DIR=${KERNELSCOPE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kernelscope}
  TMP=$(mktemp -d "${TMPDIR:-/tmp}/kernelscope-$tag.XXXXXX")
  trap '[ -n "${KS_KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
  export HOME=$TMP/home XDG_CONFIG_HOME=$TMP/config XDG_DATA_HOME=$TMP/data \
         XDG_STATE_HOME=$TMP/state XDG_CACHE_HOME=$TMP/cache
  mkdir -p "$HOME" "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$XDG_STATE_HOME" "$XDG_CACHE_HOME"
}

# The README's set-up block for an editor, as a user copies it: the first ```LANG block of
# FILE, with /path/to/kernelscope replaced by this checkout.
#   readme_block LANG FILE
readme_block() {
  awk -v lang="$1" '$0 == "```" lang {inside = 1; next} inside && $0 == "```" {exit} inside {print}' "$2" |
    sed "s|/path/to/kernelscope|$ROOT|g"
}
