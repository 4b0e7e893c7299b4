// Run and profile: a kernel of a document on a real GPU, for every front end.
//
// The one orchestration of `kernelscope run` / `profile` / `compare --run|--profile` and the
// language server's kernelscope/run and kernelscope/profile, as Engine::passes is of the
// passes view: compile the document through the engine (keeping the cubin ptxas made, the
// code the SASS view shows), evaluate the kernel's launch spec against its real parameters,
// hand the launch to a `gpu-exec` child (here, or through a runner prefix on another
// machine), and for a profile attribute Nsight Compute's counters to the source lines.
// Progress goes to a callback; a cancelled token kills the compile's or gpu-exec's process
// group. The front ends only turn the outcome into text or protocol types.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "Compile.h"
#include "Engine.h"
#include "KernelLaunch.h"
#include "LineProfile.h"
#include "ProfileBaseline.h"
#include "Report.h"

namespace ks::gpu {

struct GpuRequest {
  bool profile = false;
  CompileInput input;
  CompileOptions options;
  std::string kernel;  // as the caller named it; empty: the only kernel (or the only with a spec)
  LaunchSettings launch;
  /// Instead of launching: write the gpu-exec request here (`run --save-request`).
  std::filesystem::path saveRequest;
  /// Instead of launching: read this recorded gpu-exec result (`run --replay`).
  std::filesystem::path replay;
  /// A profile's baseline (ProfileBaseline.h): "last", the profile of this file, kernel and
  /// spec kept before; else a kept profile's file (`profile --json`'s output); empty: none.
  /// Every profile is kept in the cache directory for the next one's "last".
  std::string baseline;
  /// With "last": none kept yet is no problem (the editor compares whenever it can).
  bool baselineOptional = false;
};

struct GpuOutcome {
  bool cancelled = false;
  /// Lines said as they are (the compile's errors, the spec's errors at their lines), then
  /// `error`, the headline; both empty when it worked.
  std::vector<std::string> details;
  std::string error;
  std::vector<std::string> notes;  // said but not fatal
  std::string kernel;              // the kernel's symbol, once known
  LaunchSpec spec;                 // the spec that was evaluated
  std::optional<LaunchPlan> plan;
  bool requestSaved = false;  // saveRequest was written; nothing ran
  RunResult run;
  std::optional<KernelLineProfile> lines;        // a profile's, each line with its text
  std::shared_ptr<const CompileResult> compile;  // the compile that was launched
  std::optional<ProfileSnapshot> snapshot;       // a profile's, as it is kept
  /// Against the request's baseline: each line's change, and what it is since ("last
  /// profile", "baseline"); `baselineProblem` when the baseline asked for could not be read.
  std::optional<std::vector<LineDelta>> deltas;
  std::string since;
  std::string baselineProblem;
  bool ok() const { return !cancelled && error.empty() && details.empty(); }
  /// details and error as one message.
  std::string message() const;
};

/// Says what the job is doing ("compiling saxpy.rs", "launching saxpy on this machine").
using GpuProgress = std::function<void(const std::string& message)>;

/// Compiles, launches (or saves / replays) and, for a profile, attributes.
GpuOutcome runOnGpu(Engine&, const GpuRequest&, const GpuProgress& = {},
                    const CancellationToken& = {});

/// The kernels of a document that have a launch spec (in the file or the crate), in the
/// compile's kernel order; `problem` (and the compile's errors in `details`) when it has none.
struct SpecifiedKernels {
  std::vector<std::string> kernels;
  std::vector<std::string> details;
  std::string problem;
};
SpecifiedKernels kernelsWithSpecs(Engine&, const CompileInput&, const CompileOptions&,
                                  const CancellationToken& = {});

/// Several kernels of one document, each as runOnGpu runs `req.kernel`, `parallel` at once
/// (inside a Slurm allocation each through its own `srun`: parallel job steps), else one
/// after the other so that each has the GPU to itself. The outcomes in `kernels`' order.
std::vector<GpuOutcome> runKernelsOnGpu(Engine&, const GpuRequest& req,
                                        const std::vector<std::string>& kernels, size_t parallel,
                                        const GpuProgress& = {}, const CancellationToken& = {});

/// Calls `each(0)` .. `each(total - 1)`, `parallel` at once on threads of their own (the
/// calling thread one of them); returns when all are done.
void forEachAtOnce(size_t total, size_t parallel, const std::function<void(size_t)>& each);

}  // namespace ks::gpu
