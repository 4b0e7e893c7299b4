// Kernel entry points in source text, where no compiler says where they are: the
// definition of a kernel whose backend's PTX has no usable line info (toolchain profiles),
// which crates of a workspace have kernels (DependentCrates.h), and which kernel a GPU
// launch means (pipeline/gpu/KernelLaunch.h).
//
// Each Rust GPU toolchain marks kernels its own way: plain rustc's nvptx64 target uses
// `extern "ptx-kernel" fn` (or `extern "gpu-kernel"`), Rust-CUDA (cuda_std) and
// cuda-oxide put `#[kernel]` on a plain `fn`, and CUDA C++ has `__global__`. The scan is
// lexical: comments and string literals are skipped, nothing is compiled, so it answers
// even while the file does not compile.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ks {

enum class KernelMarker : uint8_t {
  PtxKernelAbi,     // extern "ptx-kernel" / "gpu-kernel" fn (rustc-nvptx)
  KernelAttribute,  // #[kernel] fn (rust-cuda's cuda_std, cuda-oxide)
  CudaGlobal,       // __global__ (CUDA C++)
};

struct KernelEntry {
  std::string name;     // the function's name as written
  uint32_t line = 0;    // 1-based line of the name
  uint32_t column = 0;  // 1-based column of the name
  KernelMarker marker = KernelMarker::PtxKernelAbi;
};

/// The kernels defined in `source`; `cuda` selects C++ rules (`__global__`) over Rust's.
std::vector<KernelEntry> scanKernelEntries(std::string_view source, bool cuda = false);

/// The `#[kernel]`/`extern "ptx-kernel"` function of `source` that a PTX entry `symbol`
/// was made from: the same name (Rust-CUDA and cuda-oxide keep it), or a name that
/// `symbol` ends in after an underscore (cuda-oxide's `cuda_oxide_kernel_<hash>_<name>`).
std::optional<KernelEntry> kernelEntryFor(std::string_view source, std::string_view symbol);

}  // namespace ks
