// Conversions between pipeline data and protocol data that several features share.
#include "Features.h"

#include <algorithm>

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
