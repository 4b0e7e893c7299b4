// Diagnostics: rustc and ptxas messages at their source ranges, and a warning on every
// kernel that spills registers or uses local memory.
#include "Features.h"

#include "Uri.h"

namespace ks::server {
namespace {

lsp::DiagnosticSeverity severityOf(Severity s) {
  switch (s) {
    case Severity::Error: return lsp::DiagnosticSeverity::Error;
    case Severity::Warning: return lsp::DiagnosticSeverity::Warning;
    case Severity::Note: return lsp::DiagnosticSeverity::Information;
    case Severity::Help: return lsp::DiagnosticSeverity::Hint;
  }
  return lsp::DiagnosticSeverity::Error;
}

lsp::Range rangeOf(const std::string& text, const SourceRange& r, PositionEncoding enc) {
  lsp::Range out;
  out.start = positionOfCharColumn(text, r.startLine, r.startColumn, enc);
  out.end = r.endLine ? positionOfCharColumn(text, r.endLine, r.endColumn, enc) : out.start;
  if (out.end < out.start) out.end = out.start;
  return out;
}

}  // namespace

lsp::PublishDiagnosticsParams diagnosticsOf(const Snapshot& s, const Settings& settings,
                                            PositionEncoding enc) {
  lsp::PublishDiagnosticsParams p;
  p.uri = s.uri;
  if (!s.result) return p;
  for (const Diagnostic& d : s.result->diagnostics) {
    lsp::Diagnostic out;
    out.severity = severityOf(d.severity);
    out.source = d.source;
    out.code = d.code;
    out.message = d.message;
    if (d.range && d.range->file == s.path) {
      out.range = rangeOf(s.text, *d.range, enc);
    } else if (d.range && !d.range->file.empty()) {
      // A message about another file (a module, `core`) is shown at the top, naming it.
      out.message += " (at " + d.range->file + ":" + std::to_string(d.range->startLine) + ")";
    }
    p.diagnostics.push_back(std::move(out));
  }
  for (const KernelInfo& k : s.result->kernels) {
    if (!k.resources) continue;
    const KernelResources& r = *k.resources;
    if (r.spillStores == 0 && r.spillLoads == 0 && r.localMemory == 0) continue;
    lsp::Diagnostic out;
    out.severity = lsp::DiagnosticSeverity::Warning;
    out.source = "kernelscope";
    out.message = "kernel `" + (k.demangled.empty() ? k.symbol : k.demangled) + "` on " +
                  s.result->arch + ": " + std::to_string(r.spillStores) + " B spill stores, " +
                  std::to_string(r.spillLoads) + " B spill loads, " +
                  std::to_string(r.localMemory) + " B local memory";
    if (k.definition.line && (k.definition.file.empty() || k.definition.file == s.path))
      out.range.start = out.range.end = positionOfCharColumn(s.text, k.definition.line, 1, enc);
    p.diagnostics.push_back(std::move(out));
  }
  if (settings.remarks) {
    for (const Remark& r : s.result->remarks) {
      if (r.kind != Remark::Kind::Missed || !r.location || r.location->file != s.path) continue;
      lsp::Diagnostic out;
      out.severity = lsp::DiagnosticSeverity::Hint;
      out.source = "llvm " + r.pass;
      out.message = r.message;
      out.range.start = out.range.end =
          positionOfCharColumn(s.text, r.location->line, r.location->column, enc);
      p.diagnostics.push_back(std::move(out));
    }
  }
  return p;
}

}  // namespace ks::server
