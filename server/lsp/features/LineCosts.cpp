// kernelscope/lineCosts: what each line of a document costs before it runs (Costs.h), its
// kernels' register pressure, and the lines to look at first.
#include "CostSummary.h"
#include "Features.h"

namespace ks::server {

lsp::LineCostsResult lineCostsOf(const Snapshot& s) {
  lsp::LineCostsResult r;
  if (s.result) r = ks::lineCostsOf(*s.result, s.path, 0);
  r.revision = s.revision;
  return r;
}

}  // namespace ks::server
