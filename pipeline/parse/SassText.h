// The parts of one SASS instruction line as nvdisasm prints it (`/*00c0*/ @!P0 LDG.E.64 R2,
// [R4.64] ;`): the one reader of them, shared by the SASS parser, the costs, the value flow
// and the views' filters (SassParser.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace ks {

/// The opcode of a SASS instruction line, after its address and predicate guard
/// ("/*0090*/ @P0 LDG.E.64 R2, [R4.64] ;" -> "LDG.E.64").
std::string_view sassOpcode(std::string_view lineText);
/// The offset of a SASS instruction line in its function ("/*00c0*/ ..." -> 0xc0); nullopt
/// for a line without one.
std::optional<uint32_t> sassAddress(std::string_view lineText);
/// The label a SASS branch names: "BRA `(.L_x_1) ;" -> ".L_x_1"; empty when it names none.
std::string_view sassBranchTarget(std::string_view lineText);

/// One operand of a SASS instruction as written, without its reuse flag.
struct SassOperand {
  std::string_view text;
  bool memory = false;   // `[...]`, `c[..][..]`, `desc[..][..]`: an address, always read
  bool negated = false;  // `!P0`
};
/// The parts of a SASS instruction line: its guard (`@!P0`, empty when none), opcode and
/// operands in order (split at the commas outside brackets).
struct SassInstructionText {
  std::string_view guard, opcode;
  std::vector<SassOperand> operands;
};
SassInstructionText splitSassInstruction(std::string_view lineText);

}  // namespace ks
