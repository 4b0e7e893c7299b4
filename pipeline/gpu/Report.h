// What a run or a profile found, in the figures every front end shows (the protocol's
// RunResult and ProfileResult are made from them in server/lsp/convert/GpuResults.h).
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "GpuExecProtocol.h"
#include "LineProfile.h"

namespace ks::gpu {

/// A run's time and what it moved and computed per second (at the median time).
struct RunFigures {
  TimeStats time;
  double bytes = 0;             // the spec's `bytes`, else every buffer once
  double bandwidth = 0;         // bytes/s
  std::optional<double> flops;  // the spec's `flops`
  double throughput = 0;        // FLOP/s
};
RunFigures runFigures(const LaunchPlan&, const RunResult&);

/// The lines of a profile, hottest first; `top` > 0 keeps that many.
std::vector<const LineCounters*> hottestLines(const KernelLineProfile&, size_t top = 0);

/// A count in few characters: 950, 12.3k, 4.56M.
std::string compactCount(double v);

/// A stall reason in words ("long_sb" -> "long scoreboard").
std::string stallReasonWords(const std::string& reason);

/// "38% stalls · long scoreboard": a line's share of the kernel's stall samples and its top
/// stall reason, as inlay hints show it.
std::string lineHeadline(const KernelLineProfile&, const LineCounters&);

}  // namespace ks::gpu
