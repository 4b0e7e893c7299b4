// Liveness: how many registers are live at each SASS instruction — a backward live-variable
// dataflow over the function's control-flow graph (ValueFlow.h's SassFlowGraph), counted as
// nvdisasm's life ranges count them (`nvdisasm -c -plr -lrm count`), which CostsTest
// checks instruction by instruction on every example and fixture.
//
// A register counts at an instruction when the instruction writes it, or when a value
// written to it on some path to the instruction is read on some path from it (a read of a
// register nothing wrote before counts nowhere). A guarded write may not happen, so it does
// not end the value before it. nvdisasm counts webs (the writes that reach a common read)
// apart, not values: within a block, a web of several writes stays counted from where one
// of its values reaches to where another of its writes sets the register again, whatever
// other webs write there in between. Registers are counted per 32-bit unit (R4.64 is two) and per
// class: general registers, predicates and uniform registers (RZ, PT and URZ hold nothing).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "Artifact.h"
#include "ValueFlow.h"

namespace ks {

/// The registers live at one instruction, by class.
struct LiveCount {
  uint16_t gpr = 0, pred = 0, ugpr = 0;
  bool operator==(const LiveCount&) const = default;
};

/// The live counts of each instruction of `graph` (in its instructions() order), built from
/// `sass`'s function whose code (its `.text` section's bytes) is `code` and whose kernel has
/// `registers` registers a thread; nullopt for an instruction no path reaches from the
/// function's start or a label (nvdisasm does not list those).
std::vector<std::optional<LiveCount>> liveCounts(const Artifact& sass, const SassFlowGraph& graph,
                                                 std::string_view code, uint32_t registers);

}  // namespace ks
