// What a run or a profile found, in the figures and the JSON that every front end shows:
// `kernelscope run/profile --json` prints it, the language server answers kernelscope/run
// and kernelscope/profile with it.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "GpuExecProtocol.h"
#include "LineProfile.h"

namespace ks::gpu {

/// A run's time and what it moved and computed per second (at the median time).
struct RunFigures {
  TimeStats time;
  double bytes = 0;  // the spec's `bytes`, else every buffer once
  bool bytesFromSpec = false;
  double bandwidth = 0;         // bytes/s
  std::optional<double> flops;  // the spec's `flops`
  double throughput = 0;        // FLOP/s
};
RunFigures runFigures(const LaunchPlan&, const RunResult&);

nlohmann::json deviceJson(const DeviceInfo&);
nlohmann::json launchJson(const LaunchPlan&);

/// The run of `file`'s kernel: device, launch, times, bandwidth, buffers.
nlohmann::json runJson(const std::filesystem::path& file, const LaunchPlan&, const RunResult&);

/// The lines of a profile, hottest first; `top` > 0 keeps that many.
std::vector<const LineCounters*> hottestLines(const KernelLineProfile&, size_t top = 0);

/// A count in few characters: 950, 12.3k, 4.56M.
std::string compactCount(double v);

/// A stall reason in words ("long_sb" -> "long scoreboard").
std::string stallReasonWords(const std::string& reason);

/// "38% stalls · long scoreboard": a line's share of the kernel's stall samples and its top
/// stall reason, as inlay hints show it.
std::string lineHeadline(const KernelLineProfile&, const LineCounters&);

/// The profile of `file`'s kernel: kernel figures and each line's counters, hottest first.
/// `sourceText(line)` gives a line's source text for the listing.
nlohmann::json profileJson(const std::filesystem::path& file, const KernelLineProfile&,
                           const DeviceInfo&, const LaunchPlan&, size_t top,
                           const std::function<std::string(const LineCounters&)>& sourceText);

}  // namespace ks::gpu
