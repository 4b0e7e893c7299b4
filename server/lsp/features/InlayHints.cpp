// Inlay hints: a short count such as `4 ptx · 6 sass` at the end of each source line
// that produced code, for the stages the hover shows, and with SASS among them what the
// line costs (`35 live · LDL ×12`, Costs.h).
#include <map>

#include "Costs.h"
#include "Features.h"

namespace ks::server {

std::vector<lsp::InlayHint> inlayHints(const Snapshot& s, const lsp::Range& range,
                                       const Settings& settings, PositionEncoding enc) {
  std::vector<lsp::InlayHint> hints;
  if (!s.result || !s.result->lineMap) return hints;
  const LineMap& map = *s.result->lineMap;
  // Per 0-based source line, the count per hover stage (in the settings' order).
  std::map<int, std::vector<std::pair<Stage, size_t>>> counts;
  for (Stage stage : settings.hoverStages) {
    const StageOutcome* outcome = s.result->stage(stage);
    if (!outcome || !outcome->available) continue;
    for (const SourceLine& src : map.sourceLinesWithCode(stage)) {
      int line = static_cast<int>(src.line) - 1;
      if (src.file != s.path || line < range.start.line || line > range.end.line) continue;
      counts[line].emplace_back(stage, map.linesFor(stage, src).direct.size());
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
    for (const auto& [stage, n] : perStage) {
      if (!h.label.empty()) h.label += " · ";
      h.label += std::to_string(n) + " " + std::string(stageName(stage));
    }
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
