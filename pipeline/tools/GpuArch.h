// GPU architectures and the CUDA releases whose ptxas and nvdisasm know them.
//
// rustc can emit PTX for any sm_XX its LLVM knows, but ptxas and nvdisasm only take the
// architectures of their own CUDA release (sm_100 needs CUDA 12.8; CUDA 13 dropped
// sm_50..sm_72). When a stage cannot run for an arch, the message names the release
// that would.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ks {

/// The CUDA releases that support an arch: the first ("12.8"), and the last where a
/// later release dropped it (empty when still supported).
struct CudaSupport {
  std::string first;
  std::string last;
};

/// nullopt for an arch we do not know.
std::optional<CudaSupport> cudaSupportFor(std::string_view arch);

/// Whether CUDA `release` ("11.8") can assemble for `arch`; true when unknown.
bool cudaSupports(std::string_view release, std::string_view arch);

/// "ptxas 11.8 (PATH) cannot assemble sm_100: it needs CUDA 12.8 or newer; set CUDA_HOME
/// to such a toolkit (PTX is still shown)".
std::string archNeedsCudaMessage(std::string_view tool, std::string_view release,
                                 std::string_view path, std::string_view arch);

}  // namespace ks
