// LineMap: which artifact lines each user source line became, and back.
//
// Attribution is inline-aware. An artifact line belongs to the innermost frame of its
// inline chain that lies in one of the user's files (code inlined out of `core` belongs
// to the user line that called it). User frames further out (the call sites of the
// user's own inlined functions) also list the line, marked as inlined. Instructions with
// no location (or line 0) are compiler-generated and belong to no source line.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "Artifact.h"

namespace ks {

enum class Attribution : uint8_t {
  None,               // not code (directive, label, blank), or no location at all
  Direct,             // written on the source line (possibly via inlined library code)
  CompilerGenerated,  // code with no location or line 0: copies, spills, merged locations, padding
  Unattributed,       // code whose chain has no user frame at all
};

/// Where one artifact line comes from, as far as the user is concerned.
struct LineOrigin {
  Attribution attribution = Attribution::None;
  Frame user;                          // the innermost user frame (valid when Direct)
  Chain chain;                         // the full inline chain, innermost first, for display
  std::vector<Frame> outerUserFrames;  // user call sites further out (inlined through them)
  bool viaLibrary = false;             // the innermost frame is outside the user's files
};

/// A source position in one user file (1-based line).
struct SourceLine {
  std::string file;
  uint32_t line = 0;
  auto operator<=>(const SourceLine&) const = default;
};

/// What one source line became in one stage.
struct StageLines {
  std::vector<uint32_t> direct;   // artifact lines attributed to this source line
  std::vector<uint32_t> inlined;  // lines inlined through a call on this source line
};

class LineMap {
 public:
  /// `userFiles` are the normalized paths that count as the user's code.
  LineMap(std::vector<std::string> userFiles) : userFiles_(std::move(userFiles)) {}

  /// Attributes every line of the artifact and records it in the map.
  void addArtifact(const Artifact&);

  bool isUserFile(std::string_view file) const;
  /// The origin of code with this inline chain (innermost frame first), by the rules above.
  LineOrigin attributeChain(const Chain& chain) const;
  const std::vector<std::string>& userFiles() const { return userFiles_; }

  /// The origin of artifact line `line` of `stage` (None if out of range).
  const LineOrigin& origin(Stage stage, uint32_t line) const;
  /// The lines of `stage` that `src` became (empty when none).
  const StageLines& linesFor(Stage stage, const SourceLine& src) const;
  /// Every source line that produced code in `stage`; with `orInlined`, also the lines that
  /// only inlined code through a call.
  std::vector<SourceLine> sourceLinesWithCode(Stage stage, bool orInlined = false) const;
  /// The instructions of `stage` that the compiler gave no source line, in order.
  const std::vector<uint32_t>& compilerGenerated(Stage stage) const;

  /// Contiguous runs of artifact lines with the same direct source line, for editors
  /// that colour source and artifact alike. `start`/`end` are inclusive, 0-based.
  struct Segment {
    uint32_t start = 0, end = 0;
    uint32_t origin = 0;  // index of the first line's LineOrigin (same for the run)
  };
  std::vector<Segment> segments(Stage stage) const;

 private:
  struct PerStage {
    std::vector<LineOrigin> origins;     // one per distinct chain; 0: not code
    std::vector<uint32_t> originOfLine;  // artifact line -> index into origins
    std::map<SourceLine, StageLines> bySource;
    std::vector<uint32_t> compilerGenerated;
  };
  const PerStage* find(Stage) const;

  std::vector<std::string> userFiles_;
  // Shared and never changed once added: a copy of the map (to add a stage to a result
  // already published) shares the stages it had.
  std::map<Stage, std::shared_ptr<const PerStage>> stages_;
};

/// Completes the inline chains of artifact lines whose location lies outside the user's
/// files and carries no inline chain (PTX `.loc` from LLVM <= 22, SASS `//## File`), using
/// the exact chains of the LLVM IR of the same compile. Matching is by function and
/// innermost location; among several candidates the nearest preceding user location
/// in the artifact decides. Lines it completes get `LocationSource::Guessed`; lines
/// that already have an exact chain are left alone.
void recoverInlineChains(Artifact& target, const Artifact& llvmIr, const LineMap& users);

}  // namespace ks
