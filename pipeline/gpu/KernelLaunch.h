// From a compiled kernel to a launch on a GPU, here or through a runner on another machine:
// the steps GpuService.h strings together.
//
// Gathers the kernel's launch spec (the `// kernelscope:` comments above it, then its crate's
// `[package.metadata.kernelscope.launch.KERNEL]`, then the caller's items), checks it against
// the kernel's PTX parameters and source signature, and sends the plan with the cubin that
// kernelscope built to a `gpu-exec` child process (pipeline/gpu-exec).
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "Compile.h"
#include "Engine.h"
#include "GpuExecProtocol.h"
#include "KernelSignature.h"
#include "LaunchSpec.h"
#include "LineProfile.h"
#include "Process.h"

namespace ks::gpu {

struct LaunchSettings {
  std::vector<std::string> specItems;  // extra `k = v; k = v` items (the command line's --spec)
  /// Items used only when the kernel has no spec of its own (a CUDA twin takes its Rust
  /// kernel's).
  std::vector<std::string> fallbackSpecItems;
  std::string specOrigin = "--spec";  // what errors in specItems name as their origin
  /// A command prefix that reaches the GPU machine (`ssh gpu-box`), like Cargo's
  /// target.runner; empty: this machine.
  std::vector<std::string> runner;
  /// The kernelscope to start there (default: this binary locally, `kernelscope` through a runner).
  std::string remoteKernelscope;
  std::string ncu;  // Nsight Compute CLI on the GPU machine; empty: found there
  int warmup = 2;
  int runs = 20;
  bool dump = false;
  std::chrono::seconds timeout{300};
  /// The editor's unsaved text of open files: specs are read from it before the disk.
  std::map<std::filesystem::path, std::string> unsavedText;
};

/// A kernel made ready to launch, or why not.
struct PreparedLaunch {
  std::optional<ExecRequest> request;
  KernelSignature signature;
  LaunchSpec spec;
  std::vector<std::string> errors;  // spec errors at their lines, and other problems
  std::vector<std::string> notes;   // said but not fatal (a signature not read ...)
};

/// The launch spec written for `kernel` in its source and crate (without the caller's items).
/// `unsaved`: text of files that differs from the disk (LaunchSettings::unsavedText).
LaunchSpec writtenSpec(const Toolchain&, const CompileResult&, const std::string& kernel,
                       std::vector<SpecError>& errors,
                       const std::map<std::filesystem::path, std::string>& unsaved = {});
/// The kernels of `result` that have a written spec (writtenSpec), in its order; `input`'s
/// unsaved text is read where the file on disk is older.
std::vector<std::string> kernelsWithWrittenSpecs(const Toolchain&, const CompileResult& result,
                                                 const CompileInput& input);

/// `kernel`'s parameters: sizes from the parsed PTX's `.param`s (aggregates included), names
/// and types from its source declaration when found (else `note` says why they are the PTX's
/// alone). nullopt: no such kernel in the PTX.
std::optional<KernelSignature> kernelSignature(
    const CompileResult&, const std::string& kernel,
    const std::map<std::filesystem::path, std::string>& unsaved, std::string& note);

/// A kernel compiled for a launch: the compile (whose SASS listing profiles are attributed
/// to) and the kernel's loadable cubin ptxas made in it, or why there is nothing to launch.
struct LaunchCompile {
  CompileResult result;
  std::string cubin;
  std::string kernel;               // the kernel's symbol
  std::vector<std::string> errors;  // the compile's errors, "FILE:LINE: error: MESSAGE"
  std::string problem;              // empty when ready to launch
};

/// Compiles `input` through the engine with the stages a launch needs (LLVM IR for Rust's line
/// map, PTX, SASS) and keeps the cubin. `kernel` names the kernel by symbol, demangled path or
/// its last segment; empty: the only kernel, else the only one with a launch spec.
LaunchCompile compileForLaunch(Engine&, const CompileInput& input, CompileOptions options,
                               const std::string& kernel, const CancellationToken& = {});

/// `cubin`: the kernel's loadable cubin ptxas made in that compile (CompileResult::cubins),
/// the code the SASS view shows.
PreparedLaunch prepareLaunch(const Toolchain&, const CompileResult&, const std::string& cubin,
                             const std::string& kernel, const LaunchSettings&, ExecRequest::Mode);

/// The argv that starts gpu-exec (through the runner, when there is one).
std::vector<std::string> gpuExecCommand(const LaunchSettings&);

/// Runs `request` in a gpu-exec child and reads its result; a child that dies, times out or
/// says nothing is reported as such.
RunResult runGpuExec(const ExecRequest&, const LaunchSettings&, const CancellationToken& = {});

/// A result message (a runner's output, a `--replay` file) decoded and checked against the
/// request it answers (checkResultAgainstPlan). Returns the problem ("" when `out` is good).
std::string decodeResultFor(const ExecRequest&, std::string_view message, RunResult& out);

/// What is kept of a runner's stderr: enough for its error message.
inline constexpr size_t kRunnerErrorCap = size_t(1) << 20;

/// Splits a runner setting ("ssh -p 2222 gpu-box") into argv: words split at blanks, with
/// '...' and "..." quoting. Returns the problem ("" when done).
std::string splitRunner(const std::string& text, std::vector<std::string>& argv);

/// The profile of `result`'s kernel on its source lines, from a profile run's CSVs.
std::optional<KernelLineProfile> lineProfile(const CompileResult&, const std::string& kernel,
                                             const RunResult&, std::string& problem);

}  // namespace ks::gpu
