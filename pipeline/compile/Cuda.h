// The CUDA C++ twin: `.cu` files through the same pipeline (the nvcc front end of FrontEnd.h) as
// Rust kernels.
//
// nvcc -lineinfo --ptx gives PTX whose `.loc` lines carry `function_name … inlined_at`
// (exact inline chains, no regeneration needed); then the shared back end (PtxBackend.h)
// runs ptxas and nvdisasm, so a `.cu` kernel gets the same artifacts, line map, resources
// and kernel table as a Rust one. nvcc's PTX ISA can be newer than the ptxas/nvdisasm pair
// found (nvcc 13 writes PTX 9.0, the CUDA 11.8 pair reads up to 7.8); then ptxas gets the
// PTX with its `.version` lowered to what it reads, and a note says so; should that PTX
// use newer instructions, ptxas refuses it and SASS says which release it needs.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "Compile.h"

namespace ks {

/// `.cu` and `.cuh` files.
bool isCudaSource(const std::filesystem::path&);

/// nvcc's error and warning lines (`file(line): error: message`).
std::vector<Diagnostic> parseNvccDiagnostics(std::string_view stderrText);

/// The newest PTX ISA version that a CUDA release's ptxas reads ("11.8" -> "7.8");
/// empty when the release is unknown.
std::string maxPtxIsaFor(std::string_view cudaRelease);

}  // namespace ks
