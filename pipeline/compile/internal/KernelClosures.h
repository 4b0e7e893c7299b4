// rustc's optimization of a crate, made by kernelscope, and a kernel's part of it alone.
//
// rustc with `-C no-prepopulate-passes` stops after making the crate's LLVM module.
// optimizeAsRustc runs LLVM's pipeline over it as rustc sets its own up, and the NVPTX back
// end (nvptxTargetMachine) makes rustc's PTX of the result byte for byte; the IR holds
// rustc's instructions, only some local value names carry other numeric suffixes (LLVM
// numbers a name's copies per function in the order it made them, and rustc made some in
// memory before the optimization). tests/pipeline/compile/KernelClosuresTest.cpp checks
// both on every compiling fixture.
//
// What a kernel becomes depends on more than its own body: on the functions and variables
// it reaches, and where one of those is local to the crate, on everything else that uses
// it (the inliner favours a function's last call, interprocedural constant propagation
// meets every call site's arguments, a variable nobody stores to folds to its initializer).
// KernelClosures::of collects that whole set; optimized alone in a module of just that set
// (closureModule), the kernel becomes what it becomes in the whole crate, and its PTX is
// the whole module's but for the numbers LLVM counts across a module (ptxWithModuleCountsReset).
// With the reached set alone (ClosureRule::Reached) a kernel that shares a local helper or
// variable can come out otherwise: tests/fixtures/shared_helper.rs has both.
// Internal to pipeline/.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <string_view>

namespace llvm {
class Module;
}

namespace ks {

/// How the pipeline is tuned: LLVM's defaults (what `opt` runs), or as rustc tunes it.
enum class PipelineTuning { LlvmDefaults, Rustc };

/// LLVM's optimization pipeline at `optLevel` (0-3) over `module`, for the NVPTX target at
/// `arch`. Empty, or why not.
std::string optimizeForNvptx(llvm::Module& module, const std::string& arch, int optLevel,
                             PipelineTuning);

/// The pipeline as rustc runs it for nvptx64 at `-C opt-level=N -C target-cpu=ARCH` with one
/// codegen unit.
inline std::string optimizeAsRustc(llvm::Module& module, const std::string& arch, int optLevel) {
  return optimizeForNvptx(module, arch, optLevel, PipelineTuning::Rustc);
}

enum class ClosureRule {
  Reached,   // what the kernel reaches: its callees, the variables they read, transitively
  Complete,  // and every user of a local one of those, with what it reaches in turn
};

/// The closures of a module's kernels, from who names whom among its definitions (found
/// once, for every kernel asked about).
class KernelClosures {
 public:
  explicit KernelClosures(const llvm::Module& module);
  ~KernelClosures();

  /// The names of the global objects (functions and variables with a body or an
  /// initializer) whose code can change what `kernel` becomes; `kernel` included. Empty
  /// when the module has no definition of that name.
  std::set<std::string> of(const std::string& kernel, ClosureRule = ClosureRule::Complete) const;

 private:
  struct References;
  const llvm::Module& module_;
  std::unique_ptr<const References> references_;
};

/// A copy of `module` with only the definitions `names` lists (the rest dropped, or
/// declared where something kept uses it), in the module's order.
std::unique_ptr<llvm::Module> closureModule(const llvm::Module& module,
                                            const std::set<std::string>& names);

/// The PTX of function `name` (its `.entry` or `.func` up to its closing brace) out of
/// `ptx`, with what LLVM numbers across a module counted from zero in the function: labels
/// (`$L__BB3_1`, `$L__tmp17`), the local depot, call sequences, and each `.loc`'s file
/// number written as the file's name. Empty when `ptx` defines no such function.
std::string ptxWithModuleCountsReset(std::string_view ptx, std::string_view name);

}  // namespace ks
