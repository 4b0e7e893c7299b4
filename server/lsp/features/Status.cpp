// kernelscope/status: the state of a document's compile, sent on every change of state,
// with what a ready compile changed against the one before it.
#include "Features.h"
#include "Trust.h"

namespace ks::server {

lsp::StatusParams statusOf(const std::string& uri, int revision, std::string_view state,
                           const Snapshot* attempt, bool reportDuration, const Snapshot* base) {
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
    for (const Diagnostic& d : r.diagnostics)
      if (d.severity == Severity::Error) {
        p.message = d.message;
        break;
      }
    if (!p.message) p.message = unavailable.empty() ? "the compile failed" : unavailable;
  } else if (!unavailable.empty()) {
    p.message = unavailable;
  }
  if (r.succeeded && base && base->result) p.changes = changesOf(*base, *attempt);
  return p;
}

}  // namespace ks::server
