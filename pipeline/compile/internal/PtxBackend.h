// The stages after PTX, shared by every front end (rustc for Rust, nvcc for CUDA C++).
//
// Given a front end's PTX (with its exact chains where it has them) and the line map,
// runs ptxas for resources and a cubin, nvdisasm for SASS, adds every available stage to
// the line map and fills in the kernel table. Internal to pipeline/.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "Compile.h"
#include "ExactLocations.h"

namespace ks {

struct PtxBackend {
  const Artifact& ptx;       // the front end's PTX, as the user sees it
  const ChainTable& chains;  // exact chain ids per PTX line (empty: the `.loc` lines as printed)
  const Artifact& ir;        // rustc's LLVM IR for inline-chain recovery (empty for nvcc)
  std::shared_ptr<LineMap> lineMap;
  std::filesystem::path outDir;          // where the cubin goes
  std::string stem;                      // file name stem for the PTX given to ptxas and the cubin
  std::optional<std::string> ptxasText;  // what ptxas assembles, when not `ptx` itself
};

/// The whole file (empty when unreadable).
std::string readFile(const std::filesystem::path&);
/// An error diagnostic without a location: a tool is missing, failed or crashed.
Diagnostic toolError(std::string message, std::string source = "kernelscope");

/// Runs ptxas and nvdisasm and completes `result` (SASS, resources, line map, kernels).
/// Returns false when cancelled.
bool finishFromPtx(const Toolchain&, const CompileOptions&, const CancellationToken&,
                   const PtxBackend&, CompileResult& result);

}  // namespace ks
