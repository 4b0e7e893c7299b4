#!/usr/bin/env bash
# kernelscope set-up: idempotent, safe to run on every invocation.
#
# 1. Debian packages (rustc-web built on LLVM 22, llvm-22-dev, llvm-22-tools for FileCheck,
#    the C++ libraries).
# 2. A matched ptxas + nvdisasm pair (CUDA 11.8 from Debian non-free, unpacked only),
#    unless a full CUDA toolkit with nvdisasm is already present.
# 3. The kernelscope build (CMake, Release; KERNELSCOPE_BUILD_DIR, KERNELSCOPE_CMAKE_ARGS).
# 4. The nvptx64 `core` sysroot, built by `kernelscope setup` into the per-user cache.
# Every step checks first and does nothing when its result is already there.
# `setup.sh --packages` does step 1 only.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${KERNELSCOPE_BUILD_DIR:-$ROOT/build}
CACHE_DIR=${KERNELSCOPE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kernelscope}
TOOL_DIR=$CACHE_DIR/cuda-tools

say() { printf '[setup] %s\n' "$*" >&2; }

# librust-num-traits-dev: a registry crate (with libm and autocfg) that the cargo tests'
# kernel crate takes offline from /usr/share/cargo/registry.
APT_PACKAGES=(rustc-web cargo-web rust-web-src llvm-22-dev llvm-22-tools nlohmann-json3-dev
              libasio-dev doctest-dev libtomlplusplus-dev libcereal-dev cmake g++ ninja-build binutils
              librust-num-traits-dev)
# Extra packages a caller needs as well (the test command adds the editors'), space-separated.
read -r -a EXTRA_APT <<<"${KERNELSCOPE_EXTRA_APT:-}"
APT_PACKAGES+=("${EXTRA_APT[@]}")

install_apt_packages() {
  "$ROOT/scripts/ensure-apt.sh" setup "${APT_PACKAGES[@]}"
  say "Debian packages: present"
}

# The Debian mirror this machine already uses, read from its own sources.
debian_mirror() {
  local uri
  uri=$(grep -hoE '^URIs:\s*\S+/debian/?$' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1 | awk '{print $2}')
  [ -n "$uri" ] || uri=$(grep -hoE '^deb\s+\S+/debian/?\s' /etc/apt/sources.list 2>/dev/null | head -1 | awk '{print $2}')
  echo "${uri%/}"
}

install_cuda_pair() {
  if [ -x "$TOOL_DIR/nvdisasm" ] && [ -x "$TOOL_DIR/ptxas" ]; then say "ptxas + nvdisasm: present in $TOOL_DIR"; return; fi
  local cuda_home=${CUDA_HOME:-/usr/local/cuda}
  if [ -x "$cuda_home/bin/nvdisasm" ] && [ -x "$cuda_home/bin/ptxas" ]; then
    say "ptxas + nvdisasm: using the CUDA toolkit in $cuda_home"; return
  fi
  local mirror; mirror=$(debian_mirror)
  if [ -z "$mirror" ]; then say "ptxas + nvdisasm: no Debian mirror found; SASS will be unavailable"; return; fi
  say "ptxas + nvdisasm: fetching CUDA 11.8 tools from Debian non-free (~84 MB, once)"
  local work; work=$(mktemp -d); trap 'rm -rf "$work"' RETURN
  cat >"$work/nonfree.sources" <<SRC
Types: deb
URIs: $mirror
Suites: bookworm
Components: non-free
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  mkdir -p "$work/lists/partial"
  local opts=(-o "Dir::Etc::sourcelist=$work/nonfree.sources" -o "Dir::Etc::sourceparts=-"
              -o "Dir::State::Lists=$work/lists" -o "Debug::NoLocking=1")
  if ! (cd "$work" && apt-get "${opts[@]}" -qq update && apt-get "${opts[@]}" -qq download nvidia-cuda-toolkit) >/dev/null 2>&1; then
    say "ptxas + nvdisasm: download failed; SASS will be unavailable (kernelscope doctor explains)"; return
  fi
  dpkg -x "$work"/nvidia-cuda-toolkit_*.deb "$work/x"
  mkdir -p "$TOOL_DIR"
  cp "$work/x/usr/bin/nvdisasm" "$work/x/usr/bin/ptxas" "$TOOL_DIR/"
  chmod 755 "$TOOL_DIR/nvdisasm" "$TOOL_DIR/ptxas"
  say "ptxas + nvdisasm: installed in $TOOL_DIR ($("$TOOL_DIR/ptxas" --version | tail -1))"
}

build_kernelscope() {
  say "building kernelscope in $BUILD_DIR"
  local gen=() log="$BUILD_DIR/setup-build.log"
  command -v ninja >/dev/null && gen=(-G Ninja)
  mkdir -p "$BUILD_DIR"
  local args=()  # KERNELSCOPE_CMAKE_ARGS: space-separated
  read -r -a args <<<"${KERNELSCOPE_CMAKE_ARGS:-}"
  if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
    cmake -S "$ROOT" -B "$BUILD_DIR" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release "${args[@]}" >"$log" 2>&1 \
      || { tail -40 "$log" >&2; say "cmake failed (full log: $log)"; exit 1; }
  fi
  # KERNELSCOPE_BUILD_TARGET narrows the build (the demo needs only the binary).
  cmake --build "$BUILD_DIR" --parallel "$(nproc)" ${KERNELSCOPE_BUILD_TARGET:+--target "$KERNELSCOPE_BUILD_TARGET"} >"$log" 2>&1 \
    || { grep -E "error|FAILED" "$log" | head -40 >&2; say "build failed (full log: $log)"; exit 1; }
}

install_apt_packages
[ "${1:-}" = "--packages" ] && exit 0
install_cuda_pair
build_kernelscope
"$BUILD_DIR/server/kernelscope" setup
