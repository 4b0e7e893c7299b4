// A kernel's resources and occupancy in the protocol's shape (protocol/Extensions.h): the
// one conversion that `kernelscope/kernels` and `kernelscope explain --json` share, so both
// name the same things with the same fields (`registers`, `activeWarpsPerSM`, `percent`).
#pragma once

#include "Diagnostics.h"
#include "Extensions.h"
#include "Occupancy.h"

namespace ks {

lsp::ResourceUsage resourceUsageOf(const KernelResources&);
lsp::OccupancySummary occupancySummaryOf(const Occupancy&);

}  // namespace ks
