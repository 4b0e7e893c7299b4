// One parser per generated format. Each takes the tool's text as it was printed and
// returns an Artifact: the lines, their kinds, their functions, and the debug location
// each line carries (with its inline chain where the format has one).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "Artifact.h"

namespace llvm {
class DILocalScope;
class DILocation;
class LLVMContext;
class Module;
}  // namespace llvm

namespace ks {

/// rustc `--emit=mir` with `-Zmir-include-spans=on`: statement spans, scopes and
/// inlined scopes (each inlined scope's call site gives the next frame out).
Artifact parseMir(std::string text);

/// rustc `--emit=llvm-ir`, read with the LLVM library: `!dbg` locations with their full
/// `inlinedAt` chains, Rust symbols demangled. The text shown is LLVM's own printing of
/// the module. On a parse error returns an artifact with the text and no locations and
/// sets `error`. `keep`, when given, receives the parsed module (null after a parse error),
/// so that another reader of the same IR does not parse the text again.
struct LlvmModule;
Artifact parseLlvmIr(std::string text, std::string* error = nullptr, LlvmModule* keep = nullptr);

/// A module parsed by parseLlvmIr, with the context that owns it.
struct LlvmModule {
  LlvmModule();
  ~LlvmModule();
  void reset();  // frees the module and its context
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;  // destroyed before its context
};

/// The inline chains of an LLVM module's debug locations (innermost frame first), each made
/// once: a location's chain, and a scope's file and demangled function name, are computed
/// on first use and shared after, so reading every instruction of a module costs one
/// demangling per function, not one per frame of every instruction.
class DebugChains {
 public:
  DebugChains();
  ~DebugChains();
  DebugChains(const DebugChains&) = delete;
  DebugChains& operator=(const DebugChains&) = delete;
  /// The chain of `loc` and the locations it was inlined at (empty for null).
  const Chain& of(const llvm::DILocation* loc);
  /// `frames` as a chain shared with the equal chains made here.
  Chain intern(std::vector<Frame> frames) { return interner_.intern(std::move(frames)); }

 private:
  struct Scope {
    std::string file, function;
  };
  const Scope& scopeOf(const llvm::DILocalScope*);
  std::unordered_map<const llvm::DILocation*, Chain> chains_;
  std::unordered_map<const llvm::DILocalScope*, Scope> scopes_;
  ChainInterner interner_;
};

/// PTX from LLVM's NVPTX backend: `.file`/`.loc`, including the
/// `.loc f l c, function_name X, inlined_at f l c` form of newer LLVM.
Artifact parsePtx(std::string text);

/// True for a PTX `.loc` line directive (and not `.local`, which shares its first letters).
bool isPtxLocDirective(std::string_view trimmedLine);

/// `nvdisasm -c -g -gi` output: `//## File "...", line N` groups (with `inlined at`).
Artifact parseSass(std::string text);

/// Demangles a Rust (v0 or legacy) or C++ symbol; returns it unchanged otherwise.
std::string demangleSymbol(std::string_view symbol);

}  // namespace ks
