// A run's and a profile's outcome (pipeline/gpu/GpuService.h) in the protocol's shape
// (protocol/Extensions.h): the one conversion that kernelscope/run, kernelscope/profile and
// `kernelscope run/profile --json` share.
#pragma once

#include <filesystem>

#include "Extensions.h"
#include "GpuExecProtocol.h"
#include "LineProfile.h"
#include "ProfileBaseline.h"

namespace ks {

lsp::GpuDevice gpuDeviceOf(const gpu::DeviceInfo&);
lsp::GpuLaunch gpuLaunchOf(const gpu::LaunchPlan&);

/// The run of `file`'s kernel: device, launch, times, bandwidth, buffers.
lsp::RunResult runResultOf(const std::filesystem::path& file, const gpu::LaunchPlan&,
                           const gpu::RunResult&);

/// The profile of `file`'s kernel: kernel figures and each line's counters, hottest first;
/// `top` > 0 keeps that many lines.
lsp::ProfileResult profileResultOf(const std::filesystem::path& file, const gpu::KernelLineProfile&,
                                   const gpu::DeviceInfo&, const gpu::LaunchPlan&, size_t top = 0);

/// A profile's changes since its baseline (`since`: "last profile", "baseline").
std::vector<lsp::ProfileLineDelta> profileDeltasOf(const std::vector<gpu::LineDelta>&,
                                                   const std::string& since);

}  // namespace ks
