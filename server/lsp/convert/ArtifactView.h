// Filtered views of an artifact: the text without the noise a user turned off (directives,
// debug locations, unused labels, comments, library functions, SASS padding), and the
// mapping between the view's lines and the artifact's, so that every feature speaking of
// artifact lines (segments, kernels, lineMap, sourceLocation, hover) stays exact on it.
// One behaviour for the editors' views (the server's features) and `kernelscope report`'s
// panes, which shows the same view by default.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
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

/// The filters as bits, one per key of lsp::ArtifactFilters: a line's bits say which filters
/// hide it, each deciding on its own, so a view hides the lines with any bit of its filters.
enum FilterBit : uint8_t {
  kFilterDirectives = 1 << 0,
  kFilterDebugLocations = 1 << 1,
  kFilterUnusedLabels = 1 << 2,
  kFilterComments = 1 << 3,
  kFilterLibraryFunctions = 1 << 4,
  kFilterPadding = 1 << 5,
  kFilterCompactSass = 1 << 6,  // rewrites SASS lines, hides none
  kAllFilters = (1 << 7) - 1,
};
struct ViewFilter {
  const char* name;  // its key in `filters`
  FilterBit bit;
  bool lsp::ArtifactFilters::*field;
};
/// Every filter, in the order the protocol lists them.
const std::vector<ViewFilter>& viewFilters();
uint8_t filterBits(const lsp::ArtifactFilters&);
/// For each line of `a`, the bits of the filters among `asked` that hide it.
std::vector<uint8_t> lineFilters(const Artifact& a, uint8_t asked = kAllFilters);

/// Which artifact lines the views of some stages show: what the hovers and inlay hints count
/// (countLine). A stage without its lines' filter bits shows every line.
struct ShownLines {
  std::map<Stage, std::shared_ptr<const std::vector<uint8_t>>> lineFilters;
  uint8_t filters = 0;
  bool shown(Stage, uint32_t line) const;
};

/// The lineFilters of the few artifacts asked last (those of the snapshots being read), each
/// computed once: hovers and inlay hints ask for them on every request. Not thread-safe.
class LineFiltersCache {
 public:
  std::shared_ptr<const std::vector<uint8_t>> of(const std::shared_ptr<const Artifact>&);

 private:
  static constexpr size_t kKept = 8;
  std::deque<std::pair<std::weak_ptr<const Artifact>, std::shared_ptr<const std::vector<uint8_t>>>>
      kept_;
};

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
