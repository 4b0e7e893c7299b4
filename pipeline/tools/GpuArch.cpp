// GPU architectures and the CUDA releases that support them. See GpuArch.h.
#include "GpuArch.h"

#include <map>

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

/// The base arch without the `a`/`f` suffix: "sm_90a" -> "sm_90".
std::string_view baseArch(std::string_view arch) {
  while (!arch.empty() && (arch.back() == 'a' || arch.back() == 'f')) arch.remove_suffix(1);
  return arch;
}

}  // namespace

std::optional<CudaSupport> cudaSupportFor(std::string_view arch) {
  // From the ptxas release notes of each CUDA release.
  static const std::map<std::string_view, CudaSupport> table = {
      {"sm_50", {"6.0", "12.9"}},   {"sm_52", {"7.0", "12.9"}},  {"sm_53", {"7.0", "12.9"}},
      {"sm_60", {"8.0", "12.9"}},   {"sm_61", {"8.0", "12.9"}},  {"sm_62", {"8.0", "12.9"}},
      {"sm_70", {"9.0", "12.9"}},   {"sm_72", {"10.0", "12.9"}}, {"sm_75", {"10.0", ""}},
      {"sm_80", {"11.0", ""}},      {"sm_86", {"11.1", ""}},     {"sm_87", {"11.4", ""}},
      {"sm_89", {"11.8", ""}},      {"sm_90", {"11.8", ""}},     {"sm_100", {"12.8", ""}},
      {"sm_101", {"12.8", "12.9"}}, {"sm_103", {"12.9", ""}},    {"sm_110", {"13.0", ""}},
      {"sm_120", {"12.8", ""}},     {"sm_121", {"12.9", ""}},
  };
  auto it = table.find(baseArch(arch));
  if (it == table.end()) return std::nullopt;
  return it->second;
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
