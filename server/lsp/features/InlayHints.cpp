// Inlay hints: a short count such as `4 ptx · 6 sass` at the end of each source line
// that produced code, for the stages the hover shows, and with SASS among them what the
// line costs (`35 live · LDL ×12`, Costs.h). A line whose only code came through an
// inlined call of the user's own function counts those lines, marked
// `8 ptx · 12 sass (inlined)` (countLine, as the hover counts: the lines the views show).
#include <algorithm>
#include <set>

#include "ArtifactView.h"
#include "Costs.h"
#include "Features.h"

namespace ks::server {

std::vector<lsp::InlayHint> inlayHints(const Snapshot& s, const lsp::Range& range,
                                       const Settings& settings, const ShownLines& shown,
                                       PositionEncoding enc) {
  std::vector<lsp::InlayHint> hints;
  if (!s.result || !s.result->lineMap) return hints;
  const LineMap& map = *s.result->lineMap;
  // The 0-based source lines of the range with code (or inlined code) in a hover stage.
  std::set<int> withCode;
  for (Stage stage : settings.hoverStages) {
    const StageOutcome* outcome = s.result->stage(stage);
    if (!outcome || !outcome->available) continue;
    for (const SourceLine& src : map.sourceLinesWithCode(stage, /*orInlined=*/true)) {
      int line = static_cast<int>(src.line) - 1;
      if (src.file == s.path && line >= range.start.line && line <= range.end.line)
        withCode.insert(line);
    }
  }
  const StageOutcome* sass = s.result->stage(Stage::Sass);
  const bool costs = s.result->costs && sass && sass->available &&
                     std::find(settings.hoverStages.begin(), settings.hoverStages.end(),
                               Stage::Sass) != settings.hoverStages.end();
  const LineIndex index(s.text);
  for (int line : withCode) {
    const SourceLine src{s.path, static_cast<uint32_t>(line) + 1};
    const LineCount count = countLine(*s.result, settings.hoverStages, src, shown);
    lsp::InlayHint h;
    h.position = index.endOfLine(line, enc);
    for (const LineCount::PerStage& c : count.stages) {
      if (c.lines.empty()) continue;
      if (!h.label.empty()) h.label += " · ";
      h.label += std::to_string(c.lines.size()) + " " + std::string(stageName(c.stage));
    }
    if (h.label.empty()) continue;
    h.label += count.mark();
    if (costs) {
      const std::string cost = lineCostHint(lineCost(*sass->artifact, map, *s.result->costs, src));
      if (!cost.empty()) h.label += " · " + cost;
    }
    hints.push_back(std::move(h));
  }
  return hints;
}

}  // namespace ks::server
