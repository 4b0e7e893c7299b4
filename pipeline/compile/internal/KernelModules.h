// The whole PTX cut into one module per kernel, for ptxas to assemble each apart
// (KernelImages.h). Internal to pipeline/.
//
// `ptxas --entry` still reads the whole module, so a kernel's module is made of its text:
// the PTX's header and `.file` table (every line outside a function or a variable, so the
// line info reads the same), the kernel, the functions and variables it reaches
// (transitively, by name) and the declarations of those. No LLVM reads PTX, so the text's
// top-level statements are told apart here, by the braces and semicolons that end them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "Artifact.h"

namespace ks {

struct KernelModule {
  std::string kernel;  // the entry's symbol; empty: the functions of a PTX without kernels
  std::string text;    // what ptxas assembles
  std::vector<uint32_t> imageLineOf;  // line of `text` -> line of the whole PTX
  /// With line ids: the whole PTX's line of each id (ptxWithLineIds with a line list: the
  /// ids count the module's own lines, so that they do not move when other code does).
  std::vector<uint32_t> idLines;
  bool relocatable = false;  // it calls a function the PTX only declares (`.extern`)
};

/// One module per kernel of `ptx`, in the order of the kernels; without kernels, one of
/// every function. With `lineIds` each module has line ids
/// (ptxWithLineIds); without, its lines are `ptx`'s as they are. `linkedForLaunch`: the code
/// was linked, so a declared function is not a reason to assemble relocatably (vprintf).
std::vector<KernelModule> kernelModules(const Artifact& ptx, bool lineIds, bool linkedForLaunch);

/// `sass`, nvdisasm's listing of a module's cubin, with each line id (counting the module's
/// lines, KernelModule::idLines) turned into the whole PTX's (kLineIdBase + its line) and
/// each label `.L_x_N` renumbered from `firstLabel` on (nvdisasm numbers from 0 in each
/// cubin); `labels` is set past the highest label.
std::string wholePtxLineIds(std::string_view sass, const std::vector<uint32_t>& idLines,
                            uint32_t firstLabel, uint32_t& labels);

}  // namespace ks
