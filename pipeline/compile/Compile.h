// The compile driver: one kernel source -> MIR, LLVM IR, PTX, SASS, resources, line map.
//
// Compiles the given text (which may be unsaved: it is written to a private overlay
// directory and paths are remapped back), runs rustc once for MIR + LLVM IR + PTX +
// diagnostics + remarks, then ptxas for resources and a cubin, then nvdisasm for SASS.
// A stage whose tool is missing or fails is reported with a reason; the others still
// come through.
#pragma once

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "Artifact.h"
#include "Costs.h"
#include "Diagnostics.h"
#include "GpuArch.h"
#include "LineMap.h"
#include "Occupancy.h"
#include "Process.h"
#include "Profile.h"
#include "Toolchain.h"

namespace ks {

struct CompileResult;
class KernelImageCache;
/// Receives a compile's result each time a group of its stages exists, before the compile
/// ends: MIR, LLVM IR and PTX with their line map as soon as the front end is done, then
/// the kernels' resources after ptxas; CompileResult::pending says what is still coming.
/// The final result is compileKernel's return value, not passed here. Called on the
/// compiling thread.
using StageListener = std::function<void(std::shared_ptr<const CompileResult>)>;

/// A crate a file outside any crate uses, named as rustc's `--extern NAME=PATH` names it.
struct ExternCrate {
  std::string name;            // a Rust identifier: what the file calls it
  std::filesystem::path path;  // absolute: a crate's directory (its Cargo.toml) or an .rlib
  bool operator==(const ExternCrate&) const = default;
};

/// What a compile is given as the caller says, whatever the layers below it say. (A new
/// option joins CompileOptions::operator==.)
struct CommonCompileOptions {
  std::vector<std::string> extraRustcFlags;
  /// Crates a single file uses (`--extern`): a crate's directory is built as a path
  /// dependency is (the rlib cache), an nvptx64 `.rlib` is taken as it is. A file in a crate
  /// takes its dependencies from its Cargo.toml instead (a warning says these were ignored).
  std::vector<ExternCrate> externCrates;
  /// Whether the user trusts the workspace (Trust.h). Untrusted: the workspace's files may
  /// choose only safe values, and nothing of the workspace runs (no profile that runs cargo,
  /// no build scripts or proc macros, no rustc flag that loads code or writes files).
  /// The CLI sets it (the user ran it on purpose); the server takes it from the editor.
  bool workspaceTrusted = false;
  std::chrono::milliseconds toolTimeout{120000};
  bool remarks = true;
  /// Whether the SASS's costs are read (Costs.h: one more nvdisasm run beside the SASS's).
  bool costs = true;
  /// The block size (threads) at which each kernel's occupancy is given.
  uint32_t occupancyBlockSize = 256;
  /// When set, the raw outputs of every tool (rustc's .mir/.ll/.s and stderr, the
  /// remarks, ptxas's report, nvdisasm's SASS) are copied here, for bug reports and for
  /// recording golden test inputs.
  std::filesystem::path saveTempsDir;
  /// Where the ptxas and nvdisasm outputs of each group of kernels are kept (KernelImages.h:
  /// the engine's); null: every kernel is assembled and disassembled afresh. Not part of what is
  /// compiled.
  std::shared_ptr<KernelImageCache> kernelImages;
  /// How many of ptxas and nvdisasm run at once (KernelModules.h merges groups beyond it);
  /// 0: the cores. Not part of what is compiled: the results do not depend on it.
  unsigned backEndJobs = 0;
  /// Where stages are published as they come (not part of what is compiled: the cache key
  /// ignores it); unset: only the final result.
  StageListener onStages;
};

/// The options a caller asks a compile for. What it leaves unset, resolveOptions takes from
/// the layers below: the engine's option layer (the CLI's kernelscope.toml), the crate's
/// `[package.metadata.kernelscope]`, the defaults.
struct CompileOptions : CommonCompileOptions {
  std::optional<std::string> arch;           // default: kDefaultArch
  std::optional<int> optLevel;               // default: 3
  std::optional<ToolchainProfile> profile;   // default: rustc-nvptx
  std::optional<std::vector<Stage>> stages;  // default: all four; a `.cu` file's: PTX, SASS

  /// The same options: every choice equal, the stage listener aside (it says only where the
  /// stages go, and a function has no equality).
  bool operator==(const CompileOptions&) const;
};

/// The options a compile runs with, every layer resolved (resolveOptions): what the drivers
/// take.
struct ResolvedOptions : CommonCompileOptions {
  bool wants(Stage s) const { return std::find(stages.begin(), stages.end(), s) != stages.end(); }
  /// The same options as a caller's that chose every one (for a front end that prints what
  /// it compiles with before it asks for the compile).
  CompileOptions asChosen() const;

  std::string arch{kDefaultArch};
  int optLevel = 3;
  ToolchainProfile profile = ToolchainProfile::RustcNvptx;
  std::vector<Stage> stages{kAllStages, kAllStages + 4};
};

struct CrateSettings;
/// The one resolution of a compile's options: what the caller chose, else the crate's
/// `[package.metadata.kernelscope]` (`crate`: null outside a crate; its profile only when it
/// runs no cargo or the workspace is trusted), else the default. A CUDA C++ file
/// (`cudaSource`) has no MIR or LLVM IR: its default stages are PTX and SASS.
ResolvedOptions resolveOptions(const CompileOptions&, const CrateSettings* crate = nullptr,
                               bool cudaSource = false);

struct CompileInput {
  std::filesystem::path path;       // the kernel file as the user knows it (absolute)
  std::optional<std::string> text;  // its current text if it differs from the disk
  /// Unsaved text of other open files (modules of the same crate, its path dependencies);
  /// files not named here are read from disk. See Crate.h.
  std::map<std::filesystem::path, std::string> overlays{};
};

/// What became of one stage.
struct StageOutcome {
  bool available = false;
  std::string unavailableReason;  // "nvdisasm not found: run scripts/setup.sh", ...
  /// Never null, and never changed once set: the snapshots published stage by stage, the
  /// final result and the cache share one artifact instead of copying it.
  std::shared_ptr<const Artifact> artifact = emptyArtifact();
  std::chrono::milliseconds toolTime{0};

  void setArtifact(Artifact a) { artifact = std::make_shared<const Artifact>(std::move(a)); }
  /// The artifact every stage without one shares.
  static const std::shared_ptr<const Artifact>& emptyArtifact();
};

/// A kernel as the user sees it: its resources and where it is.
struct KernelInfo {
  std::string symbol;
  std::string demangled;
  Frame definition;  // the `fn` line in the user's file, if known
  std::optional<KernelResources> resources;
  size_t ptxInstructions = 0;
  size_t sassInstructions = 0;
  /// Theoretical occupancy at CommonCompileOptions::occupancyBlockSize and at the best block
  /// size; unset without resources or for an architecture without known limits.
  std::optional<KernelOccupancy> occupancy;
};

/// A function of the launched image whose code came from the sysroot's libraries, not from
/// the kernel's crate (CoreLink.h).
struct LinkedFunction {
  std::string symbol;
  std::string demangled;
  std::string library;  // "core", "compiler_builtins", or the dependency crate's name
};

struct CompileResult {
  bool succeeded = false;  // rustc produced code
  std::vector<Diagnostic> diagnostics;
  std::vector<Remark> remarks;
  std::map<Stage, StageOutcome> stages;
  std::vector<KernelInfo> kernels;
  std::shared_ptr<const LineMap> lineMap;
  /// Each kernel's loadable cubin (by symbol), whose code the SASS view shows and `kernelscope
  /// run` launches: ptxas assembles the kernels in groups (KernelImages.h), each with the
  /// functions it calls, what they call from `core` linked in. A kernel has none when there is no
  /// ptxas, it failed, the kernel calls functions no library defines, or several crates' results
  /// were merged.
  std::map<std::string, std::shared_ptr<const std::string>> cubins;
  /// Why there is no loadable cubin although ptxas assembled the code: the functions it
  /// calls that nothing defines, and where. Empty otherwise.
  std::string cubinProblem;
  /// The functions linked into the cubin from `core`, `compiler_builtins` and the crate's
  /// dependencies (the SASS and PTX views mark them too).
  std::vector<LinkedFunction> linkedFunctions;
  /// The costs of every SASS instruction (Costs.h), indexed like the SASS artifact's lines;
  /// null without SASS.
  std::shared_ptr<const SassCosts> costs;
  /// Every source file this result was compiled from (the crate's modules, its path
  /// dependencies' files): a change to any of them makes the result stale.
  std::vector<std::filesystem::path> sourceFiles;
  std::filesystem::path crateManifest;  // the crate's Cargo.toml; empty for a standalone file
  std::string arch;
  int optLevel = 3;
  ToolchainProfile profile = ToolchainProfile::RustcNvptx;
  std::chrono::milliseconds totalTime{0};
  std::chrono::milliseconds toolTime{0};  // sum of the external tools' wall time
  bool cancelled = false;
  /// Set when no code came out for a reason other than the kernel's own errors: which
  /// step failed and how ("rustc timed out after 120.0 s (its time limit)").
  std::string failure;
  /// In a result published before the compile ended (StageListener): what is still coming,
  /// "resources" (the kernels' resources, from ptxas) and stage names ("sass"). Empty in
  /// the final result.
  std::vector<std::string> pending;

  const StageOutcome* stage(Stage s) const;
  /// Records why a requested stage is unavailable (stages not requested stay absent).
  void markUnavailable(const ResolvedOptions&, Stage, const std::string& why);
};

/// The kernel of `result` that `name` names (namesKernel: its symbol, demangled path or that
/// path's last segment), or null: what every command and request that takes a kernel's name
/// means by it.
const KernelInfo* findKernel(const CompileResult& result, std::string_view name);
/// The loadable cubin of the kernel `symbol` (CompileResult::cubins); null when it has none.
const std::string* cubinOf(const CompileResult& result, const std::string& symbol);

CompileResult compileKernel(const Toolchain&, const CompileInput&, const ResolvedOptions&,
                            const CancellationToken& = {});
/// compileKernel with the caller's options over the defaults alone (resolveOptions without a
/// crate): for tests and benchmarks of the driver. Engine::compile resolves every layer.
CompileResult compileWithDefaults(const Toolchain&, const CompileInput&, const CompileOptions&,
                                  const CancellationToken& = {});

struct RustcUnit;
/// The compile driver's rustc call on `unit` (target flags, crate, JSON diagnostics, MIR
/// spans, `--emit=<emit>` into `outDir`, the unit's and the user's flags, then `extraArgs`),
/// run in `workDir` with RUSTC_BOOTSTRAP. Every rustc run over a kernel (the compile, the
/// pass-by-pass view of Passes.h) is built here, so they compile the same code.
ProcessSpec rustcCommand(const Toolchain&, const RustcUnit&, const ResolvedOptions&,
                         const std::string& emit, const std::filesystem::path& outDir,
                         const std::filesystem::path& workDir,
                         const std::vector<std::string>& extraArgs, const CancellationToken&);

}  // namespace ks
