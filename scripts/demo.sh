#!/usr/bin/env bash
# Sets everything up (idempotent), then shows what each line of the bundled SAXPY kernel
# became: MIR, LLVM IR, PTX and SASS, and the kernel's registers and memory.
# Any arguments replace the default ones given to `kernelscope explain`.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KERNELSCOPE_BUILD_TARGET=kernelscope "$ROOT/scripts/setup.sh"
BIN=${KERNELSCOPE_BUILD_DIR:-$ROOT/build}/server/kernelscope
if [ $# -eq 0 ]; then set -- "$ROOT/examples/saxpy.rs"; fi
exec "$BIN" explain "$@"
