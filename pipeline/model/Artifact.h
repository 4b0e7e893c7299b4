// Artifact: one generated form of a kernel (MIR, LLVM IR, PTX, SASS) as lines with locations.
//
// Every parser produces this shape so that the line map, the CLI and the server treat
// all stages alike. It is plain data: no JSON, no LSP, no LLVM types.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "SharedString.h"
#include "TextUtil.h"  // splitLines, which most users of an artifact use too

namespace ks {

enum class Stage { Mir, LlvmIr, Ptx, Sass };
inline constexpr Stage kAllStages[] = {Stage::Mir, Stage::LlvmIr, Stage::Ptx, Stage::Sass};

/// The stage's wire name: "mir", "llvm-ir", "ptx", "sass".
std::string_view stageName(Stage);
/// Every stage's wire name, in kAllStages' order, as a list for messages: "mir, llvm-ir,
/// ptx, sass".
std::string stageNameList();
/// The inverse of stageName, strictly: the wire names only; nullopt for any other.
std::optional<Stage> stageFromName(std::string_view);
/// A stage as people type it on a command line or in kernelscope.toml: its wire name or a
/// short form of LLVM IR's ("llvm", "ll", "ir"); nullopt for an unknown name.
std::optional<Stage> stageFromTypedName(std::string_view);
/// The editor language of a stage's text: "mir", "llvm", "ptx", "sass".
std::string_view stageLanguage(Stage);
/// The file extension of a stage's text: "mir", "ll", "ptx", "sass".
std::string_view stageExtension(Stage);

/// One frame of a debug location. Lines and columns are 1-based as compilers print them;
/// line 0 means "no line" (code the compiler made up).
struct Frame {
  // The texts are shared: a compile's frames name a few files and functions many times
  // over (ChainInterner makes equal ones one).
  SharedString file;  // normalized absolute path ("a/../b" resolved)
  uint32_t line = 0;
  uint32_t column = 0;
  SharedString function;  // the function this frame's code belongs to, demangled; may be empty

  auto operator<=>(const Frame&) const = default;
};

/// An inline chain, innermost frame first: chain[0] is where the code is written,
/// chain[k+1] the call site that inlined chain[k]'s function. Immutable and shared: copying
/// a Chain copies a pointer, so the lines, line-map origins, cached results and snapshots
/// that have one chain hold one copy of its frames (a ChainInterner makes equal chains one).
class Chain {
 public:
  Chain() = default;
  Chain(std::vector<Frame> frames);  // NOLINT(google-explicit-constructor): a chain is its frames
  Chain(std::initializer_list<Frame> frames) : Chain(std::vector<Frame>(frames)) {}

  const std::vector<Frame>& frames() const;
  operator const std::vector<Frame>&() const { return frames(); }  // NOLINT
  bool empty() const { return frames().empty(); }
  size_t size() const { return frames().size(); }
  std::vector<Frame>::const_iterator begin() const { return frames().begin(); }
  std::vector<Frame>::const_iterator end() const { return frames().end(); }
  const Frame& operator[](size_t i) const { return frames()[i]; }
  const Frame& front() const { return frames().front(); }
  const Frame& back() const { return frames().back(); }
  /// The shared frames' address: equal ids mean equal chains (not the reverse, unless both
  /// come from one ChainInterner). nullptr for the empty chain.
  const void* id() const { return frames_.get(); }

  bool operator==(const Chain& o) const { return id() == o.id() || frames() == o.frames(); }
  bool operator==(const std::vector<Frame>& o) const { return frames() == o; }

 private:
  std::shared_ptr<const std::vector<Frame>> frames_;
};

/// Interns chains: equal frames give one shared Chain, whose frames share their equal files
/// and function names. The parsers keep one per artifact, so a chain that thousands of
/// instructions share is stored once.
class ChainInterner {
 public:
  Chain intern(std::vector<Frame> frames);
  Chain intern(const Chain& chain);
  size_t size() const { return chains_.size(); }

 private:
  struct Hash {
    size_t operator()(const std::vector<Frame>&) const;
  };
  std::unordered_map<std::vector<Frame>, Chain, Hash> chains_;
  StringInterner texts_;  // the frames' files and functions
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

/// A line of an artifact. `location` is its inline chain (see Chain); empty when the
/// compiler gave no location.
struct ArtifactLine {
  LineKind kind = LineKind::Other;
  int32_t function = -1;  // index into Artifact::functions, -1 outside any function
  Chain location;
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

/// An artifact is built whole: its constructors index the text, so that the text, the
/// byte offset where each of its lines starts and one ArtifactLine per line always agree.
/// What a line says (kind, function, location) may be set later through lines(); how many
/// lines there are is the text's alone.
class Artifact {
 public:
  Artifact() = default;
  /// `text` with one line of kind Other and no location per line of it: a parser then says
  /// what each line is.
  Artifact(Stage stage, std::string text);
  /// `text` with the lines and functions a rewrite of another artifact made for it. Lines
  /// beyond the text's are dropped and missing ones are of kind Other, so that the counts
  /// agree whatever the caller passed.
  Artifact(Stage stage, std::string text, std::vector<ArtifactLine> lines,
           std::vector<ArtifactFunction> functions);

  Stage stage = Stage::Ptx;
  std::vector<ArtifactFunction> functions;

  const std::string& text() const { return text_; }
  /// One per line of text(), in order.
  std::span<ArtifactLine> lines() { return lines_; }
  std::span<const ArtifactLine> lines() const { return lines_; }
  /// The text of line `i` (0-based), without its newline.
  std::string_view lineText(size_t i) const;
  /// Line `i` as the user sees it: lineText, but a SASS place comment kept as its marker
  /// (kSassPlaceMarker) written out from the line's chain.
  std::string shownLine(size_t i) const;
  /// The whole text as the user sees it (shownLine of every line).
  std::string shownText() const;
  /// The byte offset in text() where line `i` starts.
  uint32_t lineStart(size_t i) const { return lineStarts_[i]; }
  /// The line holding the byte at `offset` of text() (the last line past the end).
  uint32_t lineAt(size_t offset) const;
  /// Number of lines of kind Instruction.
  size_t instructionCount() const;
  /// The bytes the artifact holds (text, line index, lines and functions, not the chains).
  size_t bytesHeld() const;

 private:
  std::string text_;
  std::vector<uint32_t> lineStarts_;
  std::vector<ArtifactLine> lines_;
};

/// A SASS listing writes where its code comes from in comments, `//## File "PATH", line N`
/// and for inlined code `inlined at "PATH", line M` for each caller: with a library's inline
/// chains, half a kilobyte of paths each, most of an 80-kernel listing's text. So a decoded
/// listing keeps each one as this marker alone, its place in the line's chain, and they
/// are written out only when shown (Artifact::shownLine).
inline constexpr std::string_view kSassPlaceMarker = "//## File";
/// The comment nvdisasm writes for code from `chain`: `//## File "...", line N inlined at
/// ...`, or `//## compiler-generated (no source line)` for none.
std::string sassPlaceComment(const Chain& chain);

/// Whether `name` names the kernel `symbol` (demangled: `demangled`): the symbol itself, its
/// demangled path, or that path's last segment (`saxpy` for `kernels::saxpy`). The one rule
/// every command and request that takes a kernel's name follows.
bool namesKernel(std::string_view symbol, std::string_view demangled, std::string_view name);

/// Lexically normalizes a path: resolves "." and "..", no file system access.
std::string normalizePath(std::string_view path);

}  // namespace ks
