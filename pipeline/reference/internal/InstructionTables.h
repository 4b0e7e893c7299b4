// The tables behind InstructionDocs: one row per documented name, texts in our own words.
//
// Kept apart from the decoder so that the data reads as data and the decoder as code.
// Private to the pipeline: callers use InstructionDocs.h.
#pragma once

#include <span>
#include <string_view>

namespace ks::docs {

/// A PTX instruction of the ISA's instruction index. `section` tells apart the entries
/// that share a name (`add` is documented for integers, floats, halves and mixed
/// precision): integer, extended, float, half, mixed, compare, half-compare, logic, data,
/// texture, surface, control, sync, mma, wgmma, tcgen05, stack, video, misc.
struct PtxInstruction {
  std::string_view name;
  std::string_view section;
  std::string_view summary;
  std::string_view minPtx;
  std::string_view minSm;
};

/// A name with its meaning: a directive, a special register, a modifier, a flag.
struct Entry {
  std::string_view name;
  std::string_view meaning;
};

/// An opcode or kind with the family it belongs to.
struct Opcode {
  std::string_view name;
  std::string_view category;
  std::string_view summary;
};

std::span<const PtxInstruction> ptxInstructions();
std::span<const Entry> ptxDirectives();
std::span<const Entry> ptxSpecialRegisters();
std::span<const Entry> ptxModifiers();
std::span<const Entry> ptxComparisons();

std::span<const Opcode> sassOpcodes();
std::span<const Entry> sassModifiers();

std::span<const Opcode> llvmInstructions();
std::span<const Entry> llvmFlags();
std::span<const Entry> llvmIntrinsics();  // matched by longest prefix of the callee name

std::span<const Opcode> mirKinds();

}  // namespace ks::docs
