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

# Puts the README set-up's checks (`ok - README …` lines in READMERESULTS) before RESULTS,
# whose closing `N passed, N failed` counted only its own, and adds them to that count; a
# README test that wrote nothing failed, and the end of its LOG is shown.
#   merge_readme_results READMERESULTS RESULTS LOG
merge_readme_results() {
  local readme=$1 results=$2 log=$3 passed failed
  touch "$readme" "$results"
  passed=$(grep -c '^ok - README' "$readme" || true)
  failed=$(grep -c '^not ok - README' "$readme" || true)
  if [ "$passed" = 0 ] && [ "$failed" = 0 ]; then
    echo "not ok - README set-up: the test did not run" >>"$readme"
    tail -20 "$log"
    failed=1
  fi
  { cat "$readme"
    awk -v p="$passed" -v f="$failed" \
      '/^[0-9]+ passed, [0-9]+ failed$/ {print $1 + p " passed, " $3 + f " failed"; next} {print}' \
      "$results"; } >"$results.total" && mv "$results.total" "$results"
}
