// kernelscope/lineMap and kernelscope/sourceLocation: source line to artifact lines,
// and artifact line back to its source location and inline chain.
#include "Features.h"

#include "Uri.h"

namespace ks::server {
namespace {

/// Sorted artifact lines as inclusive ranges of consecutive lines.
std::vector<lsp::LineRange> toRanges(std::vector<uint32_t> lines) {
  std::sort(lines.begin(), lines.end());
  std::vector<lsp::LineRange> out;
  for (uint32_t l : lines) {
    int line = static_cast<int>(l);
    if (!out.empty() && out.back().end + 1 >= line)
      out.back().end = std::max(out.back().end, line);
    else
      out.push_back(lsp::LineRange{line, line});
  }
  return out;
}

}  // namespace

lsp::LineMapResult lineMapOf(const Snapshot& s, int line) {
  lsp::LineMapResult r;
  r.revision = s.revision;
  if (!s.result || !s.result->lineMap || line < 0) return r;
  SourceLine src{s.path, static_cast<uint32_t>(line) + 1};
  for (Stage stage : kAllStages) {
    const StageOutcome* outcome = s.result->stage(stage);
    if (!outcome || !outcome->available) continue;
    const StageLines& lines = s.result->lineMap->linesFor(stage, src);
    std::string name(stageName(stage));
    r.stages[name] = toRanges(lines.direct);
    r.counts[name] = static_cast<int>(lines.direct.size());
    if (!lines.inlined.empty()) r.inlined[name] = toRanges(lines.inlined);
  }
  return r;
}

lsp::SourceLocationResult sourceLocationOf(const Snapshot& s, Stage stage, int line,
                                           const UriOf& uriOf) {
  lsp::SourceLocationResult r;
  if (!s.result || !s.result->lineMap || line < 0) return r;
  const LineOrigin& o = s.result->lineMap->origin(stage, static_cast<uint32_t>(line));
  if (o.attribution == Attribution::Direct) {
    lsp::Location loc;
    loc.uri = uriOf(o.user.file);
    loc.range.start.line = o.user.line > 0 ? static_cast<int>(o.user.line) - 1 : 0;
    loc.range.start.character = o.user.column > 0 ? static_cast<int>(o.user.column) - 1 : 0;
    loc.range.end = loc.range.start;
    r.location = loc;
  }
  for (const Frame& f : o.chain) r.inlineChain.push_back(toInlineFrame(f, uriOf));
  return r;
}

}  // namespace ks::server
