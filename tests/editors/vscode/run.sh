#!/usr/bin/env bash
# End-to-end tests of the kernelscope VS Code extension in a real VS Code.
#
# Installs what it needs (idempotent: each step checks first), runs the extension's unit
# tests, packages the .vsix, and then for each test script starts code-server on
# 127.0.0.1 in its own process group, with a fresh profile holding only the .vsix and a
# copy of examples/ open, and drives it from headless Chromium:
#   e2e.mjs          a session as a user has it: views, highlighting, hovers, arch, saves;
#   stages.e2e.mjs   Open Stages Side by Side: tiled groups that follow the active file;
#   filters.e2e.mjs  the views' filters on and off (Toggle Filters), linked highlighting exact;
#   commands.e2e.mjs a type error's expected/found and its quick fix (Ctrl+.), a launch
#                    spec's error at its line and its quick fix, the arch picker's "default",
#                    Restart Language Server without an error;
#   costs.e2e.mjs    Show What Each Line Costs: the register peak, a line to look at first
#                    picked; Go to Definition (F12) on an FFMA's register in the SASS view;
#   profile.e2e.mjs  the Profile lens through a runner that answers with a recorded profile:
#                    progress, the hot line's hint and heat (source and PTX), cleared by typing;
#                    a second profile after an edit: the change since the last, its delta heat;
#   setup.e2e.mjs    Build It Now's setup on an empty cache: Cancel stops it and its tools,
#                    and so does closing the window;
#   install.e2e.mjs  the linux-x64 .vsix with the server inside (scripts/package-vsix.sh)
#                    alone, no setting, an empty kernelscope cache: doctor, setup, a compile;
#   settings.e2e.mjs no server anywhere: Open Settings lands on kernelscope.server.path.
# Prints `N passed, N failed` and exits non-zero on any failure. Screenshots and logs go
# to tests/e2e-artifacts/vscode/<script>/.
#
# Environment:
#   KERNELSCOPE_BIN   the server (default: build/server/kernelscope in the repository)
#   KS_E2E            the scripts to run (default: all, as listed above)
#   KS_TIMEOUT_MS     how long the first compile may take (default 240000)
#   KS_KEEP=1         keep the temporary workspaces and code-server profiles
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
HERE=$ROOT/tests/editors/vscode
EXT=$ROOT/editors/vscode
ARTIFACTS=$ROOT/tests/e2e-artifacts/vscode
KERNELSCOPE_BIN=${KERNELSCOPE_BIN:-$ROOT/build/server/kernelscope}
CHROMIUM=/usr/lib/chromium/chromium
STARTED=$(date +%s)

say() { printf '[vscode-e2e] %s\n' "$*" >&2; }

"$HERE/install.sh"

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
# stop_code_server DIR: ends the running code-server's process group and keeps its logs.
stop_code_server() {
  if [ -n "$CS_PID" ]; then kill -TERM -- "-$CS_PID" 2>/dev/null || true; fi
  CS_PID=
  local name
  name=$(basename "$1")
  mkdir -p "$ARTIFACTS/$name"
  if [ -f "$1/code-server.log" ]; then cp "$1/code-server.log" "$ARTIFACTS/$name/" 2>/dev/null || true; fi
  if [ -d "$1/user-data/logs" ]; then cp -r "$1/user-data/logs" "$ARTIFACTS/$name/vscode-logs" 2>/dev/null || true; fi
}
cleanup() {
  if [ -n "$CS_PID" ]; then kill -TERM -- "-$CS_PID" 2>/dev/null || true; fi
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

# --- code-server, once per script ---------------------------------------------------

CODE_SERVER=$HERE/node_modules/.bin/code-server
# e2e.mjs and commands.e2e.mjs start at this target (their settings) and switch live.
FIRST_ARCH=sm_75
E2E_PASS=0 E2E_FAIL=0

# run_script SCRIPT VSIX SETTINGS [MACHINE]: a fresh code-server profile with only VSIX
# installed, SETTINGS (JSON members, may be empty) added to the quiet defaults of the user
# settings and MACHINE as the remote (machine) settings, on a fresh copy of examples/,
# driven by SCRIPT; adds its counts to E2E_PASS/E2E_FAIL. Machine-overridable settings
# (the server's path, the GPU runner) go in MACHINE: a code-server window is a remote one,
# which drops them from the user settings as soon as it reads that file again.
run_script() {
  local script=$1 vsix=$2 extra=$3 machine=${4:-} started
  started=$(date +%s)
  local dir=$WORK/${script%.mjs}
  mkdir -p "$dir/workspace" "$dir/user-data/User" "$dir/user-data/Machine" "$dir/extensions"
  printf '{%s}\n' "$machine" >"$dir/user-data/Machine/settings.json"
  cp "$ROOT"/examples/*.rs "$dir/workspace/"
  cp -r "$ROOT/examples/crate" "$ROOT/examples/crate-util" "$dir/workspace/"
  cat >"$dir/user-data/User/settings.json" <<JSON
{
  "workbench.startupEditor": "none",
  "telemetry.telemetryLevel": "off",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "update.mode": "none",
  "security.workspace.trust.enabled": false,
  "workbench.tips.enabled": false,
  "editor.minimap.enabled": false${extra:+,
  $extra}
}
JSON
  : >"$dir/config.yaml"
  local common=(--user-data-dir "$dir/user-data" --extensions-dir "$dir/extensions" --config "$dir/config.yaml")
  if ! "$CODE_SERVER" "${common[@]}" --install-extension "$vsix" >"$dir/install.log" 2>&1; then
    cat "$dir/install.log" >&2
    E2E_FAIL=$((E2E_FAIL + 1))
    return
  fi
  local port
  port=$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
  # A background job of a non-interactive shell is no group leader, so setsid makes it one
  # without forking: $! is the group to kill, taking the extension host and server along.
  setsid "$CODE_SERVER" "${common[@]}" --auth none --disable-telemetry --disable-update-check \
    --disable-workspace-trust --bind-addr "127.0.0.1:$port" "$dir/workspace" >"$dir/code-server.log" 2>&1 &
  CS_PID=$!
  for _ in $(seq 1 120); do
    if node -e "fetch('http://127.0.0.1:$port/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"; then break; fi
    kill -0 "$CS_PID" 2>/dev/null || { cat "$dir/code-server.log" >&2; break; }
    sleep 0.5
  done
  say "$script: driving code-server on 127.0.0.1:$port"
  set +e
  KS_URL="http://127.0.0.1:$port/?folder=$dir/workspace" KS_WORKSPACE="$dir/workspace" \
    KS_ARTIFACTS="$ARTIFACTS/${script%.mjs}" KS_USER_DATA="$dir/user-data" KS_CHROMIUM="$CHROMIUM" \
    KERNELSCOPE_BIN="$KERNELSCOPE_BIN" KS_FIRST_ARCH="$FIRST_ARCH" node "$HERE/$script" | tee "$dir/e2e.log"
  local rc=${PIPESTATUS[0]}
  set -e
  stop_code_server "$dir"
  local pass fail
  pass=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$dir/e2e.log" | tail -1)
  fail=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$dir/e2e.log" | tail -1)
  pass=${pass:-0}
  fail=${fail:-1}
  if [ "$rc" != 0 ] && [ "$fail" = 0 ]; then fail=1; fi
  E2E_PASS=$((E2E_PASS + pass))
  E2E_FAIL=$((E2E_FAIL + fail))
  say "$script: $pass passed, $fail failed, $(($(date +%s) - started)) s"
}

SERVER="\"kernelscope.server.path\": \"$KERNELSCOPE_BIN\""
# PATH without any kernelscope on it.
NO_SERVER_PATH=$(printf '%s' "$PATH" | tr ':' '\n' | while read -r d; do
  [ -n "$d" ] && [ ! -e "$d/kernelscope" ] && printf '%s:' "$d"; done)
for script in ${KS_E2E:-e2e.mjs stages.e2e.mjs filters.e2e.mjs commands.e2e.mjs costs.e2e.mjs profile.e2e.mjs setup.e2e.mjs install.e2e.mjs settings.e2e.mjs}; do
  case $script in
  # e2e.mjs reads the arch from the PTX's `.target` line, which the directives filter hides.
  # commands.e2e.mjs too: it reads the arch from `.target` (the user settings start at it).
  e2e.mjs | commands.e2e.mjs)
    run_script "$script" "$VSIX" "\"kernelscope.arch\": \"$FIRST_ARCH\", \"kernelscope.filters.directives\": false" "$SERVER" ;;
  install.e2e.mjs)
    # The .vsix with the server inside, on a machine whose kernelscope cache is empty.
    say "packaging the linux-x64 .vsix with the server (scripts/package-vsix.sh)"
    # Linked in the build of the server under test (KERNELSCOPE_BIN is BUILD/server/kernelscope),
    # so that no object is compiled a second time.
    if KERNELSCOPE_BUILD_DIR=$(dirname "$(dirname "$(realpath "$KERNELSCOPE_BIN")")") \
         "$ROOT/scripts/package-vsix.sh" "$WORK/kernelscope-linux-x64.vsix"; then
      mkdir -p "$WORK/empty-cache"
      KERNELSCOPE_CACHE_DIR=$WORK/empty-cache PATH=$NO_SERVER_PATH \
        run_script "$script" "$WORK/kernelscope-linux-x64.vsix" ""
    else
      E2E_FAIL=$((E2E_FAIL + 1))
    fi
    ;;
  settings.e2e.mjs) PATH=$NO_SERVER_PATH run_script "$script" "$VSIX" "" ;;
  setup.e2e.mjs)
    # An empty kernelscope cache, so that doctor offers to build the nvptx64 core.
    mkdir -p "$WORK/setup-cache"
    KERNELSCOPE_CACHE_DIR=$WORK/setup-cache KS_SETUP_CACHE=$WORK/setup-cache \
      run_script "$script" "$VSIX" "" "$SERVER"
    ;;
  profile.e2e.mjs)
    # The runner answers with the recorded result in this file, which the script swaps.
    cp "$ROOT/tests/golden/gpu/saxpy.profile.result" "$WORK/profile.result"
    KS_ROOT=$ROOT KS_PROFILE_RESULT=$WORK/profile.result \
      run_script "$script" "$VSIX" "" "$SERVER, \"kernelscope.gpu.runner\": \"$ROOT/tests/gpu/fake/fake-gpu-runner.py --mode profile $WORK/profile.result\""
    ;;
  *) run_script "$script" "$VSIX" "" "$SERVER" ;;
  esac
done

say "unit $UNIT_PASS/$((UNIT_PASS + UNIT_FAIL)), end to end $E2E_PASS/$((E2E_PASS + E2E_FAIL)), $(($(date +%s) - STARTED)) s; screenshots in ${ARTIFACTS#"$ROOT"/}"
echo "$((UNIT_PASS + E2E_PASS)) passed, $((UNIT_FAIL + E2E_FAIL)) failed"
[ "$UNIT_FAIL" = 0 ] && [ "$E2E_FAIL" = 0 ]
