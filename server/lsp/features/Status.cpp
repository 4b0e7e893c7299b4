// kernelscope/status: the state of a document's compile, sent on every change of state,
// with what a ready compile changed against the one before it.
#include <filesystem>

#include "Features.h"
#include "Trust.h"

namespace ks::server {
namespace {

// The error a failed status names: the document's own first one, else the crate's first
// (which the message then prefixes with its file and line, so it never seems to be here).
const Diagnostic* headlineError(const std::vector<Diagnostic>& diagnostics,
                                const std::string& documentPath) {
  const Diagnostic* first = nullptr;
  for (const Diagnostic& d : diagnostics) {
    if (d.severity != Severity::Error) continue;
    if (d.range && d.range->file == documentPath) return &d;
    if (!first) first = &d;
  }
  return first;
}

}  // namespace

lsp::StatusParams statusOf(const std::string& uri, int revision, std::string_view state,
                           const Snapshot* attempt, bool reportDuration,
                           const lsp::CompileChanges* changes) {
  lsp::StatusParams p;
  p.uri = uri;
  p.revision = revision;
  p.state = std::string(state);
  if (!attempt || !attempt->result) return p;
  const CompileResult& r = *attempt->result;
  std::string unavailable;
  for (const auto& [stage, outcome] : r.stages) {
    if (outcome.available) {
      p.stages.push_back(std::string(stageName(stage)));
    } else if (!outcome.unavailableReason.empty()) {
      if (!unavailable.empty()) unavailable += "; ";
      unavailable += std::string(stageName(stage)) + " unavailable: " + outcome.unavailableReason;
    }
  }
  for (const Diagnostic& d : r.diagnostics)  // workspace values not applied for want of trust
    if (d.code == kWorkspaceTrustCode && d.severity == Severity::Warning)
      p.withheld.push_back(d.message);
  p.pending = r.pending;
  p.durationMs = reportDuration ? static_cast<int>(attempt->duration.count()) : 0;
  if (!r.succeeded) {
    if (const Diagnostic* e = headlineError(r.diagnostics, attempt->path))
      p.message = e->range && e->range->file != attempt->path
                      ? std::filesystem::path(e->range->file).filename().string() + ":" +
                            std::to_string(e->range->startLine) + ": " + e->message
                      : e->message;
    if (!p.message) p.message = unavailable.empty() ? "the compile failed" : unavailable;
  } else if (!unavailable.empty()) {
    p.message = unavailable;
  }
  if (r.succeeded && changes) p.changes = *changes;
  return p;
}

}  // namespace ks::server
