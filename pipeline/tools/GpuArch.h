// The GPU architectures kernelscope knows, in one catalogue: which CUDA releases' ptxas and
// nvdisasm take each one, and what one of its SMs offers (occupancy's figures). Validation,
// the options' help, occupancy and the server's `archs` capability (the editors' arch
// pickers) all read it, so they name the same architectures.
//
// rustc can emit PTX for any sm_XX its LLVM knows, but ptxas and nvdisasm only take the
// architectures of their own CUDA release (sm_100 needs CUDA 12.8; CUDA 13 dropped
// sm_50..sm_72). When a stage cannot run for an arch, the message names the release
// that would.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ks {

/// The architecture a compile targets when neither the caller, kernelscope.toml nor the
/// crate chose one.
inline constexpr std::string_view kDefaultArch = "sm_90";

/// What one SM of an architecture offers, as NVIDIA's occupancy calculator
/// (cuda_occupancy.h) and the programming guide's table give it; Occupancy.h derives the rest.
struct SmFigures {
  uint32_t maxWarps = 0;   // resident warps
  uint32_t maxBlocks = 0;  // resident blocks
  uint32_t sharedKiB = 0;  // the largest shared memory carveout
  uint32_t optInKiB = 0;   // shared memory a block may use when it opts in
  std::vector<uint32_t> carveoutsKiB;
};

/// One architecture of the catalogue.
struct GpuArchInfo {
  uint32_t sm = 0;                   // 90 for sm_90
  std::string_view gpus;             // "H100, H200"
  std::string_view cudaFirst;        // the first CUDA release whose ptxas takes it ("12.8")
  std::string_view cudaLast;         // the last, where a later release dropped it; "": still taken
  std::optional<SmFigures> figures;  // nullopt: no occupancy figures
  std::string name() const { return "sm_" + std::to_string(sm); }
};

/// Every architecture kernelscope knows, oldest first.
const std::vector<GpuArchInfo>& gpuArchs();

/// The catalogue's entry of `arch` ("sm_90", "sm_90a", "sm_100f"); null for a name that is
/// no sm_XX or one the catalogue does not hold.
const GpuArchInfo* gpuArch(std::string_view arch);

/// Why `arch` is no architecture of the catalogue (an sm_XX with an optional `a` or `f`);
/// nullopt when it is one.
std::optional<std::string> validateArch(std::string_view arch);

/// The catalogue's range in words, for help texts: "sm_50 .. sm_121".
std::string archRangeText();

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
