// One parser per generated format. Each takes the tool's text as it was printed and
// returns an Artifact: the lines, their kinds, their functions, and the debug location
// each line carries (with its inline chain where the format has one).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "Artifact.h"

namespace llvm {
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
