// Diagnostics, resources and remarks: what the compilers say about a kernel besides its code.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "Artifact.h"
#include "SharedString.h"

namespace ks {

enum class Severity { Error, Warning, Note, Help };

/// A source range, 1-based lines and columns as compilers print them (columns in
/// characters of the line, end exclusive).
struct SourceRange {
  std::string file;
  uint32_t startLine = 0, startColumn = 0, endLine = 0, endColumn = 0;
};

/// What a message says at a span other than its own: a secondary label (`expected due to
/// this`), or a note or help that points somewhere.
struct RelatedNote {
  SourceRange range;
  std::string message;
};

/// A change the compiler suggests and marks safe to apply as it is (rustc's
/// `MachineApplicable`): each edit replaces its range with its text.
struct SuggestedFix {
  std::string title;  // the help's words, with the replacement: "consider changing this to be
                      // mutable: `mut x`"
  std::vector<std::pair<SourceRange, std::string>> edits;
};

/// One compiler message (rustc, ptxas, nvdisasm) attached to a source range where known.
struct Diagnostic {
  Severity severity = Severity::Error;
  std::string source;  // "rustc", "ptxas", "kernelscope"
  std::string code;    // "E0308", "" when none
  std::string message;
  std::optional<SourceRange> range;  // the primary span
  std::optional<uint32_t> ptxLine;   // ptxas messages: the 1-based PTX line they name
  std::vector<RelatedNote> related;  // labels and notes at other spans
  std::vector<SuggestedFix> fixes;   // machine-applicable suggestions
};

/// Whether any of `diagnostics` is an error.
inline bool hasError(const std::vector<Diagnostic>& diagnostics) {
  for (const auto& d : diagnostics)
    if (d.severity == Severity::Error) return true;
  return false;
}

/// Parses rustc's `--error-format=json` output (one JSON object per line; other lines
/// are ignored), as rust-analyzer reads it. Each diagnostic's primary span becomes its
/// range and its label a line of the message (`expected `u32`, found `f32``); the other
/// labelled spans, and notes and help with a span, become related notes; notes and help
/// without a span are folded into the message; machine-applicable suggestions become
/// fixes. rustc's closing summaries ("aborting due to …", "Some errors have detailed
/// explanations …", "For more information …") are dropped.
std::vector<Diagnostic> parseRustcDiagnostics(std::string_view jsonLines);

/// Per-kernel resources from `ptxas -v`.
struct KernelResources {
  std::string name;  // symbol as in the PTX
  std::string arch;  // "sm_90"
  uint32_t registers = 0;
  uint32_t barriers = 0;
  uint32_t stackFrame = 0;
  uint32_t spillStores = 0;
  uint32_t spillLoads = 0;
  uint32_t sharedMemory = 0;    // bytes of static shared memory
  uint32_t constantMemory = 0;  // bytes of cmem[0] (parameters and constants)
  uint32_t localMemory = 0;     // bytes of lmem
  bool isEntry = false;
};

struct PtxasReport {
  std::vector<KernelResources> functions;
  std::vector<Diagnostic> diagnostics;  // ptxas errors and warnings
};

/// Parses the stderr of `ptxas -v`.
PtxasReport parsePtxasReport(std::string_view text);

/// An LLVM optimization remark ("inlined", "loop not vectorized", ...).
struct Remark {
  enum class Kind { Passed, Missed, Analysis } kind = Kind::Passed;
  std::string pass;  // "inline", "loop-vectorize", "licm"
  std::string name;  // the remark's name ("Inlined", "MissedDetails")
  // Equal names and messages share one text (internRemarks): thousands of remarks repeat them.
  SharedString function;  // demangled function the remark is about
  SharedString message;   // one line, in LLVM's words
  std::optional<Frame> location;
  /// The user's line the remark is about, inline-aware (see attributeRemarks in
  /// Remarks.h); unset until attributed, or when its code lies on no user line.
  std::optional<Frame> userLocation;
  bool viaLibrary = false;  // `location` is library code inlined into `userLocation`
  uint32_t count = 1;       // identical remarks folded into this one
};

/// Makes the remarks' equal functions and messages one text each (SharedString.h).
inline void shareRemarkTexts(std::vector<Remark>& remarks) {
  StringInterner texts;
  for (Remark& r : remarks) {
    r.function = texts.intern(r.function);
    r.message = texts.intern(r.message);
  }
}

}  // namespace ks
