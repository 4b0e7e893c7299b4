// The front ends of the compile driver: what turns a kernel source into PTX.
//
// compileKernel (Compile.h) is one skeleton: pick the front end for the input, run it in a
// private directory, hand its PTX to the shared back end (PtxBackend.h: ptxas, nvdisasm,
// line map, resources). The front ends are rustc for Rust, a toolchain profile's cargo
// build (rust-cuda, cuda-oxide) and nvcc for CUDA C++. Internal to pipeline/.
#pragma once

#include <filesystem>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "Access.h"
#include "Compile.h"
#include "CoreLink.h"
#include "ExactLocations.h"

namespace ks {

/// What a front end hands the back end: its PTX and what places the PTX's lines.
struct FrontEndOutput {
  Artifact ptx;  // the PTX as the user sees it
  Artifact ir;   // the LLVM IR for inline-chain recovery (empty when there is none)
  std::shared_ptr<LineMap> lineMap;      // over the user's files, no stage added yet
  std::string stem;                      // file name stem for the PTX given to ptxas and the cubin
  std::optional<std::string> ptxasText;  // what ptxas assembles, when not `ptx` itself
  /// Give ptxas the PTX with line-id `.loc` lines (ptxWithLineIds), so that SASS takes the
  /// PTX's chains; off where the front end's own `.loc` lines are exact (nvcc's `inlined_at`).
  bool lineIds = true;
  /// The launched image's PTX when it is not `ptx`: rustc's PTX shown, what the kernels call
  /// from `core` linked into this one (CoreLink.h). ptxas assembles it; SASS takes its chains.
  std::optional<Artifact> linked;
  /// What the link left undefined, for the message when ptxas cannot resolve it either.
  std::vector<UnresolvedFunction> unresolved;
  /// The code was linked (or had nothing to link): ptxas first tries a loadable cubin even
  /// where the PTX still declares functions it lacks (vprintf is ptxas's own).
  bool linkedForLaunch = false;
  /// How the loads and stores touch memory (Access.h), where the front end analyses its
  /// parsed IR as it was before the back end changed it (perhaps still on a thread of its
  /// own); otherwise (not valid) the costs parse the IR text again.
  std::shared_future<AccessFacts> access;
};

class FrontEnd {
 public:
  virtual ~FrontEnd() = default;
  /// Names the compile's private directory ("kernelscope-<name>").
  virtual std::string_view name() const = 0;
  /// Why this front end never produces `stage` (CUDA C++ has no MIR); nullopt when it does.
  virtual std::optional<std::string> neverProduces(Stage) const { return std::nullopt; }
  /// Runs the compiler in `workDir` (its outputs go to `outDir`) and records in `result`
  /// its diagnostics, source files and the stages it produces itself (MIR, LLVM IR, PTX),
  /// with `succeeded` when there is code. Returns what the back end needs, or nullopt when
  /// nothing more can come: then every wanted stage says why, and `cancelled` is set when
  /// the compile was cancelled.
  virtual std::optional<FrontEndOutput> compile(const Toolchain&, const CompileInput&,
                                                const ResolvedOptions&, const CancellationToken&,
                                                const std::filesystem::path& workDir,
                                                const std::filesystem::path& outDir,
                                                CompileResult&) = 0;
  /// What the first view (the stages `compile` produced) does not wait for, done once it is
  /// published: rustc's exact PTX chains (regenerated from its IR, ExactLocations.h: until
  /// then the PTX has the chains its own `.loc` lines and the IR suggest) and its remarks.
  virtual void afterFirstView(FrontEndOutput&, const ResolvedOptions&, CompileResult&) {}
  /// Completes `result` after the back end with what only this front end knows.
  virtual void complete(const CompileInput&, const ResolvedOptions&, CompileResult&) const {}
};

/// Rust through rustc (Compile.cpp's default).
std::unique_ptr<FrontEnd> rustcFrontEnd();
/// Rust through a toolchain profile's backend (ProfileFrontEnd.cpp).
std::unique_ptr<FrontEnd> profileFrontEnd(ToolchainProfile);
/// CUDA C++ through nvcc (Cuda.cpp).
std::unique_ptr<FrontEnd> cudaFrontEnd();

/// Fails every wanted stage that has no outcome yet with `why`.
void failStages(const ResolvedOptions&, CompileResult&, const std::string& why);
/// A compile that cannot go on: `why` becomes a kernelscope error and the reason of every
/// wanted stage. Returns nullopt, for a front end's `return failCompile(...)`.
std::nullopt_t failCompile(const ResolvedOptions&, CompileResult&, const std::string& why);
/// A cancelled compile: `cancelled` set, every wanted stage says so. Returns nullopt.
std::nullopt_t cancelCompile(const ResolvedOptions&, CompileResult&);

}  // namespace ks
