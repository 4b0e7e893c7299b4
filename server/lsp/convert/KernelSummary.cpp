// See KernelSummary.h.
#include "KernelSummary.h"

namespace ks {

lsp::ResourceUsage resourceUsageOf(const KernelResources& r) {
  auto n = [](auto v) { return static_cast<int>(v); };
  return {n(r.registers),  n(r.barriers),     n(r.stackFrame),     n(r.spillStores),
          n(r.spillLoads), n(r.sharedMemory), n(r.constantMemory), n(r.localMemory)};
}

lsp::OccupancySummary occupancySummaryOf(const Occupancy& o) {
  return {static_cast<int>(o.blockSize), static_cast<int>(o.warpsPerSm),
          static_cast<int>(o.maxWarpsPerSm), static_cast<int>(o.fraction() * 100.0 + 0.5),
          o.limitText()};
}

}  // namespace ks
