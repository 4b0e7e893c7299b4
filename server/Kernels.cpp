// kernelscope/kernels: every kernel of a compile with its resources and sizes.
#include "Features.h"

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
    if (k.definition.line) {
      out.range.start = positionOfCharColumn(s.text, k.definition.line, 1, enc);
      out.range.end = endOfLine(s.text, out.range.start.line, enc);
    }
    if (k.resources) {
      const KernelResources& res = *k.resources;
      out.hasResources = true;
      out.registers = static_cast<int>(res.registers);
      out.barriers = static_cast<int>(res.barriers);
      out.stackFrame = static_cast<int>(res.stackFrame);
      out.spillStores = static_cast<int>(res.spillStores);
      out.spillLoads = static_cast<int>(res.spillLoads);
      out.sharedMemory = static_cast<int>(res.sharedMemory);
      out.constantMemory = static_cast<int>(res.constantMemory);
      out.localMemory = static_cast<int>(res.localMemory);
    }
    out.instructions.ptx = static_cast<int>(k.ptxInstructions);
    out.instructions.sass = static_cast<int>(k.sassInstructions);
    if (k.occupancy) {
      const Occupancy& o = k.occupancy->atBlockSize;
      out.occupancy = lsp::OccupancySummary{static_cast<int>(o.blockSize), static_cast<int>(o.warpsPerSm),
                                            static_cast<int>(o.maxWarpsPerSm),
                                            static_cast<int>(o.fraction() * 100.0 + 0.5), o.limitText()};
    }
    r.kernels.push_back(std::move(out));
  }
  return r;
}

}  // namespace ks::server
