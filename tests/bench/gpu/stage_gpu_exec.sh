#!/usr/bin/env bash
# Copies what builds ks-gpu-exec on a GPU machine without LLVM into OUTDIR: pipeline/gpu-exec
# and the pipeline files its standalone CMakeLists.txt compiles with it (pipeline/tools'
# Process, pipeline/model's Files and the header-only TextUtil.h), as src/pipeline/..., and
# nlohmann/json's headers as include/. Shared by the prepare scripts beside it.
#
# Usage: tests/bench/gpu/stage_gpu_exec.sh OUTDIR
# Then on the GPU machine, in OUTDIR:
#   cmake -S src/pipeline/gpu-exec -B build -DNLOHMANN_JSON_INCLUDE_DIR=$PWD/include && cmake --build build
set -euo pipefail
if [ $# -ne 1 ]; then
  echo "usage: $0 OUTDIR" >&2
  exit 2
fi
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
OUT=$1
mkdir -p "$OUT/src/pipeline/gpu-exec" "$OUT/src/pipeline/tools" "$OUT/src/pipeline/model" "$OUT/include"
cp "$ROOT"/pipeline/gpu-exec/*.h "$ROOT"/pipeline/gpu-exec/*.cpp "$ROOT"/pipeline/gpu-exec/CMakeLists.txt \
  "$OUT/src/pipeline/gpu-exec/"
cp "$ROOT"/pipeline/tools/Process.h "$ROOT"/pipeline/tools/Process.cpp "$OUT/src/pipeline/tools/"
cp "$ROOT"/pipeline/model/Files.h "$ROOT"/pipeline/model/Files.cpp "$ROOT"/pipeline/model/TextUtil.h \
  "$OUT/src/pipeline/model/"
NLOHMANN=${NLOHMANN_JSON_INCLUDE_DIR:-/usr/include}
if [ ! -f "$NLOHMANN/nlohmann/json.hpp" ]; then
  echo "$0: no nlohmann/json.hpp under $NLOHMANN (set NLOHMANN_JSON_INCLUDE_DIR)" >&2
  exit 1
fi
cp -r "$NLOHMANN/nlohmann" "$OUT/include/"
