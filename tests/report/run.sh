#!/usr/bin/env bash
# The page of `kernelscope report` in headless Chromium (report.e2e.mjs): installs Debian's
# chromium and the test's one npm package (playwright-core, to drive it) when missing, then
# prints `N passed, N failed`. The server comes from $KERNELSCOPE_BIN (default:
# build/server/kernelscope); screenshots go to tests/e2e-artifacts/report/.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
"$ROOT/scripts/ensure-apt.sh" report chromium nodejs >&2
"$ROOT/scripts/npm-deps.sh" "$HERE"
KERNELSCOPE_BIN=${KERNELSCOPE_BIN:-$ROOT/build/server/kernelscope} \
  timeout "${KS_TEST_TIMEOUT:-600}" node "$HERE/report.e2e.mjs"
