// The compile driver: one kernel source -> MIR, LLVM IR, PTX, SASS, resources, line map.
//
// Compiles the given text (which may be unsaved: it is written to a private overlay
// directory and paths are remapped back), runs rustc once for MIR + LLVM IR + PTX +
// diagnostics + remarks, then ptxas for resources and a cubin, then nvdisasm for SASS.
// A stage whose tool is missing or fails is reported with a reason; the others still
// come through.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "Artifact.h"
#include "Diagnostics.h"
#include "LineMap.h"
#include "Process.h"
#include "Toolchain.h"

namespace ks {

struct CompileOptions {
  std::string arch = "sm_90";
  int optLevel = 3;
  std::vector<Stage> stages{kAllStages, kAllStages + 4};
  std::vector<std::string> extraRustcFlags;
  std::chrono::milliseconds toolTimeout{120000};
  bool remarks = true;
  /// When set, the raw outputs of every tool (rustc's .mir/.ll/.s and stderr, the
  /// remarks, ptxas's report, nvdisasm's SASS) are copied here, for bug reports and for
  /// recording golden test inputs.
  std::filesystem::path saveTempsDir;
};

/// Checks an arch name ("sm_70" .. "sm_120a"); returns the reason when it is not one.
std::optional<std::string> validateArch(std::string_view arch);

struct CompileInput {
  std::filesystem::path path;       // the kernel file as the user knows it (absolute)
  std::optional<std::string> text;  // its current text if it differs from the disk
};

/// What became of one stage.
struct StageOutcome {
  bool available = false;
  std::string unavailableReason;  // "nvdisasm not found: run scripts/setup.sh", ...
  Artifact artifact;
  std::chrono::milliseconds toolTime{0};
};

/// A kernel as the user sees it: its resources and where it is.
struct KernelInfo {
  std::string symbol;
  std::string demangled;
  Frame definition;                 // the `fn` line in the user's file, if known
  std::optional<KernelResources> resources;
  size_t ptxInstructions = 0;
  size_t sassInstructions = 0;
};

struct CompileResult {
  bool succeeded = false;           // rustc produced code
  std::vector<Diagnostic> diagnostics;
  std::vector<Remark> remarks;
  std::map<Stage, StageOutcome> stages;
  std::vector<KernelInfo> kernels;
  std::shared_ptr<const LineMap> lineMap;
  std::string arch;
  int optLevel = 3;
  std::chrono::milliseconds totalTime{0};
  std::chrono::milliseconds toolTime{0};  // sum of the external tools' wall time
  bool cancelled = false;

  const StageOutcome* stage(Stage s) const;
};

CompileResult compileKernel(const Toolchain&, const CompileInput&, const CompileOptions&,
                            const CancellationToken& = {});

}  // namespace ks
