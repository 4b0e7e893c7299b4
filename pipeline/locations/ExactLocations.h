// Exact inline chains for PTX and SASS.
//
// LLVM 22's PTX `.loc` carries no `inlined_at`, so code inlined out of `core` shows only
// the library's line. The IR still has the exact chain of every instruction. We
// regenerate the PTX in-process with LLVM's NVPTX backend from the same IR, with every
// instruction's debug location replaced by a "chain id" line (kChainIdBase + i); debug
// locations do not change code generation, so the instruction streams match rustc's
// one for one, and the id on each regenerated instruction gives its exact chain.
//
// For SASS, rustc's own PTX is given to ptxas with `.loc` lines that carry an id per
// distinct chain of the finished PTX map (exact, guessed, or none at all); nvdisasm then
// prints the id of every SASS instruction, which decodes to the same chain as its PTX.
#pragma once

#include <string>
#include <vector>

#include "Artifact.h"
#include "Diagnostics.h"

namespace llvm {
class Module;
}

namespace ks {

inline constexpr uint32_t kChainIdBase = 1000000;

struct ChainTable {
  std::vector<Chain> chains;       // chain id -> frames, innermost first
  size_t functionsAligned = 0;     // instruction streams identical to rustc's
  size_t functionsMisaligned = 0;  // paired by alignment (or not at all)
  size_t instructionsMatched = 0;  // instructions of rustc's PTX paired exactly
  size_t functionsReused = 0;      // chains taken from an earlier regeneration of the same code
  std::string error;               // why regeneration failed, if it did
};

/// Regenerates PTX from rustc's LLVM IR text with chain ids, aligns it with `ptx`
/// (rustc's PTX) per function, and gives every aligned instruction of `ptx` its exact
/// chain (`LocationSource::Regenerated`), or no location at all where the compiler gave
/// the instruction none (compiler-generated code; rustc's PTX shows it under the `.loc`
/// before it). Where the streams differ, instructions paired only by shape get
/// `LocationSource::Guessed`, and unpaired ones are left as they are.
ChainTable assignExactChains(Artifact& ptx, const std::string& llvmIrText, const std::string& arch,
                             int optLevel);
/// The same on rustc's IR already parsed (parseLlvmIr's `keep`); changes `module`. With `ir`
/// (parseLlvmIr's artifact of the same module), a function whose IR, PTX, arch and opt level
/// are those of one regenerated before (in this process) takes that one's chains: an edit
/// leaves most functions of a file as they were, and the backend compiles only the others.
ChainTable assignExactChains(Artifact& ptx, llvm::Module& module, const std::string& arch,
                             int optLevel, const Artifact* ir = nullptr);

/// Forgets the chains of earlier regenerations (for tests).
void forgetRegeneratedChains();

/// The warning for a compile whose regeneration failed (`table.error` set): its PTX and
/// SASS are then placed by rustc's `.loc` lines and guessed chains, which the user should
/// know. nullopt when regeneration worked.
std::optional<Diagnostic> chainRegenerationWarning(const ChainTable& table);

/// The PTX given to ptxas, with one `.loc` per distinct chain of the finished PTX map.
struct ChainIdPtx {
  std::string text;                     // the PTX with its `.loc` lines replaced by ids
  std::vector<Chain> chains;            // id -> the chain (empty: no location)
  std::vector<LocationSource> sources;  // id -> how the PTX line got that chain
  std::vector<uint32_t> newToOld;       // line of `text` -> line of the PTX it came from
};

/// Gives ptxas `ptx` with a `.loc F <kChainIdBase + id> 0` before every instruction whose
/// chain differs from the previous one's, `id` naming its chain in the finished map,
/// including the lines completed by recoverInlineChains and those with no location (which
/// a plain line 0 would hide: nvdisasm prints nothing for it). Without a `.file` in the
/// PTX there is nothing to name, and the text is returned as it is.
ChainIdPtx ptxWithChainIds(const Artifact& ptx);

/// Decodes the chain ids in SASS made from ptxWithChainIds(): every instruction gets the
/// chain (and location source) of the PTX it came from, and each `//## File` comment is
/// rewritten to the real location (in nvdisasm's own `inlined at` notation) or to
/// `//## compiler-generated`, so the text reads as nvdisasm would print it. Returns the
/// number of instructions decoded.
size_t decodeSassChainIds(Artifact& sass, const ChainIdPtx& ids);

}  // namespace ks
