// Costs: what each line costs before it runs, read statically off the SASS.
//
// Per SASS instruction: the registers live across it (GPR, predicate, uniform), counted by
// kernelscope's own liveness over the function's control flow (Liveness.h) as nvdisasm's
// life-range analysis counts them (`nvdisasm -c -plr -lrm count`; the tests compare every
// instruction of the examples), the control code ptxas encoded beside it (stall cycles,
// yield, the scoreboard barriers it sets and waits on, operand reuse; sm_70 and later, read
// from the cubin's bytes), and whether it touches local memory as a spill or as a per-thread
// array. Per source line (through the line map, inline-aware): the peak live registers, the
// local-memory instructions, the memory instructions by address space and width, and a lower
// bound of the cycles it takes to issue. Per kernel: the peak lines, the allocated registers
// against the peak live count, and the occupancy step fewer registers would give.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "Access.h"
#include "Artifact.h"
#include "Diagnostics.h"
#include "LineMap.h"
#include "Occupancy.h"
#include "SassText.h"  // sassOpcode, which the costs name instructions by

namespace ks {

/// The scheduling bits ptxas encodes in bits 105..125 of every sm_70+ instruction.
struct ControlCode {
  uint8_t stall = 0;         // cycles before the warp may issue its next instruction
  uint8_t yield = 0;         // the yield hint bit, as encoded
  uint8_t writeBarrier = 7;  // scoreboard set when the result is written; 7: none
  uint8_t readBarrier = 7;   // scoreboard set when the sources are read; 7: none
  uint8_t waitMask = 0;      // scoreboards (bits 0..5) waited on before issuing
  uint8_t reuse = 0;         // operand reuse cache bits (a, b, c, d)
  auto operator<=>(const ControlCode&) const = default;
};

/// Decodes the control bits from the high 64 bits of a 128-bit instruction.
ControlCode decodeControlCode(uint64_t high);
/// "S04 Y W0 R- wait{1,2} reuse{a}" — the compact notation of the bits.
std::string controlCodeNotation(const ControlCode&);

enum class LocalUse : uint8_t { None, Spill, Array };

/// The costs of one SASS instruction line.
struct InstructionCost {
  bool hasLive = false;
  uint16_t gpr = 0, pred = 0, ugpr = 0;  // live across the instruction (nvdisasm's count)
  bool hasControl = false;
  ControlCode control;
  uint32_t address = 0;  // the instruction's offset in its function
  LocalUse local = LocalUse::None;
};

/// A per-thread array kept in local memory, from the LLVM IR: an `alloca` that stayed
/// (SROA could not promote it), and the instruction that indexes it at run time.
struct LocalArray {
  std::string function;  // the IR function (kernel) symbol
  std::string name;      // the alloca's name in the IR, if it has one
  uint64_t bytes = 0;
  std::vector<SourceLine> indexedAt;  // user lines of GEPs with a run-time index
  std::optional<SourceLine> usedAt;   // the first user line that touches it
};

/// Every SASS instruction's costs, indexed by the SASS artifact's line (non-instruction
/// lines are empty), and the local arrays of the IR.
struct SassCosts {
  std::vector<InstructionCost> lines;
  std::vector<LocalArray> arrays;
  AccessFacts access;         // how each load and store touches memory (Access.h)
  bool liveCounts = false;    // the live registers were counted
  bool controlCodes = false;  // the cubin's control codes were read
};

/// A function's code in a cubin (an ELF file): its `.text.NAME` section's bytes, and the
/// registers a thread of it takes (EIATTR_REGCOUNT in `.nv.info`; 0 when not said).
struct CubinFunction {
  std::string_view code;  // a view of the cubin's bytes
  uint32_t registers = 0;
};
/// The cubin's functions by name; empty when it is not an ELF file (`error` says why).
using CubinFunctions = std::unordered_map<std::string, CubinFunction>;
CubinFunctions cubinFunctions(std::string_view cubin, std::string* error = nullptr);

/// Counts the registers live at every instruction into `costs` (Liveness.h: kernelscope's
/// own liveness over each function's control-flow graph, counted as nvdisasm's life ranges
/// count them), with the cubin's code for what the listing does not print. Returns the
/// instructions counted.
size_t countLiveRegisters(const Artifact& sass, std::string_view cubin, SassCosts& costs);
/// The same with the code of each function given (a listing of several cubins).
size_t countLiveRegisters(const Artifact& sass, const CubinFunctions& functions, SassCosts& costs);

/// Reads the control codes of every instruction from the cubin (an ELF file: each
/// function's `.text.NAME` section), for sm_70 and later. Returns the instructions read;
/// 0 when the cubin is unreadable (`error` says why) or the arch is older.
size_t readControlCodes(const Artifact& sass, std::string_view cubin, std::string_view arch,
                        SassCosts& costs, std::string* error = nullptr);
/// The same with the code of each function given (a listing of several cubins).
size_t readControlCodes(const Artifact& sass, const CubinFunctions& functions,
                        std::string_view arch, SassCosts& costs, std::string* error = nullptr);

/// Marks LDL/STL instructions as a per-thread array's or a spill's. A function whose PTX has
/// no local depot can only spill; one that ptxas says spills nothing (`spillsOf`: its spill
/// bytes, by symbol; unknown: nullopt) only touches its array. Otherwise an instruction whose
/// PTX line (`ptxLineOfSass`, per SASS line, UINT32_MAX: unknown) is a load or store (LLVM
/// reaches the depot through `ld.local` or a generic `ld` of its address) is the array's, any
/// other ptxas's spill.
void classifyLocal(const Artifact& sass, const Artifact& ptx,
                   const std::vector<uint32_t>& ptxLineOfSass,
                   const std::function<std::optional<uint32_t>(const std::string&)>& spillsOf,
                   SassCosts& costs);

/// The allocas left in the LLVM IR's functions named in `functions`, with the user line
/// that indexes each at run time (IR text read with LLVM; `lineMap` attributes the chains).
std::vector<LocalArray> findLocalArrays(std::string_view irText,
                                        const std::vector<std::string>& functions,
                                        const LineMap& lineMap);

/// The address space of a SASS memory instruction, from its opcode ("LDG.E.128" ->
/// global); empty for an instruction that is not a load or store.
std::string_view memorySpace(std::string_view opcode);
/// The access width in bits of a SASS memory instruction (32 unless `.64`/`.128`/`.U8`...).
uint32_t memoryWidth(std::string_view opcode);

/// Memory instructions of one address space on a line.
struct MemoryOps {
  std::string space;  // "global", "shared", "local", "constant", "generic", "texture"
  uint32_t loads = 0, stores = 0, atomics = 0;
  uint32_t widestBits = 0;
};

/// What one source line costs, over its own instructions and those inlined through calls
/// on it.
struct LineCost {
  uint32_t instructions = 0;
  bool hasLive = false;
  uint16_t peakGpr = 0, peakPred = 0, peakUgpr = 0;
  uint32_t ldl = 0, stl = 0;
  uint32_t spillOps = 0, arrayOps = 0;
  bool hasControl = false;
  uint32_t issueCycles = 0;  // the stall counts summed: a lower bound, not a time
  std::vector<MemoryOps> memory;
  /// The predicted access of the line's loads and stores, alike ones counted together.
  struct Access {
    std::string head, how;  // MemoryAccess::head() and how()
    uint32_t count = 0;
    bool costsGeneric = false;  // to shared or local through a generic pointer: LD/ST
  };
  std::vector<Access> access;
  /// The worst of them, for the short form: the most bank-conflict ways of a shared access
  /// (0: none known above 1), the most sectors per request over the ideal of a global one
  /// (e.g. 8: eight times the sectors a coalesced access needs), a run-time stride's name.
  uint32_t worstBankWays = 0, worstSectorFactor = 0;
  std::string runTimeStride;
  bool mayDiverge = false;             // a branch on the line may diverge (UniformityAnalysis)
  bool divergesOnThreadIndex = false;  // ... its condition depends on the thread index
  bool any() const { return instructions != 0; }
};

/// The cost of the SASS lines `lines` (instruction lines of one source line).
LineCost costOf(const Artifact& sass, const SassCosts&, const std::vector<uint32_t>& lines);
/// The cost of source line `src`: its direct and inlined SASS lines.
LineCost lineCost(const Artifact& sass, const LineMap&, const SassCosts&, const SourceLine& src);
/// "35 live · LDL ×12 · 32-way conflict" — the short form (empty when there is nothing):
/// registers, local memory, and a memory access a warp pays for more than once.
std::string lineCostHint(const LineCost&);
/// The line's predicted accesses and divergence in words ("global load f32 ×1: coalesced
/// (4 sectors per request)", "branch may diverge (depends on the thread index)").
std::vector<std::string> lineAccessTexts(const LineCost&);
/// The longer form, one clause per figure, for a hover or explain's cost line.
std::string lineCostText(const LineCost&);

/// A kernel's register pressure and what fewer registers would give.
struct KernelCost {
  std::string symbol;
  bool hasLive = false;
  uint16_t peakGpr = 0;
  std::vector<SourceLine> peakLines;  // user lines with an instruction at the peak
  uint32_t allocated = 0;             // ptxas's registers per thread
  uint32_t highestRegister = 0;       // 1 + the highest R<n> the SASS names
  std::optional<Occupancy> now;       // at the block size asked for
  /// The largest register count below `allocated` that reaches a higher occupancy, and it.
  std::optional<uint32_t> stepRegisters;
  std::optional<Occupancy> step;
  uint32_t ldl = 0, stl = 0, spillOps = 0, arrayOps = 0;
  std::vector<SourceLine> spillLines, arrayLines;
  /// Why allocated and peak live differ, in words.
  std::string registerNote;
  /// "37 registers → 75% at 256 threads; the peak is 35 live at line 41; at ≤ 32
  /// registers: 100%".
  std::string summary;
};

/// The costs of kernel `symbol` (its SASS function), with its resources for the occupancy.
KernelCost kernelCost(const Artifact& sass, const LineMap&, const SassCosts&,
                      const std::string& symbol, const std::optional<KernelResources>&,
                      std::string_view arch, uint32_t blockSize);

/// Every line of `file` with SASS code and its cost, in line order.
std::vector<std::pair<uint32_t, LineCost>> fileCosts(const Artifact& sass, const LineMap&,
                                                     const SassCosts&, const std::string& file);

/// A line worth looking at first, and why.
struct LookHere {
  uint32_t line = 0;
  std::string why;
};
/// The lines of `file` to look at first (at most `limit`): spills, then per-thread arrays in
/// local memory, then each kernel's register peak, then the most issue cycles.
std::vector<LookHere> linesToLookAtFirst(const std::vector<std::pair<uint32_t, LineCost>>& costs,
                                         const std::vector<KernelCost>& kernels,
                                         const std::string& file, size_t limit = 5);

/// "waits on SB1: the LDG at 0x00c0 (line 30)" for each scoreboard instruction `line` waits
/// on: the nearest earlier instruction of its function, in listing order, that sets it.
std::vector<std::string> describeWaits(const Artifact& sass, const LineMap&, const SassCosts&,
                                       uint32_t line);
/// The control code of SASS line `line` in words ("stall 4 cycles; sets SB2 when its result
/// is written; waits on SB0: the LDC at 0x0000 (line 12)"); empty without one.
std::string describeControl(const Artifact& sass, const LineMap&, const SassCosts&, uint32_t line);

}  // namespace ks
