// Exact inline chains for PTX and SASS.
//
// LLVM 22's PTX `.loc` carries no `inlined_at`, so code inlined out of `core` shows only
// the library's line. The IR still has the exact chain of every instruction. We
// regenerate the PTX in-process with LLVM's NVPTX backend from the same IR, with every
// instruction's debug location replaced by a "chain id" line (kChainIdBase + i); debug
// locations do not change code generation, so the instruction streams match rustc's
// one for one, and the id on each regenerated instruction gives its exact chain.
//
// For SASS, rustc's own PTX is given to ptxas with `.loc` lines that carry those ids;
// nvdisasm then prints the id of every SASS instruction, which decodes the same way.
#pragma once

#include <string>
#include <vector>

#include "Artifact.h"

namespace ks {

inline constexpr uint32_t kChainIdBase = 1000000;

struct ChainTable {
  std::vector<std::vector<Frame>> chains;  // chain id -> frames, innermost first
  std::vector<int32_t> ptxLineChain;       // per line of the PTX: its chain id, -1 if none
  size_t functionsAligned = 0;     // instruction streams identical to rustc's
  size_t functionsMisaligned = 0;  // paired by alignment (or not at all)
  size_t instructionsMatched = 0;  // instructions of rustc's PTX paired exactly
  std::string error;                       // why regeneration failed, if it did
};

/// Regenerates PTX from rustc's LLVM IR text with chain ids, aligns it with `ptx`
/// (rustc's PTX) per function, and gives every aligned instruction of `ptx` its exact
/// chain (`LocationSource::Regenerated`). Where the streams differ, instructions paired
/// only by shape get `LocationSource::Guessed`, and unpaired ones are left as they are.
ChainTable assignExactChains(Artifact& ptx, const std::string& llvmIrText, const std::string& arch, int optLevel);

/// rustc's PTX text with a `.loc F <kChainIdBase + id> 0` before every instruction that
/// has a chain id, for ptxas -lineinfo. `newToOld` maps each output line to its input line.
std::string ptxWithChainIds(const Artifact& ptx, const ChainTable& table, std::vector<uint32_t>* newToOld = nullptr);

/// Decodes the chain ids in SASS produced from ptxWithChainIds(): every instruction gets
/// its exact chain, and each `//## File` comment is rewritten to the real location (in
/// nvdisasm's own `inlined at` notation), so the text reads as nvdisasm would print it.
void decodeSassChainIds(Artifact& sass, const ChainTable& table);

}  // namespace ks
