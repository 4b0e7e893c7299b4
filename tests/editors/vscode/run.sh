#!/usr/bin/env bash
# End-to-end test of the kernelscope VS Code extension in a real VS Code.
#
# Installs what it needs (idempotent: each step checks first), runs the extension's unit
# tests, packages the .vsix, starts code-server on 127.0.0.1 in its own process group
# with the .vsix installed and a copy of examples/ open, and drives it from headless
# Chromium with e2e.mjs. Prints `N passed, N failed` and exits non-zero on any failure.
# Screenshots and logs go to tests/e2e-artifacts/vscode/.
#
# Environment:
#   KERNELSCOPE_BIN   the server (default: build/server/kernelscope in the repository)
#   KS_TIMEOUT_MS     how long the first compile may take (default 240000)
#   KS_KEEP=1         keep the temporary workspace and code-server profile
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
HERE=$ROOT/tests/editors/vscode
EXT=$ROOT/editors/vscode
ARTIFACTS=$ROOT/tests/e2e-artifacts/vscode
KERNELSCOPE_BIN=${KERNELSCOPE_BIN:-$ROOT/build/server/kernelscope}
CHROMIUM=/usr/lib/chromium/chromium
APT_PACKAGES=(chromium build-essential pkg-config python3 libkrb5-dev ripgrep)
STARTED=$(date +%s)

say() { printf '[vscode-e2e] %s\n' "$*" >&2; }

# --- Installs -------------------------------------------------------------------------

install_apt_packages() {
  "$ROOT/scripts/ensure-apt.sh" vscode-e2e "${APT_PACKAGES[@]}"
}

# @vscode/ripgrep (a code-server dependency) downloads rg in its postinstall; nothing but
# Debian and npm is reachable, so its cache gets Debian's rg under the expected name.
seed_ripgrep_cache() {
  local dir=${TMPDIR:-/tmp}/vscode-ripgrep-cache-1.15.11
  local tarball=$dir/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz
  [ -s "$tarball" ] && return
  local tmp; tmp=$(mktemp -d)
  cp /usr/bin/rg "$tmp/rg"
  mkdir -p "$dir"
  tar -C "$tmp" -czf "$tarball" rg
  rm -rf "$tmp"
}

# npm ci when node_modules is missing or older than the lock file.
npm_deps() {
  local dir=$1
  if [ -d "$dir/node_modules" ] && [ ! "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
    return
  fi
  say "installing npm dependencies in ${dir#"$ROOT"/}"
  (cd "$dir" && npm_config_unsafe_perm=true npm_config_yes=true npm ci --no-audit --no-fund --loglevel=error)
}

install_apt_packages
seed_ripgrep_cache
npm_deps "$EXT"
npm_deps "$HERE"

if [ ! -x "$KERNELSCOPE_BIN" ]; then
  say "no kernelscope server at $KERNELSCOPE_BIN: build it (cmake --build build --target kernelscope) or set KERNELSCOPE_BIN"
  echo "0 passed, 1 failed"
  exit 1
fi
KERNELSCOPE_BIN=$(realpath "$KERNELSCOPE_BIN")

# --- Unit tests and the .vsix --------------------------------------------------------

rm -rf "$ARTIFACTS"
mkdir -p "$ARTIFACTS"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kernelscope-vscode-e2e.XXXXXX")
CS_PID=
cleanup() {
  if [ -n "$CS_PID" ]; then kill -TERM -- "-$CS_PID" 2>/dev/null || true; fi
  if [ -f "$WORK/code-server.log" ]; then cp "$WORK/code-server.log" "$ARTIFACTS/" 2>/dev/null || true; fi
  if [ -d "$WORK/user-data/logs" ]; then cp -r "$WORK/user-data/logs" "$ARTIFACTS/vscode-logs" 2>/dev/null || true; fi
  if [ "${KS_KEEP:-0}" = 1 ]; then say "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

say "unit tests"
(cd "$EXT" && npx tsc -p .)
UNIT_LOG=$WORK/unit.tap
set +e
(cd "$EXT" && node --test --test-reporter=tap out/test/) >"$UNIT_LOG" 2>&1
UNIT_RC=$?
set -e
UNIT_PASS=$(sed -n 's/^# pass \([0-9]*\)$/\1/p' "$UNIT_LOG")
UNIT_FAIL=$(sed -n 's/^# fail \([0-9]*\)$/\1/p' "$UNIT_LOG")
UNIT_PASS=${UNIT_PASS:-0}
UNIT_FAIL=${UNIT_FAIL:-0}
if [ "$UNIT_RC" != 0 ] && [ "$UNIT_FAIL" = 0 ]; then UNIT_FAIL=1; fi
say "unit tests: $UNIT_PASS passed, $UNIT_FAIL failed"
[ "$UNIT_FAIL" = 0 ] || grep -B2 -A15 '^not ok' "$UNIT_LOG" >&2 || true

say "packaging the extension"
VSIX=$WORK/kernelscope.vsix
(cd "$EXT" && npx vsce package --skip-license --allow-missing-repository -o "$VSIX" >/dev/null)

# --- code-server ---------------------------------------------------------------------

CODE_SERVER=$HERE/node_modules/.bin/code-server
# The session starts at this target (the settings); the test switches to sm_90 live.
FIRST_ARCH=sm_75
mkdir -p "$WORK/workspace" "$WORK/user-data/User" "$WORK/extensions"
cp "$ROOT"/examples/*.rs "$WORK/workspace/"
cat >"$WORK/user-data/User/settings.json" <<JSON
{
  "workbench.startupEditor": "none",
  "telemetry.telemetryLevel": "off",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "update.mode": "none",
  "security.workspace.trust.enabled": false,
  "workbench.tips.enabled": false,
  "editor.minimap.enabled": false,
  "kernelscope.server.path": "$KERNELSCOPE_BIN",
  "kernelscope.arch": "$FIRST_ARCH"
}
JSON
: >"$WORK/config.yaml"
COMMON=(--user-data-dir "$WORK/user-data" --extensions-dir "$WORK/extensions" --config "$WORK/config.yaml")
"$CODE_SERVER" "${COMMON[@]}" --install-extension "$VSIX" >"$WORK/install.log" 2>&1 ||
  { cat "$WORK/install.log" >&2; echo "$UNIT_PASS passed, $((UNIT_FAIL + 1)) failed"; exit 1; }

PORT=$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
# A background job of a non-interactive shell is no group leader, so setsid makes it one
# without forking: $! is the group to kill, taking the extension host and server along.
setsid "$CODE_SERVER" "${COMMON[@]}" --auth none --disable-telemetry --disable-update-check \
  --disable-workspace-trust --bind-addr "127.0.0.1:$PORT" "$WORK/workspace" >"$WORK/code-server.log" 2>&1 &
CS_PID=$!
for _ in $(seq 1 120); do
  if node -e "fetch('http://127.0.0.1:$PORT/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"; then break; fi
  kill -0 "$CS_PID" 2>/dev/null || { cat "$WORK/code-server.log" >&2; break; }
  sleep 0.5
done

# --- The browser ---------------------------------------------------------------------

say "driving code-server on 127.0.0.1:$PORT with $KERNELSCOPE_BIN"
set +e
KS_URL="http://127.0.0.1:$PORT/?folder=$WORK/workspace" KS_WORKSPACE="$WORK/workspace" \
  KS_ARTIFACTS="$ARTIFACTS" KS_USER_DATA="$WORK/user-data" KS_CHROMIUM="$CHROMIUM" \
  KERNELSCOPE_BIN="$KERNELSCOPE_BIN" KS_FIRST_ARCH="$FIRST_ARCH" node "$HERE/e2e.mjs" | tee "$WORK/e2e.log"
E2E_RC=${PIPESTATUS[0]}
set -e
E2E_PASS=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$WORK/e2e.log" | tail -1)
E2E_FAIL=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$WORK/e2e.log" | tail -1)
E2E_PASS=${E2E_PASS:-0}
E2E_FAIL=${E2E_FAIL:-1}
if [ "$E2E_RC" != 0 ] && [ "$E2E_FAIL" = 0 ]; then E2E_FAIL=1; fi

say "unit $UNIT_PASS/$((UNIT_PASS + UNIT_FAIL)), end to end $E2E_PASS/$((E2E_PASS + E2E_FAIL)), $(($(date +%s) - STARTED)) s; screenshots in ${ARTIFACTS#"$ROOT"/}"
echo "$((UNIT_PASS + E2E_PASS)) passed, $((UNIT_FAIL + E2E_FAIL)) failed"
[ "$UNIT_FAIL" = 0 ] && [ "$E2E_FAIL" = 0 ]
