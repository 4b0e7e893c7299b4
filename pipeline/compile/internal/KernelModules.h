// The whole PTX cut into modules of a few kernels each, for ptxas to assemble each apart
// (KernelImages.h). Internal to pipeline/.
//
// `ptxas --entry` still reads the whole module, so a group's module is made of its text:
// the PTX's header and `.file` table (every line outside a function or a variable, so the
// line info reads the same), its kernels, the functions and variables they reach
// (transitively, by name) and the declarations of those. No LLVM reads PTX, so the text's
// top-level statements are told apart here, by the braces and semicolons that end them.
//
// Groups, not single kernels: nvdisasm takes about half a second of CPU to start whatever
// the cubin (CUDA 11.8), so one per kernel would cost a file of 80 kernels 40 s. A kernel's
// group follows from its name and the number of kernels alone, so an edit to one kernel
// leaves the other groups' modules as they were.
//
// A compile that must assemble more groups than it has cores to run them on (a first open,
// a change to code every kernel uses) assembles them in fewer, larger modules instead, one
// per core (KernelModules::merged), and cuts what ptxas and nvdisasm made of each back into
// its groups' images (PtxBackend.cpp): one nvdisasm start per core instead of per group.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "Artifact.h"

namespace ks {

/// About how many kernels a module holds.
inline constexpr size_t kKernelsPerModule = 10;

struct KernelModule {
  std::vector<std::string> kernels;   // its entries' symbols; none in a PTX without kernels
  std::string text;                   // what ptxas assembles
  std::vector<uint32_t> imageLineOf;  // line of `text` -> line of the whole PTX
  /// With line ids: the whole PTX's line of each id (ptxWithLineIds with a line list: the
  /// ids count the module's own lines, so that they do not move when other code does).
  std::vector<uint32_t> idLines;
  bool relocatable = false;            // it calls a function the PTX only declares (`.extern`)
  std::vector<std::string> functions;  // the functions it defines
};

/// Groups to assemble as one module: theirs merged (every kernel of theirs, what they reach).
struct MergedModule {
  std::vector<size_t> members;  // indices into KernelModules::modules
  KernelModule module;
};

struct KernelModules {
  std::vector<KernelModule> modules;
  std::vector<std::string> functions;  // every function the PTX defines, in its order
  std::vector<MergedModule> merged;    // groups that may be assembled together (`jobs`)
};

/// The kernels of `ptx` in modules of about kKernelsPerModule (by their names' digests);
/// without kernels, one module of every function. With `lineIds` each module has line ids
/// (ptxWithLineIds); without, its lines are `ptx`'s as they are. `linkedForLaunch`: the code
/// was linked, so a declared function is not a reason to assemble relocatably (vprintf).
/// With more groups than `jobs` (> 0), the loadable ones are also dealt into `jobs` merged
/// modules of about as many kernels each (the largest group first, to the smallest pile),
/// a pile of one group left out.
KernelModules kernelModules(const Artifact& ptx, bool lineIds, bool linkedForLaunch,
                            size_t jobs = 0);

/// `text` with each number that follows `prefix` replaced by what `renumber` makes of it
/// (nullopt: left as it is).
std::string renumberAfter(std::string_view text, std::string_view prefix,
                          const std::function<std::optional<uint32_t>(uint32_t)>& renumber);

/// `sass`, nvdisasm's listing of a module's cubin, with each line id (counting the module's
/// lines, KernelModule::idLines) turned into the whole PTX's (kLineIdBase + its line).
std::string wholePtxLineIds(std::string_view sass, const std::vector<uint32_t>& idLines);

}  // namespace ks
