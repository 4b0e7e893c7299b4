#!/usr/bin/env bash
# Records the stand-in PTX of the rust-cuda and cuda-oxide profiles (see README.md here):
# neither toolchain runs on the build machines, so the PTX comes from the compilers they
# hand their code to, run on kernels written for these tests:
#   rust-cuda/add.ptx            libNVVM (nvcc's cicc) on rust-cuda/add.cu
#   cuda-oxide/vecadd.sm_80.ptx  rustc -> LLVM IR -> llc-22 (LLVM NVPTX) on cuda-oxide/vecadd.rs
# Tools are the ones kernelscope's discovery finds (`kernelscope doctor`); override with
# NVCC=, RUSTC=, SYSROOT=, LLC=. Then run the tests with UPDATE_GOLDEN=1 to rewrite the
# .expected dumps:
#   UPDATE_GOLDEN=1 build-vscode/tests/pipeline/ks_unit_tests -sf='*ProfileTest.cpp'
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
BIN=${KERNELSCOPE_BIN:-$ROOT/build/server/kernelscope}

# "  <stage>  <tool>  ok  <path>  (<version>)" -> <path>
doctorPath() { "$BIN" doctor 2>/dev/null | awk -v t="$1" '{for (i = 1; i < NF; i++) if ($i == t && $(i+1) == "ok") { print $(i+2); exit }}'; }
NVCC=${NVCC:-$(doctorPath nvcc)}
RUSTC=${RUSTC:-$(doctorPath rustc)}
SYSROOT=${SYSROOT:-$(doctorPath sysroot)}
LLC=${LLC:-llc-22}
for tool in NVCC RUSTC SYSROOT; do
  [ -n "${!tool}" ] || { echo "record.sh: no $tool (see '$BIN doctor'; or set $tool=)" >&2; exit 1; }
done

# rust-cuda: libNVVM's PTX with line info. -arch=compute_75: cuda_builder's default is
# compute_61, which CUDA 13's nvcc no longer accepts; compute_75 is the oldest it does.
# Compiled in its directory so that `.file` names the file where it lies.
(cd "$HERE/rust-cuda" && "$NVCC" -ptx -lineinfo -arch=compute_75 add.cu -o add.ptx)
echo "recorded rust-cuda/add.ptx ($("$NVCC" --version | tail -1))"

# cuda-oxide: rustc's LLVM IR for nvptx64 with line tables (the LLVM IR a backend hands to
# llc), then llc-22 for sm_80, as cuda-oxide runs llc.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
RUSTC_BOOTSTRAP=1 "$RUSTC" --sysroot "$SYSROOT" --target nvptx64-nvidia-cuda -C opt-level=3 -C target-cpu=sm_80 \
  -C codegen-units=1 -C debuginfo=line-tables-only --edition 2021 --crate-type rlib --crate-name vecadd \
  --emit=llvm-ir -o "$tmp/vecadd.ll" "$HERE/cuda-oxide/vecadd.rs" 2>/dev/null
"$LLC" -march=nvptx64 -mcpu=sm_80 "$tmp/vecadd.ll" -o "$HERE/cuda-oxide/vecadd.sm_80.ptx"
echo "recorded cuda-oxide/vecadd.sm_80.ptx ($("$RUSTC" --version), $("$LLC" --version | grep -m1 'LLVM version' | xargs))"
