#!/usr/bin/env bash
# What the VS Code end-to-end test needs, installed when missing (idempotent): Debian's
# Chromium and the tools code-server's native modules build with, then the extension's and
# the test's npm packages (code-server, playwright-core). run.sh calls it first; the test
# command also starts it in the background while it builds (scripts/test.sh), as
# code-server's install takes minutes.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)

"$ROOT/scripts/ensure-apt.sh" vscode-e2e chromium build-essential pkg-config python3 libkrb5-dev ripgrep

# @vscode/ripgrep (a code-server dependency) downloads rg in its postinstall; nothing but
# Debian and npm is reachable, so its cache gets Debian's rg under the expected name.
seed_ripgrep_cache() {
  local dir=${TMPDIR:-/tmp}/vscode-ripgrep-cache-1.15.11
  local tarball=$dir/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz
  [ -s "$tarball" ] && return
  local tmp; tmp=$(mktemp -d)
  cp /usr/bin/rg "$tmp/rg"
  mkdir -p "$dir"
  tar -C "$tmp" -czf "$tarball.tmp" rg  # renamed when whole: a concurrent run never reads half
  mv "$tarball.tmp" "$tarball"
  rm -rf "$tmp"
}
seed_ripgrep_cache
"$ROOT/scripts/npm-deps.sh" "$ROOT/editors/vscode" "$ROOT/tests/editors/vscode"
