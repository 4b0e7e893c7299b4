// Diffs of generated code: what a stage's code became between two compiles, and a one-line
// summary per stage ("PTX +3 −1, SASS +2, regs 10→12").
//
// Two compiles of the same kernel differ in much that is not code: virtual register and
// label numbers (PTX %r12, $L__BB0_3; LLVM IR %_12; MIR _12, bb3), debug locations (.loc,
// !dbg, //## File), SASS addresses (/*0120*/) and the NOPs that pad a SASS function. Lines
// are compared with those normalized away, so a renamed variable or an edited comment
// changes nothing. SASS register numbers are kept: register allocation is real code.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "Artifact.h"
#include "Compile.h"

namespace ks {

/// The form by which artifact line `line` is compared: empty when the line takes no part
/// (debug locations, blank lines, comments, debug-only labels, padding).
std::string comparableLine(const Artifact&, size_t line);

struct DiffOptions {
  int context = 3;        // unchanged lines shown around each change
  bool normalize = true;  // false: compare lines as printed (trimmed), nothing left out
};

/// What one stage's code became.
struct StageDiff {
  Stage stage = Stage::Ptx;
  /// A unified diff: `-` lines from before, `+` and context lines from after, as printed.
  /// Hunk headers give line numbers in the artifacts' texts; lines that take no part in
  /// the comparison are left out of the hunks. Empty when nothing changed.
  std::string unified;
  uint32_t added = 0, removed = 0;  // instructions
  bool changed() const { return !unified.empty(); }
};

StageDiff diffArtifacts(const Artifact& before, const Artifact& after,
                        const std::string& beforeLabel, const std::string& afterLabel,
                        const DiffOptions& = {});

/// A kernel resource that a summary follows.
enum class Resource : uint8_t { Registers, Spills, SharedMemory, StackFrame, Occupancy };

/// The word for a resource in summaries: "regs", "spills", "smem", "stack", "occupancy".
std::string_view resourceWord(Resource);

/// One resource that differs between two compiles of a kernel. Spills count the bytes of
/// spill stores and loads together; occupancy is the percentage at the requested block size.
struct ResourceChange {
  Resource resource;
  uint32_t before = 0, after = 0;
};

/// A kernel's resources before and after (either side unset when the kernel is new or gone).
struct KernelChange {
  std::string kernel;  // demangled
  std::optional<KernelInfo> before, after;
  /// The resources that differ, in the order above; empty when either side has none.
  std::vector<ResourceChange> resources;
  bool changed() const { return !before || !after || !resources.empty(); }
};

/// The summary of two compiles whose code and resources are the same.
inline constexpr std::string_view kNoChange = "no change";

/// What changed between two compiles.
struct CompileDiff {
  std::vector<StageDiff> stages;      // the stages both compiles have, in pipeline order
  std::vector<KernelChange> kernels;  // every kernel of either side
  /// "PTX +3 −1, SASS +2, regs 10→12" (a stage whose instructions are the same but whose
  /// declarations or labels changed reads "PTX ±0"); kNoChange when nothing changed.
  std::string summary;
  bool changed() const;
};

/// Diffs every stage both results have, and their kernels' resources. Labels name the two
/// sides in the unified diffs ("revision 3", "saxpy.rs (sm_80)").
CompileDiff diffCompiles(const CompileResult& before, const CompileResult& after,
                         const std::string& beforeLabel, const std::string& afterLabel,
                         const DiffOptions& = {});

/// The display name of a stage in summaries: "MIR", "LLVM IR", "PTX", "SASS".
std::string_view stageTitle(Stage);

}  // namespace ks
