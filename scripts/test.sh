#!/usr/bin/env bash
# Sets everything up (idempotent, including what the editor tests need), builds, and runs
# every test: pipeline unit and golden tests, LSP conversation tests, editor end-to-end
# tests (Neovim, Emacs, Vim, VS Code), and the GPU test (which skips without a GPU).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${KERNELSCOPE_BUILD_DIR:-$ROOT/build}
export KERNELSCOPE_EXTRA_APT="neovim emacs-nox elpa-eglot vim vim-ale clang libclang-rt-14-dev chromium build-essential pkg-config python3 libkrb5-dev ripgrep"
"$ROOT/scripts/setup.sh"
cd "$BUILD_DIR"
ctest --output-on-failure --timeout 1500 "$@"
