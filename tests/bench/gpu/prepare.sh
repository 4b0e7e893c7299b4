#!/usr/bin/env bash
# Prepares a GPU machine's run of run_device.py: the gpu-exec requests of every example and
# CUDA twin, made here by kernelscope (cubins from the same ptxas as the SASS view), and the
# sources that build ks-gpu-exec (pipeline/gpu-exec/, without LLVM) and launch_bench there.
#
# Usage: tests/bench/gpu/prepare.sh KERNELSCOPE OUTDIR [SET]
#   SET: all (default), or sweeps: only the sweeps' configurations (NAME.CONFIG.run.req, one
#   per configuration, named as the fake GPU runner's {grid}/{block} pattern finds them) and
#   the profiles before and after an edit (the baseline's)
# Then on the GPU machine, in OUTDIR:
#   cmake -S src/pipeline/gpu-exec -B build -DNLOHMANN_JSON_INCLUDE_DIR=$PWD/include && cmake --build build
#   g++ -O2 launch_bench.cpp -I$CUDA_HOME/include -L$CUDA_HOME/lib64/stubs -lcuda -o launch_bench
#   python3 run_device.py build/ks-gpu-exec ./launch_bench requests results
set -euo pipefail
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: $0 KERNELSCOPE OUTDIR [all|sweeps]" >&2
  exit 2
fi
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
KS=$(realpath "$1")
OUT=$2
SET=${3:-all}
rm -rf "$OUT"
mkdir -p "$OUT/requests"
"$ROOT"/tests/bench/gpu/stage_gpu_exec.sh "$OUT"
cp "$ROOT"/tests/bench/gpu/launch_bench.cpp "$ROOT"/tests/bench/gpu/run_device.py "$OUT/"
cd "$ROOT"
if [ "$SET" = sweeps ]; then
  # saxpy's block, its grid following (one thread per element).
  for b in 64 128 256 512 1024; do
    "$KS" run examples/saxpy.rs --dump /nonexistent --spec "block = $b; grid = ceil(n / block)" \
      --save-request "$OUT/requests/saxpy.block$b.run.req"
  done
  # reduce_sum's grid (its block is the kernel's BLOCK constant, 256), and two blocks that
  # are not BLOCK, whose outputs the sweep must find wrong.
  for g in 132 264 528 1024 2112 8192; do
    "$KS" run examples/reduce_sum.rs --dump /nonexistent --spec "grid = $g" \
      --save-request "$OUT/requests/reduce_sum.grid$g.block256.run.req"
  done
  for b in 128 512; do
    "$KS" run examples/reduce_sum.rs --dump /nonexistent --spec "block = $b" \
      --save-request "$OUT/requests/reduce_sum.grid1024.block$b.run.req"
  done
  # matmul_tiled's block: only TILE x TILE (16 x 16) computes C; the others show the check.
  for b in 8 16 32; do
    "$KS" run examples/matmul_tiled.rs --dump /nonexistent --spec "block = [$b, $b]" \
      --save-request "$OUT/requests/matmul_tiled.block${b}x$b.run.req"
  done
  for side in before after; do
    "$KS" run tests/fixtures/gpu/coalesce/$side.rs --dump /nonexistent \
      --save-request "$OUT/requests/scale_matrix_$side.run.req"
    "$KS" profile tests/fixtures/gpu/coalesce/$side.rs \
      --save-request "$OUT/requests/scale_matrix_$side.profile.req"
  done
  exit 0
fi
for ex in saxpy vector_add elementwise_mul reduce_sum matmul_naive matmul_tiled; do
  "$KS" run "examples/$ex.rs" --dump /nonexistent --save-request "$OUT/requests/$ex.run.req"
  "$KS" run "examples/cuda/$ex.cu" --dump /nonexistent --save-request "$OUT/requests/${ex}_cuda.run.req"
  "$KS" profile "examples/$ex.rs" --save-request "$OUT/requests/$ex.profile.req"
done
for ex in matmul_naive matmul_tiled; do
  "$KS" profile "examples/cuda/$ex.cu" --save-request "$OUT/requests/${ex}_cuda.profile.req"
done
for ex in saxpy matmul_tiled; do
  "$KS" run "examples/$ex.rs" --save-request "$OUT/requests/$ex.bench.req"
done
# Safe kernels whose cubin has core's panics linked in (bounds check, % by a runtime divisor, expect).
for k in scale_slice rem_by div_expect; do
  "$KS" run tests/fixtures/core_calls.rs --kernel "$k" --dump /nonexistent \
    --save-request "$OUT/requests/$k.run.req"
done
# A launch that faults: saxpy told that its 256-element buffers hold 2^28 elements.
"$KS" run examples/saxpy.rs --spec 'n = 1 << 28; x = f32[256] zeros; y = f32[256] zeros' \
  --save-request "$OUT/requests/saxpy_out_of_bounds.fault.req"
