#!/usr/bin/env bash
# Records real compiler output for the parser golden tests: for each kernel, every tool's
# raw output as kernelscope's pipeline saw it (rustc's MIR, LLVM IR, PTX and JSON
# diagnostics, the remarks, ptxas's report and nvdisasm's SASS).
# Then run the tests with UPDATE_GOLDEN=1 to rewrite the expected dumps. (The tool runs that the
# line-map, compile and LSP feature tests replay are recorded apart: tests/golden/tools/README.md.)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BIN=${KERNELSCOPE_BIN:-$ROOT/build/server/kernelscope}
cd "$ROOT"
for f in examples/*.rs tests/fixtures/*.rs; do
  name=$(basename "$f" .rs)
  # broken.rs's rustc output is read from its recording (tests/golden/tools/README.md).
  [ "$name" = broken ] && continue
  rm -rf "tests/golden/$name"
  "$BIN" explain "$f" --save-temps "tests/golden/$name" >/dev/null 2>&1 || true
  echo "recorded tests/golden/$name"
done

# Pass by pass (tests/pipeline/compare/PassesTest.cpp): rustc's -print-changed output, its final IR and
# the -Zdump-mir files of one kernel. saxpy keeps both (its MIR dumps are ~1.5 MB);
# reduce_sum, whose loops bring LLVM's loop passes, keeps the LLVM side only.
for k in saxpy reduce_sum; do
  rm -rf "tests/golden/passes-$k"
  "$BIN" passes "examples/$k.rs" --kernel "$k" --save-temps "tests/golden/passes-$k" >/dev/null 2>&1 || true
  echo "recorded tests/golden/passes-$k"
done
rm -rf tests/golden/passes-reduce_sum/mir

# The rust-cuda and cuda-oxide profiles' stand-in PTX (tests/golden/profiles/README.md).
tests/golden/profiles/record.sh
