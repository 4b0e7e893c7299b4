// Conversions between pipeline data and protocol data that several features share.
#include "Features.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include "ArtifactView.h"
#include "Uri.h"

namespace ks::server {

std::string_view extensionOfStageName(std::string_view name) {
  auto stage = stageFromName(name);
  return stage ? stageExtension(*stage) : std::string_view{};
}

std::string virtualUri(Stage stage, const std::string& path, std::optional<int> revision) {
  return lsp::makeVirtualUri(stageName(stage), stageExtension(stage), path, revision);
}

lsp::InlineFrame toInlineFrame(const Frame& f, const UriOf& uriOf) {
  lsp::InlineFrame out;
  out.uri = uriOf(f.file);
  out.line = f.line > 0 ? static_cast<int>(f.line) - 1 : 0;
  out.character = f.column > 0 ? static_cast<int>(f.column) - 1 : 0;
  out.function = f.function;
  return out;
}

const LineCount::PerStage* LineCount::find(Stage stage) const {
  auto it = std::find_if(stages.begin(), stages.end(),
                         [stage](const PerStage& p) { return p.stage == stage; });
  return it == stages.end() ? nullptr : &*it;
}

LineCount countLine(const CompileResult& result, const std::vector<Stage>& stages,
                    const SourceLine& src, const ShownLines& shown) {
  LineCount count;
  if (!result.lineMap) return count;
  for (Stage stage : stages) {
    const StageOutcome* outcome = result.stage(stage);
    if (!outcome || !outcome->available) continue;
    const StageLines& lines = result.lineMap->linesFor(stage, src);
    LineCount::PerStage p{stage, {}, {}};
    auto keepShown = [&](const std::vector<uint32_t>& from, std::vector<uint32_t>& into) {
      std::copy_if(from.begin(), from.end(), std::back_inserter(into),
                   [&](uint32_t l) { return shown.shown(stage, l); });
    };
    keepShown(lines.direct, p.lines);
    keepShown(lines.inlined, p.inlined);
    if (!p.lines.empty() || !p.inlined.empty()) count.stages.push_back(std::move(p));
  }
  count.inlined = !count.stages.empty() &&
                  std::all_of(count.stages.begin(), count.stages.end(),
                              [](const LineCount::PerStage& p) { return p.lines.empty(); });
  if (count.inlined)
    for (LineCount::PerStage& p : count.stages) p.lines = std::exchange(p.inlined, {});
  return count;
}

lsp::Expected<const StageOutcome*> stageOf(const Snapshot& s, Stage stage) {
  const StageOutcome* outcome = s.result ? s.result->stage(stage) : nullptr;
  if (!outcome && s.result &&
      std::find(s.result->pending.begin(), s.result->pending.end(), stageName(stage)) !=
          s.result->pending.end())
    return lsp::ResponseError{
        lsp::ErrorCode::RequestFailed,
        std::string(stageName(stage)) + " is still coming (the compile has not finished it yet)"};
  if (!outcome)
    return lsp::ResponseError{
        lsp::ErrorCode::RequestFailed,
        std::string(stageName(stage)) + " was not compiled (not in the stages setting)"};
  if (!outcome->available)
    return lsp::ResponseError{
        lsp::ErrorCode::RequestFailed,
        std::string(stageName(stage)) + " unavailable: " + outcome->unavailableReason};
  return outcome;
}

}  // namespace ks::server
