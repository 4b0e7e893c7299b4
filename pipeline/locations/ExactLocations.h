// Exact inline chains for PTX and SASS.
//
// LLVM 22's PTX `.loc` carries no `inlined_at`, so code inlined out of `core` shows only
// the library's line. The IR still has the exact chain of every instruction, and LLVM's
// NVPTX backend knows which machine instruction it prints each PTX line for: kernelscope
// compiles rustc's IR in-process with that backend and follows its printer (an
// AsmPrinterHandler), which gives every printed instruction the chain of its debug
// location. When the backend is rustc's own LLVM, that PTX is rustc's, byte for byte, and
// rustc need not make it (compilePtx); otherwise rustc's PTX is aligned with the one made
// here, instruction for instruction, and takes its chains (assignExactChains).
//
// For SASS, rustc's own PTX is given to ptxas with a `.loc` line before every instruction
// that carries the instruction's PTX line as an id; nvdisasm then prints, for every SASS
// instruction, the PTX instruction it came from, which gives it that instruction's chain.
// The ids do not depend on the chains, so ptxas and nvdisasm run while they are regenerated.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "Artifact.h"
#include "Diagnostics.h"

namespace llvm {
class Module;
class TargetMachine;
}  // namespace llvm

namespace ks {

/// The first line id given to ptxas (ptxWithLineIds): kLineIdBase + the PTX line.
inline constexpr uint32_t kLineIdBase = 1000000;

struct ChainTable {
  size_t functionsMisaligned = 0;  // paired by alignment (or not at all)
  size_t instructionsMatched = 0;  // instructions of rustc's PTX paired exactly
  size_t functionsReused = 0;      // chains taken from an earlier regeneration of the same code
  std::string error;               // why regeneration failed, if it did
};

/// The LLVM release whose NVPTX back end kernelscope links ("22.1.8"), as rustc -vV names
/// its own.
std::string backEndLlvmRelease();

/// LLVM's NVPTX target machine for `module`'s triple, set up as rustc sets its own up;
/// null, with `error`, when there is none.
std::unique_ptr<llvm::TargetMachine> nvptxTargetMachine(const llvm::Module& module,
                                                        const std::string& arch, int optLevel,
                                                        std::string& error);

/// The PTX LLVM's NVPTX backend makes of rustc's IR (parseLlvmIr's `keep`; changes
/// `module`), every instruction with its exact chain (`LocationSource::Regenerated`) or none
/// (compiler-generated code). nullopt, with `error`, when the backend cannot make it. With
/// `remarksFile`, the back end's optimization remarks are written there as YAML.
std::optional<Artifact> compilePtx(llvm::Module& module, const std::string& arch, int optLevel,
                                   std::string& error, const std::string& remarksFile = {});

/// Regenerates PTX from rustc's LLVM IR text with exact chains, aligns it with `ptx`
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

/// The PTX given to ptxas: the front end's PTX with a `.loc F <kLineIdBase + L> 0` before
/// every instruction, L being the instruction's line in that PTX. nvdisasm then names, for
/// every SASS instruction, the PTX instruction ptxas made it from, so SASS takes that
/// instruction's chain once the PTX's chains are final: ptxas and nvdisasm need not wait for
/// the chains to be regenerated. Without a `.file` in the PTX there is nothing to name, and
/// the text is returned as it is.
struct LineIdPtx {
  std::string text;                // the PTX with its `.loc` lines replaced by line ids
  std::vector<uint32_t> newToOld;  // line of `text` -> line of the PTX it came from
  bool hasIds = false;             // false: `text` is the PTX as it was
};
LineIdPtx ptxWithLineIds(const Artifact& ptx);
/// The same for the lines `lines` of `ptx` only (in that order), each id naming the position
/// of its line in `lines`, not its line in `ptx`: a kernel's own module (KernelImages.h) reads
/// the same wherever its code stands in the whole PTX. `newToOld` names lines of `ptx`.
LineIdPtx ptxWithLineIds(const Artifact& ptx, const std::vector<uint32_t>& lines);

/// Decodes the line ids in SASS made from ptxWithLineIds(ptx): every instruction gets the
/// chain (and location source) of the PTX instruction it came from, with the chains `ptx`
/// has now, and each `//## File` comment gets the real location: its chain, with the comment
/// kept as kSassPlaceMarker (shown in nvdisasm's own `inlined at` notation), or
/// `//## compiler-generated`, so the shown text reads as nvdisasm would print it: a comment
/// that repeats the one before it in its function is left out. Returns the number of
/// instructions decoded.
size_t decodeSassLineIds(Artifact& sass, const Artifact& ptx);

}  // namespace ks
