// The image that is launched: what a kernel calls from `core` linked into it.
//
// A kernel compiled as an rlib calls `core`'s functions that were not inlined (the
// bounds-check panic, `panic_const_rem_by_zero`, `expect_failed`, ...) without their code:
// ptxas can assemble such PTX only as relocatable code (-c), which the driver cannot load.
// A cargo `cdylib` build for nvptx links them in with rustc's bitcode linker
// (llvm-bitcode-linker), which Debian's rustc-web does not ship (nor a rustup toolchain
// without that component), and which would mean a second rustc run over the crate as a
// cdylib; linking the IR already parsed takes milliseconds.
// kernelscope links them in-process instead, with LLVM's own linker, over the bitcode of the
// nvptx64 `core` and `compiler_builtins` rlibs of the sysroot (built with
// -Cembed-bitcode=yes, ensureSysroot; an nvptx64 object file is bitcode): only what the
// kernel reaches comes in, optimized together with the crate's panic handler (as a cdylib's
// link optimizes the whole, so that a panic path whose handler ignores its message keeps
// none of core's formatting: measured, 52 registers for a bounds-checked kernel linked
// without, 12 with), then made internal. The user's own functions are not optimized again:
// they stay the code rustc made, so their PTX and exact line map are unchanged. Internal to
// pipeline/.
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
