// Runs a launch plan on the local GPU through the CUDA driver API (Driver.h).
//
// The first launch runs on freshly filled buffers and its results are the ones reported;
// the remaining warm-up launches and the timed launches (each between two events) follow on
// the same buffers. Called in the `gpu-exec` child process only: a fault ends that process's
// CUDA context, never the caller's.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "GpuExecProtocol.h"

namespace ks::gpu {

/// What `run` says when there is no driver, for every front end.
inline constexpr const char* kNoDriverHint = "set a runner to use a GPU elsewhere";

/// The host bytes of a buffer filled as `arg.fill` says (`fileData` for file(...)).
std::string fillBuffer(const ArgPlan& arg, const std::string& fileData);

/// The uniform random number generator of `uniform(lo, hi, seed = S)`: element i of a buffer
/// is lo + (hi - lo) * u(seed, i) with u in [0, 1), the same on every machine (splitmix64).
double uniformAt(uint64_t seed, uint64_t index);

/// Why the CUDA driver cannot be loaded on this machine (a failure of kind "no-driver"),
/// or nullopt when it can. Loads it only: no device is touched.
std::optional<RunResult> driverMissing();

/// Executes `request` (Run or LaunchOnce) on device 0.
RunResult execute(const ExecRequest& request);

/// The checksum and first elements of `bytes` as `elem` values.
void summarize(const std::string& bytes, ElemType elem, BufferResult& out);

}  // namespace ks::gpu
