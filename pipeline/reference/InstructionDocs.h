// InstructionDocs: what an artifact line's instruction means, decoded with its modifiers.
//
// A kernel author reading PTX or SASS meets `ld.global.nc.v4.f32`, `IMAD.WIDE.U32` or
// `ISETP.GE.U32.AND.EX` and wants to know what each part says. This is the reference,
// written for kernelscope in its own words from the facts of NVIDIA's PTX ISA document
// (the instruction index of PTX ISA 9.0 and 9.1, CUDA 13), what nvdisasm prints for sm_70..sm_90,
// LLVM's language reference and rustc's MIR. It is plain data: no JSON, no LSP, no
// markdown; the CLI and the server render it as they need.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "Artifact.h"

namespace ks {

/// One decoded part of an instruction: a modifier (`.wide`, `.STRONG.GPU`, `nuw`), a
/// guard, a flag or an operand form, with what it means here.
struct ModifierDoc {
  std::string text;     // as written: ".u32", "@%p1", "nsw", "copy _3"
  std::string meaning;  // one sentence; empty where the part needs no explanation
};

struct InstructionDoc {
  Stage stage = Stage::Ptx;
  std::string
      mnemonic;  // the documented name: "ld", "mbarrier.try_wait", "IMAD", "getelementptr", "Mul"
  std::string written;   // the opcode (or MIR head) as it appears on the line: "ld.global.b32"
  std::string category;  // "integer arithmetic", "memory", "directive", "terminator", ...
  std::string summary;   // one line, plain text
  std::vector<ModifierDoc> modifiers;  // in the order they are written
  std::string operands;                // what the operands are, where that helps; may be empty
  // PTX only: the first PTX ISA version and target that have the instruction as a whole
  // (some of its variants need more; the summary or a modifier says so where it matters).
  std::string minPtx;  // "1.0", "7.8"; empty outside PTX instructions
  std::string minSm;   // "all targets", "sm_20", "sm_90a"; empty outside PTX instructions
};

/// Explains one line of a stage's text (as the tool printed it, with or without its
/// leading blanks, SASS address comments and `;`). Nullopt for lines that carry nothing
/// to explain (blank lines, comments, braces) or that the reference does not know.
std::optional<InstructionDoc> describeInstruction(Stage stage, std::string_view lineText);

/// The explanation as plain text for a terminal or a hover: the mnemonic and summary,
/// then one line per modifier, the operands, and the PTX version and target needed.
std::string renderPlain(const InstructionDoc& doc);

/// A one-line form for annotations: "summary" plus the decoded modifiers in brief.
std::string renderOneLine(const InstructionDoc& doc);

/// A PTX instruction of the ISA's instruction index. `section` tells apart the entries
/// that share a name: integer, extended, float, half, mixed, compare, half-compare,
/// logic, data, texture, surface, control, sync, mma, wgmma, tcgen05, stack, video, misc.
struct PtxInstructionName {
  std::string_view section;
  std::string_view name;
};
/// Every PTX instruction the reference documents, in the order of the ISA's index.
std::vector<PtxInstructionName> documentedPtxInstructions();

struct InstructionDocCounts {
  size_t ptxInstructions = 0;  // entries of the PTX ISA instruction index
  size_t ptxDirectives = 0;
  size_t ptxSpecialRegisters = 0;
  size_t sassOpcodes = 0;
  size_t llvmInstructions = 0;
  size_t llvmIntrinsics = 0;  // `llvm.nvvm.*` and the generic `llvm.*` ones we document
  size_t mirKinds = 0;        // statements, rvalues, cast kinds, operators, terminators
};
InstructionDocCounts instructionDocCounts();

}  // namespace ks
