// The catalogue of GPU architectures. See GpuArch.h.
#include "GpuArch.h"

#include "TextUtil.h"

namespace ks {

namespace {

/// "12.8" -> 1208, for ordering releases.
int releaseNumber(std::string_view r) {
  auto major = text::takeUint(r);
  uint32_t minor = 0;
  if (text::consume(r, ".")) minor = text::takeUint(r).value_or(0);
  return major ? static_cast<int>(*major * 100 + minor) : -1;
}

/// The number of "sm_90", "sm_90a", "sm_100f"; nullopt for another shape.
std::optional<uint32_t> smNumber(std::string_view arch) {
  if (!text::consume(arch, "sm_")) return std::nullopt;
  auto n = text::takeUint(arch);
  if (!n || !(arch.empty() || arch == "a" || arch == "f")) return std::nullopt;
  return n;
}

}  // namespace

const std::vector<GpuArchInfo>& gpuArchs() {
  // The releases: the ptxas release notes of each CUDA release. The SM figures: NVIDIA's
  // occupancy calculator (cuda_occupancy.h, CUDA 13.0) and the programming guide's
  // technical specifications per compute capability.
  static const std::vector<GpuArchInfo> archs = [] {
    const std::vector<uint32_t> volta = {0, 8, 16, 32, 64, 96};
    const std::vector<uint32_t> ga100 = {0, 8, 16, 32, 64, 100, 132, 164};
    const std::vector<uint32_t> ga10x = {0, 8, 16, 32, 64, 100};
    const std::vector<uint32_t> hopper = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};
    return std::vector<GpuArchInfo>{
        {50, "Maxwell (GTX 750)", "6.0", "12.9", std::nullopt},
        {52, "Maxwell (GTX 900)", "7.0", "12.9", std::nullopt},
        {53, "Jetson TX1", "7.0", "12.9", std::nullopt},
        {60, "P100", "8.0", "12.9", std::nullopt},
        {61, "Pascal (GTX 10)", "8.0", "12.9", std::nullopt},
        {62, "Jetson TX2", "8.0", "12.9", std::nullopt},
        {70, "V100", "9.0", "12.9", SmFigures{64, 32, 96, 96, volta}},
        {72, "Xavier", "10.0", "12.9", SmFigures{64, 32, 96, 96, volta}},
        {75, "Turing (T4, RTX 20)", "10.0", "", SmFigures{32, 16, 64, 64, {32, 64}}},
        {80, "A100", "11.0", "", SmFigures{64, 32, 164, 163, ga100}},
        {86, "Ampere (A10, RTX 30)", "11.1", "", SmFigures{48, 16, 100, 99, ga10x}},
        {87, "Orin", "11.4", "", SmFigures{48, 16, 164, 163, ga100}},
        {89, "Ada (L4, L40, RTX 40)", "11.8", "", SmFigures{48, 24, 100, 99, ga10x}},
        {90, "H100, H200", "11.8", "", SmFigures{64, 32, 228, 227, hopper}},
        {100, "B200", "12.8", "", SmFigures{64, 32, 228, 227, hopper}},
        {101, "Thor (CUDA 12)", "12.8", "12.9", std::nullopt},
        {103, "B300", "12.9", "", SmFigures{64, 32, 228, 227, hopper}},
        {110, "Thor", "13.0", "", std::nullopt},
        {120, "RTX 50", "12.8", "", SmFigures{48, 24, 100, 99, ga10x}},
        {121, "DGX Spark", "12.9", "", SmFigures{48, 24, 100, 99, ga10x}},
    };
  }();
  return archs;
}

const GpuArchInfo* gpuArch(std::string_view arch) {
  const auto n = smNumber(arch);
  if (!n) return nullptr;
  for (const auto& a : gpuArchs())
    if (a.sm == *n) return &a;
  return nullptr;
}

std::string archRangeText() {
  return gpuArchs().front().name() + " .. " + gpuArchs().back().name();
}

std::optional<std::string> validateArch(std::string_view arch) {
  if (!smNumber(arch))
    return "unknown architecture '" + std::string(arch) + "': expected sm_XX, for example sm_90";
  if (!gpuArch(arch))
    return "unknown architecture '" + std::string(arch) + "': NVIDIA GPUs are " + archRangeText() +
           " (for example sm_70, sm_80, sm_90)";
  return std::nullopt;
}

std::optional<CudaSupport> cudaSupportFor(std::string_view arch) {
  const GpuArchInfo* a = gpuArch(arch);
  if (!a) return std::nullopt;
  return CudaSupport{std::string(a->cudaFirst), std::string(a->cudaLast)};
}

bool cudaSupports(std::string_view release, std::string_view arch) {
  auto s = cudaSupportFor(arch);
  int r = releaseNumber(release);
  if (!s || r < 0) return true;
  return r >= releaseNumber(s->first) && (s->last.empty() || r <= releaseNumber(s->last));
}

std::string archNeedsCudaMessage(std::string_view tool, std::string_view release,
                                 std::string_view path, std::string_view arch) {
  std::string m = std::string(tool) + " " + std::string(release) + " (" + std::string(path) +
                  ") cannot handle " + std::string(arch);
  auto s = cudaSupportFor(arch);
  if (!s) return m + ": use a CUDA toolkit that supports it (set CUDA_HOME)";
  if (releaseNumber(release) >= 0 && !s->last.empty() &&
      releaseNumber(release) > releaseNumber(s->last))
    return m + ": CUDA " + s->last + " was the last release to support it; set CUDA_HOME to CUDA " +
           s->first + ".." + s->last;
  return m + ": it needs CUDA " + s->first +
         " or newer (ptxas and nvdisasm of one release); set CUDA_HOME to such a toolkit";
}

}  // namespace ks
