#!/usr/bin/env bash
# Builds the linux-x64 VS Code extension with the server inside, installable in one step:
#   scripts/package-vsix.sh [OUT.vsix]     (default: build-vsix/kernelscope-linux-x64.vsix)
#
# The server is the build's kernelscope-static (KERNELSCOPE_BUILD_DIR, default build/; it is
# configured as scripts/setup.sh does when it is not there): the same objects as kernelscope,
# linked with LLVM's static libraries, so it needs no llvm-22 package; the shared libraries it still links that are not part of
# every Debian 12 system (everything but glibc, libstdc++ and libgcc) travel beside it in
# server/lib/, found through an $ORIGIN rpath. Before packaging, the script checks with ldd,
# with LD_LIBRARY_PATH cleared, that every library resolves to the copy in server/lib/ or
# to the base system, and that the server runs. The extension finds server/kernelscope
# first (editors/vscode/src/config.ts).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$(realpath -m "${1:-$ROOT/build-vsix/kernelscope-linux-x64.vsix}")
BUILD=${KERNELSCOPE_BUILD_DIR:-$ROOT/build}
say() { printf '[package-vsix] %s\n' "$*" >&2; }

"$ROOT/scripts/ensure-apt.sh" package-vsix patchelf
say "building the server with static LLVM (kernelscope-static) in ${BUILD#"$ROOT"/}"
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$BUILD" --parallel "$(nproc)" --target kernelscope-static >/dev/null
SERVER=$BUILD/server/kernelscope-static

STAGE=$(mktemp -d "${TMPDIR:-/tmp}/kernelscope-vsix.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT
# The extension as it is packaged (node_modules holds its runtime dependency).
"$ROOT/scripts/npm-deps.sh" "$ROOT/editors/vscode"
(cd "$ROOT/editors/vscode" && npx tsc -p .)
# A copy of the extension beside its node_modules (vsce packs the runtime dependencies).
mkdir -p "$STAGE/ext/server/lib"
(cd "$ROOT/editors/vscode" && tar --exclude=./node_modules --exclude=./server --exclude='./*.vsix' -cf - .) |
  tar -C "$STAGE/ext" -xf -
ln -s "$ROOT/editors/vscode/node_modules" "$STAGE/ext/node_modules"
cp "$SERVER" "$STAGE/ext/server/kernelscope"
strip "$STAGE/ext/server/kernelscope"

# Libraries every Debian 12 system has: glibc's, libstdc++ and libgcc.
base='^(linux-vdso|ld-linux-x86-64|libc|libm|libdl|libpthread|librt|libstdc\+\+|libgcc_s)\.so'
while read -r name _ path _; do
  [[ $name =~ $base ]] && continue
  [ -f "$path" ] || { say "cannot find $name for the server"; exit 1; }
  cp -L "$path" "$STAGE/ext/server/lib/$name"
done < <(ldd "$SERVER" | awk '$2 == "=>" { print $1, $2, $3, $4 }')
patchelf --set-rpath '$ORIGIN/lib' "$STAGE/ext/server/kernelscope"

# Check: with no LD_LIBRARY_PATH, every library is the carried copy or a base one; no LLVM.
resolved=$(env -u LD_LIBRARY_PATH ldd "$STAGE/ext/server/kernelscope")
if grep -q 'not found\|llvm' <<<"$resolved"; then
  say "the packaged server does not resolve on its own:"
  echo "$resolved" >&2
  exit 1
fi
while read -r name _ path _; do
  [[ $name =~ $base ]] && continue
  if [ "$path" != "$STAGE/ext/server/lib/$name" ]; then
    say "$name resolves to $path, not to the copy in server/lib"
    exit 1
  fi
done < <(awk '$2 == "=>" { print $1, $2, $3, $4 }' <<<"$resolved")
env -u LD_LIBRARY_PATH "$STAGE/ext/server/kernelscope" --version >/dev/null

mkdir -p "$(dirname "$OUT")"
(cd "$STAGE/ext" && npx vsce package --target linux-x64 --skip-license --allow-missing-repository \
  -o "$OUT" >/dev/null)
say "wrote $OUT ($(du -h "$OUT" | cut -f1)); server libraries: $(ls "$STAGE/ext/server/lib" | tr '\n' ' ')"
