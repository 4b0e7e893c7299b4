// kernelscope/run and kernelscope/profile: a kernel on a real GPU from the editor.
//
// A job is the GPU service's run or profile (pipeline/gpu/GpuService.h: compile, launch
// through a `gpu-exec` child, here or through the gpuRunner setting on another machine,
// attribute a profile's counters to the source lines), run as a background job
// (BackgroundJobs.h): its progress and outcome are posted to the io thread, which keeps
// answering hovers meanwhile. $/cancelRequest cancels the job's token, which kills the
// compile's or gpu-exec's whole process group (and with it ncu); the job's temporary folders
// go with it.
//
// The newest profile of each document stays shown (hints, hover, heat) while the document's
// text is the text that was profiled; the first edit drops it. Each profile is kept by the
// GPU service (ProfileBaseline.h) as the CLI's are, and the next one of the same file,
// kernel and spec shows per line what changed since (lines matched through the edit).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "BackgroundJobs.h"
#include "Compile.h"
#include "GpuService.h"
#include "Scheduler.h"

namespace ks::server {

/// What a kernelscope/run or kernelscope/profile asks for.
using GpuJob = gpu::GpuRequest;
/// Says what the job is doing ("compiling", "launching", "profiling with ncu").
using GpuProgress = gpu::GpuProgress;
/// Runs a job: the GPU service's runOnGpu, or a test's fake.
using GpuFunction =
    std::function<gpu::GpuOutcome(const GpuJob&, const GpuProgress&, const CancellationToken&)>;

/// A profile of a document's kernel, shown while the document's text is `text`.
struct ShownProfile {
  std::string path;
  std::string text;
  gpu::KernelLineProfile lines;
  std::shared_ptr<const CompileResult> compile;  // the compile that was profiled
  std::string device;                            // "NVIDIA H200 (sm_90, 132 SMs), driver 13.0"
  /// Each line's change since the profile of this file, kernel and spec kept before (none
  /// on the first), and what they are since ("last profile").
  std::vector<gpu::LineDelta> deltas;
  std::string since;
  /// The counters of 1-based line `line` of `path`, or null.
  const gpu::LineCounters* at(uint32_t line) const;
  /// The change of 1-based line `line` since the last profile, or null.
  const gpu::LineDelta* deltaAt(uint32_t line) const;
  /// What a profile's `outcome` shows on the document at `path` with `text` (takes the
  /// outcome's lines and compile).
  static std::shared_ptr<const ShownProfile> of(std::string path, std::string text,
                                                gpu::GpuOutcome& outcome);
};

/// The jobs in flight and the profiles shown. Used on the io thread.
class GpuRuns {
 public:
  using Reply = std::function<void(gpu::GpuOutcome)>;
  /// `runInline`: run each job on the calling thread (tests and the lit-test mode).
  GpuRuns(GpuFunction, PostFunction, bool runInline);

  /// Runs `job`; `progress` and `reply` are called on the io thread (reply once).
  void start(const std::string& requestId, GpuJob job, GpuProgress progress, Reply reply);
  /// Cancels a job in flight (its reply says cancelled, once its processes are dead and its
  /// folders removed); false when there is none.
  bool cancel(const std::string& requestId) { return jobs_.cancel(requestId); }
  bool running() const { return jobs_.running(); }
  /// The threads held for jobs (running, or ended and not joined yet).
  size_t threads() const { return jobs_.threads(); }

  /// The profile shown for `uri`, while the document's text is still `text`.
  std::shared_ptr<const ShownProfile> shown(const std::string& uri, const std::string& text) const;
  void show(const std::string& uri, std::shared_ptr<const ShownProfile>);
  /// Drops `uri`'s profile unless `text` is its text; true when one was dropped.
  bool dropIfStale(const std::string& uri, const std::string& text);

 private:
  GpuFunction run_;
  std::map<std::string, std::shared_ptr<const ShownProfile>> shown_;  // by uri
  BackgroundJobs jobs_;  // last: destroyed first, cancelling the jobs and waiting for them
};

}  // namespace ks::server
