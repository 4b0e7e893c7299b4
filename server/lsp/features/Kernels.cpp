// kernelscope/kernels: every kernel of a compile with its resources and sizes.
#include "Features.h"
#include "KernelSummary.h"

namespace ks::server {

lsp::KernelsResult kernelsOf(const Snapshot& s, PositionEncoding enc) {
  lsp::KernelsResult r;
  r.revision = s.revision;
  if (!s.result) return r;
  r.arch = s.result->arch;
  for (const KernelInfo& k : s.result->kernels) {
    lsp::KernelSummary out;
    out.name = k.symbol;
    out.demangled = k.demangled;
    // A kernel defined in another file of the crate (the document is one of its modules)
    // has no position in this document.
    if (k.definition.line && (k.definition.file.empty() || k.definition.file == s.path)) {
      out.range.start = positionOfCharColumn(s.text, k.definition.line, 1, enc);
      out.range.end = endOfLine(s.text, out.range.start.line, enc);
    }
    if (k.resources) out.resources = resourceUsageOf(*k.resources);
    out.instructions.ptx = static_cast<int>(k.ptxInstructions);
    out.instructions.sass = static_cast<int>(k.sassInstructions);
    if (k.occupancy) out.occupancy = occupancySummaryOf(k.occupancy->atBlockSize);
    r.kernels.push_back(std::move(out));
  }
  return r;
}

}  // namespace ks::server
