// Code actions: rustc's machine-applicable suggestions (`mut x`, a missing `;`, a type) as
// quick fixes, each with the diagnostic it fixes and the edit that applies it, as
// rust-analyzer offers them; and the obvious fixes of launch specs' problems.
#include "Features.h"
#include "GpuFeatures.h"

namespace ks::server {

std::vector<lsp::CodeAction> codeActions(const Snapshot& s, const lsp::Range& range,
                                         PositionEncoding enc, const UriOf& uriOf,
                                         const CrateLaunchSpecs& crateSpecs) {
  std::vector<lsp::CodeAction> out;
  if (!s.result) return out;
  // Only the Snapshot's own file is positioned here: its text is the one that compiled.
  auto textOf = [&](const std::string& file) { return file == s.path ? &s.text : nullptr; };
  for (const Diagnostic& d : s.result->diagnostics) {
    if (d.fixes.empty() || !d.range || d.range->file != s.path) continue;
    lsp::Diagnostic diag = toLspDiagnostic(d, textOf, enc, uriOf);
    if (diag.range.end < range.start || range.end < diag.range.start) continue;
    for (const SuggestedFix& fix : d.fixes) {
      lsp::CodeAction action;
      action.title = fix.title;
      action.diagnostics = {diag};
      bool positioned = true;
      for (const auto& [where, text] : fix.edits) {
        if (where.file != s.path) positioned = false;
        if (!positioned) break;
        lsp::Range at{positionOfCharColumn(s.text, where.startLine, where.startColumn, enc),
                      positionOfCharColumn(s.text, where.endLine, where.endColumn, enc)};
        action.changes[s.uri].push_back({at, text});
      }
      if (!positioned) continue;  // an edit in another file: not offered
      action.isPreferred = d.fixes.size() == 1;
      out.push_back(std::move(action));
    }
  }
  for (SpecDiagnostic& d : specDiagnostics(s, enc, crateSpecs)) {
    const lsp::Range& at = d.diagnostic.range;
    if (d.fix && !(at.end < range.start || range.end < at.start)) out.push_back(std::move(*d.fix));
  }
  return out;
}

}  // namespace ks::server
