// kernelscope/artifact: a stage's whole text as a virtual document, with the segments
// that map its lines to source positions and where each kernel's body is.
#include "Features.h"

#include <unordered_map>

#include "Uri.h"

namespace ks::server {

lsp::Expected<lsp::ArtifactResult> artifactOf(const Snapshot& s, Stage stage, bool versionedUri,
                                              const UriOf& uriOf) {
  auto outcome = stageOf(s, stage);
  if (!outcome) return outcome.error();
  const Artifact& a = *(*outcome)->artifact;
  lsp::ArtifactResult r;
  r.uri = virtualUri(stage, s.path, versionedUri ? std::optional<int>(s.revision) : std::nullopt);
  r.stage = std::string(stageName(stage));
  r.revision = s.revision;
  r.languageId = std::string(stageLanguage(stage));
  r.text = a.shownText();
  if (const LineMap* map = s.result->lineMap.get()) {
    // Each chain goes into the reply once, however many segments share it.
    std::unordered_map<const void*, int> chainIndex;
    for (const LineMap::Segment& seg : map->segments(stage)) {
      const LineOrigin& o = map->origin(stage, seg.origin);
      lsp::ArtifactSegment out;
      out.start = static_cast<int>(seg.start);
      out.end = static_cast<int>(seg.end);
      if (o.user.file != s.path) out.source.uri = uriOf(o.user.file);
      out.source.line = o.user.line > 0 ? static_cast<int>(o.user.line) - 1 : 0;
      out.source.character = o.user.column > 0 ? static_cast<int>(o.user.column) - 1 : 0;
      if (o.chain.size() > 1 || o.viaLibrary) {
        auto [it, added] = chainIndex.try_emplace(o.chain.id(), static_cast<int>(r.chains.size()));
        if (added) {
          std::vector<lsp::InlineFrame>& frames = r.chains.emplace_back();
          for (const Frame& f : o.chain) frames.push_back(toInlineFrame(f, uriOf));
        }
        out.chain = it->second;
      }
      r.segments.push_back(std::move(out));
    }
  }
  for (const ArtifactFunction& f : a.functions)
    if (f.isKernel)
      r.kernels.push_back(lsp::ArtifactKernel{f.demangled.empty() ? f.symbol : f.demangled,
                                              static_cast<int>(f.firstLine),
                                              static_cast<int>(f.lastLine)});
  return r;
}

}  // namespace ks::server
