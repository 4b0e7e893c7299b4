// Filtered views of an artifact: the text without the noise a user turned off (directives,
// debug locations, unused labels, comments, library functions, SASS padding), and the
// mapping between the view's lines and the artifact's, so that every feature speaking of
// artifact lines (segments, kernels, lineMap, sourceLocation, hover) stays exact on it.
// One behaviour for the editors' views (the server's features) and `kernelscope report`'s
// panes, which shows the same view by default.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "Artifact.h"
#include "Compile.h"
#include "Extensions.h"

namespace ks {

/// The filters a view starts with in the editors (VS Code's `kernelscope.filters.*`,
/// Neovim's `filters`) and in `kernelscope report`: every one on.
lsp::ArtifactFilters defaultViewFilters();

/// A SASS instruction line without nvdisasm's column padding, as the compactSass filter
/// shows it: `        /*0090*/               @P0 EXIT ;` -> `/*0090*/ @P0 EXIT ;`.
std::string compactSassLine(std::string_view line);

/// Which lines of an artifact a view shows, and its text. A pure function of the
/// artifact's lines (their text, kind and function) and the filters.
class ArtifactView {
 public:
  ArtifactView(const Artifact&, const lsp::ArtifactFilters&);

  /// The view's text: the shown lines, SASS compacted when asked.
  const std::string& text() const { return text_; }
  size_t size() const { return shown_.size(); }
  /// The artifact line that view line `line` shows; -1 past the view's end.
  int artifactLine(int line) const;
  /// The view line showing artifact line `line`; -1 when it is filtered out.
  int viewLine(int line) const;
  /// Artifact lines `start`..`end` (inclusive) as view lines; false when none is shown.
  bool viewRange(int start, int end, int& viewStart, int& viewEnd) const;

 private:
  std::string text_;
  std::vector<uint32_t> shown_;     // view line -> artifact line
  std::vector<int32_t> viewOf_;     // artifact line -> view line, -1 when hidden
  std::vector<int32_t> nextShown_;  // artifact line -> first view line at or after it
};

/// kernelscope/artifact's reply as `view` shows it: its text, and segments and kernels in
/// view lines (segments whose lines are all filtered out are dropped).
lsp::ArtifactResult filterArtifact(lsp::ArtifactResult, const ArtifactView&);
/// kernelscope/lineMap's reply for a file of `r` in the lines of each stage's view with
/// `filters`.
lsp::LineMapResult filterLineMap(lsp::LineMapResult, const CompileResult& r,
                                 const lsp::ArtifactFilters&);

}  // namespace ks
