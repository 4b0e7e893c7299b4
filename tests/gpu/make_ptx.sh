#!/usr/bin/env bash
# Compiles every example kernel (examples/*.rs) to PTX for the GPU test (gpu_examples).
#
# Usage: tests/gpu/make_ptx.sh OUTDIR
#   Writes OUTDIR/<example>.ptx, one per example, with the same rustc call kernelscope makes
#   (MIR, LLVM IR and PTX with line directives, sm_90, opt-level 3); the MIR and LLVM IR land
#   in OUTDIR/<example>/ alongside. Checks each with ptxas when one is found.
# Environment:
#   KS_RUSTC    rustc to use (default /usr/bin/rustc: Debian's rustc-web on LLVM 22)
#   KS_SYSROOT  sysroot with the nvptx64 `core` (default /tmp/sysroot when it has one, else
#               the sysroot `kernelscope setup` built in its cache for this rustc release)
#   KS_ARCH     target GPU (default sm_90)
#   KS_PTXAS    ptxas for the check (default: the set-up's CUDA 11.8 ptxas, else PATH, else skip)
# The PTX needs nothing else: copy OUTDIR to a GPU machine and run gpu_examples OUTDIR there.
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 OUTDIR" >&2
  exit 2
fi
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=$1
RUSTC=${KS_RUSTC:-/usr/bin/rustc}
CACHE=${KERNELSCOPE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kernelscope}
has_core() { compgen -G "$1/lib/rustlib/nvptx64-nvidia-cuda/lib/libcore-*.rlib" >/dev/null; }
SYSROOT=${KS_SYSROOT:-/tmp/sysroot}
if [ -z "${KS_SYSROOT:-}" ] && ! has_core "$SYSROOT" && [ -x "$RUSTC" ]; then
  release=$("$RUSTC" -vV | sed -n 's/^release: //p')
  for dir in "$CACHE"/sysroot/"$release"-*; do
    if has_core "$dir"; then SYSROOT=$dir; break; fi
  done
fi
ARCH=${KS_ARCH:-sm_90}
PTXAS=${KS_PTXAS:-}
if [ -z "$PTXAS" ]; then
  for p in "$CACHE/cuda-tools/ptxas" "$(command -v ptxas || true)"; do
    if [ -n "$p" ] && [ -x "$p" ]; then PTXAS=$p; break; fi
  done
fi

[ -x "$RUSTC" ] || { echo "make_ptx: no rustc at $RUSTC (set KS_RUSTC)" >&2; exit 1; }
has_core "$SYSROOT" ||
  { echo "make_ptx: $SYSROOT has no nvptx64 core (set KS_SYSROOT)" >&2; exit 1; }
mkdir -p "$OUT"

status=0
for src in "$ROOT"/examples/*.rs; do
  name=$(basename "$src" .rs)
  dir=$OUT/$name
  mkdir -p "$dir"
  if ! RUSTC_BOOTSTRAP=1 "$RUSTC" --sysroot "$SYSROOT" --edition 2021 \
      --crate-type rlib --crate-name k --target nvptx64-nvidia-cuda \
      -C opt-level=3 -C target-cpu="$ARCH" -C codegen-units=1 \
      -C debuginfo=line-directives-only -Zmir-include-spans=on \
      --emit=mir,llvm-ir,asm --out-dir "$dir" "$src"; then
    echo "make_ptx: $name: rustc failed" >&2
    status=1
    continue
  fi
  cp "$dir/k.s" "$OUT/$name.ptx"
  if [ -n "$PTXAS" ]; then
    # Plain (not -c) ptxas: fails on an unresolved extern, which the driver would reject too.
    if ! "$PTXAS" -arch="$ARCH" -lineinfo -o "$dir/k.cubin" "$OUT/$name.ptx"; then
      echo "make_ptx: $name: ptxas rejected the PTX" >&2
      status=1
      continue
    fi
  fi
  echo "$OUT/$name.ptx"
done
exit $status
