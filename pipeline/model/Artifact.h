// Artifact: one generated form of a kernel (MIR, LLVM IR, PTX, SASS) as lines with locations.
//
// Every parser produces this shape so that the line map, the CLI and the server treat
// all stages alike. It is plain data: no JSON, no LSP, no LLVM types.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ks {

enum class Stage { Mir, LlvmIr, Ptx, Sass };
inline constexpr Stage kAllStages[] = {Stage::Mir, Stage::LlvmIr, Stage::Ptx, Stage::Sass};

/// The stage's wire name: "mir", "llvm-ir", "ptx", "sass".
std::string_view stageName(Stage);
/// The inverse of stageName; nullopt for an unknown name.
std::optional<Stage> stageFromName(std::string_view);
/// The editor language of a stage's text: "mir", "llvm", "ptx", "sass".
std::string_view stageLanguage(Stage);
/// The file extension of a stage's text: "mir", "ll", "ptx", "sass".
std::string_view stageExtension(Stage);

/// One frame of a debug location. Lines and columns are 1-based as compilers print them;
/// line 0 means "no line" (code the compiler made up).
struct Frame {
  std::string file;  // normalized absolute path ("a/../b" resolved)
  uint32_t line = 0;
  uint32_t column = 0;
  std::string function;  // the function this frame's code belongs to, demangled; may be empty

  auto operator<=>(const Frame&) const = default;
};

enum class LineKind : uint8_t {
  Instruction,  // real code: a MIR statement or terminator, an IR instruction, a PTX/SASS
                // instruction
  Label,        // a basic block or branch label
  Directive,    // declarations, .loc/.file, attributes, metadata
  Header,       // a function's signature line
  Other,        // blank lines, comments, braces
};

/// How an artifact line's location was obtained.
enum class LocationSource : uint8_t {
  Printed,      // read off the artifact as the tool printed it
  Regenerated,  // exact chain, recovered by regenerating the code with chain ids (see
                // ExactLocations.h)
  Guessed,      // completed by matching locations against the LLVM IR (may be wrong when
                // one library function is inlined at several call sites)
};

/// A line of an artifact. `location` is the inline chain, innermost first: location[0]
/// is where the code is written, location[k+1] is the call site that inlined
/// location[k]'s function. Empty when the compiler gave no location.
struct ArtifactLine {
  LineKind kind = LineKind::Other;
  int32_t function = -1;  // index into Artifact::functions, -1 outside any function
  std::vector<Frame> location;
  LocationSource source = LocationSource::Printed;
};

/// A function's body in the artifact's text (0-based, inclusive line range).
struct ArtifactFunction {
  std::string symbol;     // as in the artifact (mangled where the artifact mangles)
  std::string demangled;  // human name
  uint32_t firstLine = 0;
  uint32_t lastLine = 0;
  bool isKernel = false;  // an entry point (`.entry`, `ptx_kernel`, `extern "ptx-kernel"`)
  Frame definition;       // where the function is defined in source, when the format says
};

struct Artifact {
  Stage stage = Stage::Ptx;
  std::string text;
  std::vector<ArtifactLine> lines;  // one per line of `text`
  std::vector<ArtifactFunction> functions;

  /// The text of line `i` (0-based), without its newline.
  std::string_view lineText(size_t i) const;
  /// Number of lines of kind Instruction.
  size_t instructionCount() const;
  /// Byte offsets where each line starts; filled by indexLines().
  std::vector<uint32_t> lineStarts;
  /// Computes lineStarts from text and sizes `lines` to match. Parsers call it first.
  void indexLines();
};

/// Splits text into lines (without newlines); a trailing newline makes no extra line.
std::vector<std::string_view> splitLines(std::string_view text);

/// Lexically normalizes a path: resolves "." and "..", no file system access.
std::string normalizePath(std::string_view path);

}  // namespace ks
