// The stages after PTX, shared by every front end (FrontEnd.h): ptxas, nvdisasm, the line
// map and the kernel table.
//
// Each step completes a CompileResult in place: kernelTable() lists the PTX's entry points,
// assemble() runs ptxas once for the resources and the cubin, disassemble() runs nvdisasm
// for SASS; each adds its stage to the line map. compileKernel publishes the result after
// each step (StageListener in Compile.h). Internal to pipeline/.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "Compile.h"
#include "ExactLocations.h"
#include "FrontEnd.h"

namespace ks {

/// The whole file (empty when unreadable).
std::string readFile(const std::filesystem::path&);
/// An error diagnostic without a location: a tool is missing, failed or crashed.
Diagnostic toolError(std::string message, std::string source = "kernelscope");
/// Copies `content` to `opts.saveTempsDir/name` when saving temps.
void saveTemp(const CompileOptions&, const std::string& name, const std::string& content);

/// The front end's stages added to `in.lineMap` and the kernels of its PTX, without
/// resources yet; `result.lineMap` is set.
void kernelTable(const FrontEndOutput& in, const CompileOptions&, CompileResult& result);

/// `in.ptx` with its final chains (FrontEnd::afterFirstView) as the PTX stage, in a new line
/// map: the one published before stays as it was.
void replacePtx(const FrontEndOutput& in, const CompileOptions&, CompileResult& result);

/// What ptxas was given and made: the cubin (empty when there is none) and, when ptxas read
/// the PTX with chain ids, that PTX, whose ids the SASS then carries.
struct Assembled {
  std::filesystem::path cubin;
  std::optional<ChainIdPtx> chainIds;
};

/// Runs ptxas once on the front end's PTX: resources and occupancy for every kernel,
/// ptxas's diagnostics, and the cubin in `outDir`. nullopt when cancelled.
std::optional<Assembled> assemble(const Toolchain&, const CompileOptions&, const CancellationToken&,
                                  const FrontEndOutput& in, const std::filesystem::path& outDir,
                                  CompileResult& result);

/// Runs nvdisasm on the cubin for SASS with exact or recovered inline chains, adds it to
/// the line map and counts each kernel's SASS instructions. Returns false when cancelled.
bool disassemble(const Toolchain&, const CompileOptions&, const CancellationToken&,
                 const FrontEndOutput& in, const Assembled& assembled, CompileResult& result);

}  // namespace ks
