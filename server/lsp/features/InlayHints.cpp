// Inlay hints: a short count such as `4 ptx · 6 sass` at the end of each source line
// that produced code, for the stages the hover shows, and with SASS among them what the
// line costs (`35 live · LDL ×12`, Costs.h). A line whose only code came through an
// inlined call of the user's own function counts those lines, marked
// `8 ptx · 12 sass (inlined)`: without a count it reads as a line that produced nothing.
#include <algorithm>
#include <map>

#include "Costs.h"
#include "Features.h"

namespace ks::server {

std::vector<lsp::InlayHint> inlayHints(const Snapshot& s, const lsp::Range& range,
                                       const Settings& settings, PositionEncoding enc) {
  std::vector<lsp::InlayHint> hints;
  if (!s.result || !s.result->lineMap) return hints;
  const LineMap& map = *s.result->lineMap;
  // Per 0-based source line, the direct and the inlined count per hover stage (in the
  // settings' order).
  struct Count {
    Stage stage;
    size_t direct, inlined;
  };
  std::map<int, std::vector<Count>> counts;
  for (Stage stage : settings.hoverStages) {
    const StageOutcome* outcome = s.result->stage(stage);
    if (!outcome || !outcome->available) continue;
    for (const SourceLine& src : map.sourceLinesWithCode(stage, /*orInlined=*/true)) {
      int line = static_cast<int>(src.line) - 1;
      if (src.file != s.path || line < range.start.line || line > range.end.line) continue;
      const StageLines& lines = map.linesFor(stage, src);
      counts[line].push_back({stage, lines.direct.size(), lines.inlined.size()});
    }
  }
  const StageOutcome* sass = s.result->stage(Stage::Sass);
  const bool costs = s.result->costs && sass && sass->available &&
                     std::find(settings.hoverStages.begin(), settings.hoverStages.end(),
                               Stage::Sass) != settings.hoverStages.end();
  const LineIndex index(s.text);
  for (const auto& [line, perStage] : counts) {
    lsp::InlayHint h;
    h.position = index.endOfLine(line, enc);
    // A line with code of its own counts that; one with only inlined code counts it.
    const bool onlyInlined =
        std::all_of(perStage.begin(), perStage.end(), [](const Count& c) { return c.direct == 0; });
    for (const Count& c : perStage) {
      const size_t n = onlyInlined ? c.inlined : c.direct;
      if (n == 0) continue;
      if (!h.label.empty()) h.label += " · ";
      h.label += std::to_string(n) + " " + std::string(stageName(c.stage));
    }
    if (h.label.empty()) continue;
    if (onlyInlined) h.label += " (inlined)";
    if (costs) {
      const SourceLine src{s.path, static_cast<uint32_t>(line) + 1};
      const std::string cost = lineCostHint(lineCost(*sass->artifact, map, *s.result->costs, src));
      if (!cost.empty()) h.label += " · " + cost;
    }
    hints.push_back(std::move(h));
  }
  return hints;
}

}  // namespace ks::server
