// The image that is launched: what a kernel calls from `core` (and from its crate's
// dependencies) linked into it.
//
// A kernel compiled as an rlib calls `core`'s functions that were not inlined (the
// bounds-check panic, `panic_const_rem_by_zero`, `expect_failed`, ...) without their code:
// ptxas can assemble such PTX only as relocatable code (-c), which the driver cannot load.
// A cargo `cdylib` build for nvptx links them with rustc's bitcode linker, which Debian's
// rustc-web does not ship (`rustc --crate-type cdylib` for nvptx64 here: "linker
// `llvm-bitcode-linker` not found"; rustup has it only as an extra component), and which
// would cost a second rustc run over the crate. kernelscope links in-process instead, with
// LLVM's own linker on the IR it has already parsed, over the bitcode of the crate's
// dependency rlibs and the sysroot's nvptx64 `core` and `compiler_builtins` (built with
// -Cembed-bitcode=yes, ensureSysroot; an nvptx64 object file is bitcode): measured on
// tests/fixtures/core_calls.rs, a compile takes as long with the link as without (1.4 to
// 1.6 s on a loaded 2-core machine, the link lost in the noise). Only what the kernels
// reach comes in, optimized together with the crate's panic handler as a cdylib's link
// optimizes the whole, so that a panic path whose handler ignores its message keeps none
// of core's formatting (measured: 52 registers for the bounds-checked kernel linked
// without optimizing, 10 with, as many as without a bounds check), then made internal.
// The user's own functions are not optimized again: they stay the code rustc made, so
// their PTX and exact line map are unchanged. Internal to pipeline/.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "Artifact.h"
#include "Compile.h"

namespace llvm {
class Module;
}

namespace ks {

/// A function the kernel calls that no library defines, and where it is called from.
struct UnresolvedFunction {
  std::string symbol;
  std::string demangled;
  std::vector<std::string> calledFrom;  // "kernel (file.rs:12:5)", at most a few
};

struct CoreLink {
  std::vector<LinkedFunction> linked;  // in the module's order
  /// Still declared, called and defined by nothing linked (ptxas itself knows a few:
  /// vprintf, malloc, free, __assertfail).
  std::vector<UnresolvedFunction> unresolved;
  std::string error;       // the sysroot's bitcode could not be read or linked (in part)
  bool attempted = false;  // the module called functions it only declares
};

/// Whether `module` calls functions it only declares (LLVM's intrinsics aside).
bool callsDeclaredFunctions(const llvm::Module& module);

/// Links into `module` the definitions it needs, transitively, from the crate's dependencies
/// (`crateRlibs`, as a cdylib links them) and the nvptx64 `core` and `compiler_builtins`
/// rlibs in `sysroot`; what came in is made internal. On an error the
/// module holds what was linked before it (all of it valid code): ptxas is then the judge of
/// what is still missing.
CoreLink linkSysrootLibraries(llvm::Module& module, const std::filesystem::path& sysroot,
                              const std::vector<std::filesystem::path>& crateRlibs,
                              const std::string& arch, int optLevel);

/// linkSysrootLibraries when `module` calls functions it only declares; nothing otherwise.
CoreLink linkForLaunch(llvm::Module& module, const std::filesystem::path& sysroot,
                       const std::vector<std::filesystem::path>& crateRlibs,
                       const std::string& arch, int optLevel);

/// The launched image's PTX where the PTX shown is rustc's own (cargo builds, another LLVM):
/// a copy of `module` linked (into `link`) and compiled by compilePtx, exact chains and all,
/// its linked functions marked. nullopt, with `error`, when the back end cannot compile it.
std::optional<Artifact> compileLinkedCopy(const llvm::Module& module,
                                          const std::filesystem::path& sysroot,
                                          const std::vector<std::filesystem::path>& crateRlibs,
                                          const std::string& arch, int optLevel, CoreLink& link,
                                          std::string& error);

/// Marks the linked functions in an artifact of the linked image: a note line before each
/// one's definition in PTX, after its label in SASS (where ptxas places a callee inside each
/// kernel that calls it, under `$kernel$symbol:`).
void markLinkedFunctions(Artifact& artifact, const std::vector<LinkedFunction>& linked);

/// The warning for an image that could not be made loadable: which functions are missing
/// (`missing`, as ptxas named them) and where the kernel calls them.
std::string unresolvedMessage(const std::vector<std::string>& missing,
                              const std::vector<UnresolvedFunction>& known);

}  // namespace ks
