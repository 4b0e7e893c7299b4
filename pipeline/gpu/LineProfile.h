// A kernel's Nsight Compute counters on the user's source lines.
//
// ncu lists one row per SASS instruction of the profiled cubin, in the order of kernelscope's
// own SASS listing of that cubin; each row is joined with its SASS line's inline chain and
// belongs to the innermost frame in the user's files, so a stall in code inlined from
// `core::ptr::add` counts on the user's line that called it. Counters with no user frame
// (code the compiler made up) stay in a line of their own ("no source line"), so the lines'
// samples always sum to the kernel's.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "Artifact.h"
#include "Ncu.h"

namespace ks::gpu {

struct LineCounters {
  std::string file;   // empty with line 0: no source line
  uint32_t line = 0;  // 1-based
  std::string text;   // the line's source text, trimmed (filled by the GPU service)
  size_t instructions = 0;
  double stallSamples = 0;
  double executed = 0;         // warp-level instructions executed
  double threadsExecuted = 0;  // thread-level
  double l2Sectors = 0, l2SectorsIdeal = 0;
  /// The worst shared-memory bank conflict of the line's instructions as ncu's N-way (1: none);
  /// 0 when the line has no shared-memory access.
  double sharedConflictWays = 0;
  double l2SectorsLocal = 0;             // local-memory sectors (spills, per-thread arrays)
  double divergentBranches = 0;          // branch executions whose warp split
  std::map<std::string, double> stalls;  // reason -> samples
  /// Average active threads per executed instruction (32 = no divergence); 0 when none ran.
  double threadsActive() const { return executed > 0 ? threadsExecuted / executed : 0; }
  /// Sectors moved per ideal sector (1 = fully coalesced); 0 without global accesses.
  double sectorsPerIdeal() const { return l2SectorsIdeal > 0 ? l2Sectors / l2SectorsIdeal : 0; }
  /// The top `n` stall reasons, largest first.
  std::vector<std::pair<std::string, double>> topStalls(size_t n) const;
};

struct KernelLineProfile {
  std::string kernel;
  double totalSamples = 0;
  std::vector<LineCounters> lines;  // by file and line; the "no source line" entry last
  /// Samples per SASS artifact line (0-based, the artifact's whole text), for the SASS view.
  std::map<uint32_t, double> sassLineSamples;
  NcuKernelMetrics metrics;
  double share(const LineCounters& l) const {
    return totalSamples > 0 ? l.stallSamples / totalSamples : 0;
  }
};

/// Joins `profile` with kernel `kernel`'s instructions in the SASS artifact. `isUserFile`
/// says which files are the user's. Returns the problem when the rows do not match the
/// listing (another cubin was profiled) or the kernel is not in it.
std::optional<KernelLineProfile> attributeToLines(
    const NcuSourceProfile& profile, const std::string& kernel, const Artifact& sass,
    const std::function<bool(const std::string&)>& isUserFile, std::string& problem);

}  // namespace ks::gpu
