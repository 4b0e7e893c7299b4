// ValueFlow: where the values a SASS instruction reads come from, and which instructions
// read the values it writes — reaching definitions over its function's control-flow graph.
//
// The graph is the listing's: blocks start at labels and after branches, a branch goes to the
// label it names (nvdisasm prints every target as a label), a guarded branch or exit also
// falls through. Registers are counted per 32-bit unit (R4.64 is R4 and R5), for general
// registers, predicates, uniform registers and uniform predicates; RZ, PT, URZ and UPT hold
// no value. A guarded instruction (`@P0 MOV R2, ...`) may or may not write, so it does not
// end the definitions before it. nvdisasm gives no def/use table (its life ranges only count
// live registers), so the operand roles come from the SASS grammar here: the first operand is
// written (none for stores, branches and barriers), a compare's second predicate too, an
// add's carry predicates, and the widths of loads, stores, wide multiplies, doubles and
// conversions come from their opcodes. Matrix instructions (HMMA...) are read as 32-bit
// operands, and a call is taken to write any general register.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "Artifact.h"
#include "LineMap.h"

namespace ks {

/// One register operand of an instruction and where its value flows.
struct RegisterFlow {
  std::string reg;              // as the instruction names it: "R2", "R4.64", "P0", "UR6", "PR"
  std::vector<uint32_t> lines;  // SASS lines: its definitions (a source) or its uses (a result)
  bool fromEntry = false;       // a source: some path from the function's start writes it nowhere
};

struct ValueFlow {
  bool instruction = false;           // the line is an instruction of a function
  std::vector<RegisterFlow> sources;  // what it reads (guard included), and where that was written
  std::vector<RegisterFlow> results;  // what it writes, and which instructions read it
};

/// One function's SASS as a control-flow graph with each instruction's registers, built once
/// and asked about any of its instructions.
class SassFlowGraph {
 public:
  SassFlowGraph(const Artifact& sass, size_t function);
  /// The flow of SASS line `line` (an instruction of this function; empty otherwise).
  ValueFlow flowOf(uint32_t line) const;

  /// A register's 32-bit units: at most seven (P2R's predicate file; `.128` is four), kept
  /// in place, as an operand list is built for every instruction of every kernel (this header
  /// is read by the server, which sees no LLVM: no llvm::SmallVector here).
  class Units {
   public:
    void push_back(uint16_t u) { units_[size_++] = u; }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    uint16_t operator[](size_t k) const { return units_[k]; }
    const uint16_t* begin() const { return units_.data(); }
    const uint16_t* end() const { return units_.data() + size_; }

   private:
    std::array<uint16_t, 7> units_{};
    uint8_t size_ = 0;
  };
  struct Operand {
    std::string name;
    Units units;
  };
  struct Instruction {
    uint32_t line = 0;
    bool guarded = false;       // may not execute: its writes do not end earlier definitions
    bool writesAnyGpr = false;  // a call
    std::vector<Operand> writes, reads;
  };
  const std::vector<Instruction>& instructions() const { return insts_; }

  /// Register units: R0..R254, then P0..P6, UR0..UR62 and UP0..UP6 from these on.
  static constexpr uint16_t kPredUnit = 256, kUgprUnit = 264, kUpredUnit = 328, kUnits = 335;

  /// The blocks: instructions [blockBegin, blockEnd) each, a label or a branch, call or exit
  /// before each; the successors a branch, exit or fall-through gives.
  size_t blockCount() const { return blockStart_.size(); }
  size_t blockBegin(uint32_t b) const { return blockStart_[b]; }
  /// One past block `b`'s last instruction.
  size_t blockEnd(uint32_t b) const;
  const std::vector<uint32_t>& successors(uint32_t b) const { return succs_[b]; }
  /// Whether block `b` starts at a label, and at a function's symbol (the section's own, or a
  /// function ptxas placed in it: `$kernel$callee`); the block a label starts.
  bool labelled(uint32_t b) const { return labelled_[b]; }
  bool startsFunction(uint32_t b) const { return startsFunction_[b]; }
  /// Whether the function starting at block `b` is visible outside the cubin (`.global`).
  bool global(uint32_t b) const { return global_[b]; }
  /// Whether the section's own function is a kernel (an entry: nothing is set before it).
  bool kernel() const { return kernel_; }
  std::optional<uint32_t> blockAt(std::string_view label) const;

 private:
  bool writes(size_t i, uint16_t unit) const;  // may write it
  bool kills(size_t i, uint16_t unit) const;   // surely writes it: earlier values end there
  bool reads(size_t i, uint16_t unit) const;
  std::vector<size_t> definitions(size_t i, uint16_t unit, bool& fromEntry) const;
  /// Scans each block reached from `work` along `next` (predecessors or successors) once,
  /// going on past a block only when `scan(first, end)` says nothing there ended the path;
  /// whether the walk went on past the entry block.
  bool walkBlocks(std::vector<uint32_t> work, const std::vector<std::vector<uint32_t>>& next,
                  const std::function<bool(size_t, size_t)>& scan) const;
  std::vector<size_t> uses(size_t i, uint16_t unit) const;

  std::vector<Instruction> insts_;
  std::vector<uint32_t> blockStart_;  // instruction index of each block's first
  std::vector<uint32_t> blockOf_;     // instruction index -> block
  std::vector<bool> labelled_, startsFunction_, global_;
  bool kernel_ = false;
  std::vector<std::pair<std::string, size_t>> labels_;  // label -> its instruction index
  std::vector<std::vector<uint32_t>> succs_, preds_;
};

/// The registers an instruction line writes and reads (its guard among the reads).
SassFlowGraph::Instruction sassRegisters(std::string_view lineText);

/// The flow of SASS line `line` (its function's graph built for the one question).
ValueFlow valueFlow(const Artifact& sass, uint32_t line);

/// "R2 from the LDG.E at 0x00d0 — line 12; R0 used by the FMUL at 0x0100 — line 12": the
/// sources, then the results, at most `perRegister` instructions each.
std::string describeValueFlow(const Artifact& sass, const LineMap&, const ValueFlow&,
                              size_t perRegister = 3);

}  // namespace ks
