#!/usr/bin/env bash
# Records real compiler output for the parser golden tests: for each kernel, every tool's
# raw output as kernelscope's pipeline saw it (rustc's MIR, LLVM IR, PTX and JSON
# diagnostics, the remarks, ptxas's report and nvdisasm's SASS).
# Then run the tests with UPDATE_GOLDEN=1 to rewrite the expected dumps.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BIN=${KERNELSCOPE_BIN:-$ROOT/build/server/kernelscope}
cd "$ROOT"
for f in examples/*.rs tests/fixtures/*.rs; do
  name=$(basename "$f" .rs)
  rm -rf "tests/golden/$name"
  "$BIN" explain "$f" --save-temps "tests/golden/$name" >/dev/null 2>&1 || true
  echo "recorded tests/golden/$name"
done
