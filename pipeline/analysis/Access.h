// Access: how each load and store of a kernel touches memory across a warp, predicted from
// rustc's optimized LLVM IR with LLVM's own analyses.
//
// ScalarEvolution gives every address as an expression; stepping the thread index
// (`llvm.nvvm.read.ptx.sreg.tid.x`) by one in that expression and subtracting gives the
// distance between the addresses of neighbouring lanes: the element size (coalesced), zero
// (one address for the warp), another constant or a run-time value (strided), or nothing
// ScalarEvolution can tell (unknown). For shared memory, the same stride gives the banks the
// 32 lanes touch and so the bank-conflict ways. UniformityAnalysis, with the NVPTX target's
// divergence sources (the thread-index registers), says which branches may diverge.
// Every fact is attributed to its Rust line through the instruction's debug location,
// inline-aware like the rest of the line map. A warp is taken to be 32 consecutive
// threadIdx.x (blockDim.x a multiple of 32): with a narrower block the prediction says
// less than the hardware does.
#pragma once

#include <cstdint>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "LineMap.h"

namespace llvm {
class Module;
}  // namespace llvm

namespace ks {

enum class AccessPattern : uint8_t {
  Coalesced,  // neighbouring lanes touch neighbouring elements
  Uniform,    // every lane of the warp reads the same address
  Strided,    // lanes are a constant or a run-time stride apart
  Unknown,    // the address depends on the thread in a way ScalarEvolution cannot step
};

/// One load, store or atomic of the IR and its predicted access across a warp.
struct MemoryAccess {
  std::string function;
  SourceLine line;                    // the Rust line it is written on
  std::vector<SourceLine> callSites;  // user lines it was inlined through
  std::string op;                     // "load", "store", "atomic"
  std::string space;                  // "global", "shared", "local", "constant", "generic"
  bool throughGeneric = false;        // a generic pointer to `space` (cvta / addrspacecast)
  std::string type;                   // "f32", "<4 x f32>"
  uint32_t bytes = 0;                 // bytes per lane
  uint32_t lanes = 1;                 // vector elements (1: scalar)
  AccessPattern pattern = AccessPattern::Unknown;
  std::optional<int64_t> strideBytes;      // between lanes tid.x and tid.x + 1
  std::string symbolicStride;              // the run-time stride in elements ("n")
  bool symbolicInBytes = false;            // ... in bytes: it is no multiple of the element
  bool dependsOnTidYZ = false;             // varies with threadIdx.y/z only
  bool dataDependent = false;              // varies with values loaded at run time
  uint32_t sectors = 0, idealSectors = 0;  // 32-byte sectors per warp request (0: unknown)
  uint32_t bankWays = 0;                   // shared: 1 conflict-free, 32: 32-way; 0: unknown

  /// "global load f32" — what is accessed.
  std::string head() const;
  /// "coalesced", "32-way bank conflict (stride 32 words)", "stride n floats: up to 32
  /// sectors per request" — how.
  std::string how() const;
};

/// A conditional branch that may take different ways in the lanes of one warp.
struct DivergentBranch {
  std::string function;
  SourceLine line;
  std::vector<SourceLine> callSites;
  bool onThreadIndex = false;  // its condition depends on a thread-index register
};

struct AccessFacts {
  std::vector<MemoryAccess> accesses;
  std::vector<DivergentBranch> branches;
  bool analyzed = false;  // the IR was read and analysed
  std::string error;      // why not
};

/// The accesses and divergent branches of every function defined in `module` that
/// `functions` names (all when empty). `arch` selects the NVPTX target whose divergence
/// sources UniformityAnalysis uses. Changes nothing in `module` but its analyses' caches.
AccessFacts analyzeAccesses(llvm::Module& module, const std::vector<std::string>& functions,
                            const LineMap& lineMap, const std::string& arch);
/// The facts of every function of `module`, computed on a thread of their own over a copy of
/// `module` in an LLVM context of its own (read back from bitcode written here: a context
/// serves one thread at a time), so that the caller may lower or free `module` at once. A
/// whole compile analyses this way on the core its single-threaded back end leaves idle.
/// `lineMap` must not change while the thread reads it.
std::shared_future<AccessFacts> analyzeAccessesAside(const llvm::Module& module,
                                                     std::shared_ptr<const LineMap> lineMap,
                                                     const std::string& arch);
/// The facts of `all` about the functions `functions` names.
AccessFacts accessesOf(const AccessFacts& all, const std::vector<std::string>& functions);
/// The same on IR text (parsed here).
AccessFacts analyzeAccesses(std::string_view irText, const std::vector<std::string>& functions,
                            const LineMap& lineMap, const std::string& arch);

/// The 32-byte sectors one warp request touches, 32 lanes `stride` bytes apart, each
/// `bytes` wide, from an aligned base.
uint32_t sectorsPerRequest(int64_t stride, uint32_t bytes);
/// The bank-conflict ways of a shared access of 32 lanes `stride` bytes apart, each `bytes`
/// wide: the most distinct 4-byte words one of the 32 banks serves, over the fewest
/// wavefronts the width needs (1: conflict-free).
uint32_t bankConflictWays(int64_t stride, uint32_t bytes);

}  // namespace ks
