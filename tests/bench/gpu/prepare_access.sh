#!/usr/bin/env bash
# Prepares the GPU run behind the README's static-against-measured table: ncu profiles of the
# access fixture's kernels (tests/fixtures/access.rs) and of the examples, the requests made
# here by kernelscope (cubins from the same ptxas as the SASS view), and the sources that
# build ks-gpu-exec there. run_device.py runs them (profile requests only).
#
# Usage: tests/bench/gpu/prepare_access.sh KERNELSCOPE OUTDIR
# Then on the GPU machine, in OUTDIR:
#   cmake -S src/pipeline/gpu-exec -B build -DNLOHMANN_JSON_INCLUDE_DIR=$PWD/include && cmake --build build
#   python3 run_device.py build/ks-gpu-exec /bin/true requests results
# and copy results/*.profile.result to tests/golden/gpu/access/.
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 KERNELSCOPE OUTDIR" >&2
  exit 2
fi
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
KS=$(realpath "$1")
OUT=$2
rm -rf "$OUT"
mkdir -p "$OUT/requests"
"$ROOT"/tests/bench/gpu/stage_gpu_exec.sh "$OUT"
cp "$ROOT"/tests/bench/gpu/run_device.py "$OUT/"
cd "$ROOT"
for k in transpose_naive transpose_tile transpose_padded stride_32 broadcast_gather diverge \
  local_table pressure; do
  "$KS" profile tests/fixtures/access.rs --kernel "$k" --save-request "$OUT/requests/$k.profile.req"
done
for ex in saxpy vector_add elementwise_mul reduce_sum matmul_naive matmul_tiled; do
  "$KS" profile "examples/$ex.rs" --save-request "$OUT/requests/$ex.profile.req"
done
