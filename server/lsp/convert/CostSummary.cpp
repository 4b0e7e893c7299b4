// See CostSummary.h.
#include "CostSummary.h"

#include <algorithm>

namespace ks {

std::vector<KernelCost> kernelCosts(const CompileResult& r) {
  std::vector<KernelCost> out;
  const StageOutcome* sass = r.stage(Stage::Sass);
  if (!r.costs || !sass || !sass->available || !r.lineMap) return out;
  for (const KernelInfo& k : r.kernels) {
    const uint32_t blockSize = k.occupancy ? k.occupancy->atBlockSize.blockSize : 256;
    out.push_back(kernelCost(*sass->artifact, *r.lineMap, *r.costs, k.symbol, k.resources, r.arch,
                             blockSize));
  }
  return out;
}

lsp::LineCostInfo lineCostInfoOf(const LineCost& c, int line) {
  lsp::LineCostInfo i;
  i.line = line;
  i.hint = lineCostHint(c);
  i.text = lineCostText(c);
  i.instructions = static_cast<int>(c.instructions);
  if (c.hasLive) i.live = lsp::LiveRegisters{c.peakGpr, c.peakPred, c.peakUgpr};
  i.ldl = static_cast<int>(c.ldl);
  i.stl = static_cast<int>(c.stl);
  i.spill = static_cast<int>(c.spillOps);
  i.array = static_cast<int>(c.arrayOps);
  if (c.hasControl) i.issueCycles = static_cast<int>(c.issueCycles);
  for (const MemoryOps& m : c.memory)
    i.memory.push_back({m.space, static_cast<int>(m.loads), static_cast<int>(m.stores),
                        static_cast<int>(m.atomics), static_cast<int>(m.widestBits)});
  for (const LineCost::Access& a : c.access)
    i.access.push_back({a.head, a.how, static_cast<int>(a.count)});
  if (c.mayDiverge) i.mayDiverge = c.divergesOnThreadIndex ? "the thread index" : "per-thread data";
  return i;
}

lsp::LineCostsResult lineCostsOf(const CompileResult& r, const std::string& file, int lineBase) {
  lsp::LineCostsResult out;
  out.arch = r.arch;
  const StageOutcome* sass = r.stage(Stage::Sass);
  if (!r.costs || !sass || !sass->available || !r.lineMap) return out;
  const int shift = lineBase - 1;  // source lines are 1-based
  auto linesIn = [&](const std::vector<SourceLine>& v) {
    std::vector<int> lines;
    for (const auto& l : v)
      if (l.file == file) lines.push_back(static_cast<int>(l.line) + shift);
    return lines;
  };
  const auto costs = fileCosts(*sass->artifact, *r.lineMap, *r.costs, file);
  for (const auto& [line, c] : costs)
    out.lines.push_back(lineCostInfoOf(c, static_cast<int>(line) + shift));
  const std::vector<KernelCost> kernels = kernelCosts(r);
  for (const KernelCost& k : kernels) {
    lsp::KernelCostInfo i;
    i.name = k.symbol;
    i.summary = k.summary;
    i.registerNote = k.registerNote;
    i.allocated = static_cast<int>(k.allocated);
    if (k.hasLive) i.peakLive = k.peakGpr;
    i.peakLines = linesIn(k.peakLines);
    i.spillLines = linesIn(k.spillLines);
    i.arrayLines = linesIn(k.arrayLines);
    if (k.stepRegisters) i.stepRegisters = static_cast<int>(*k.stepRegisters);
    if (k.step) i.stepPercent = static_cast<int>(k.step->fraction() * 100.0 + 0.5);
    for (const LocalArray& a : r.costs->arrays) {
      if (a.function != k.symbol) continue;
      lsp::LocalArrayInfo ai;
      ai.name = a.name;
      ai.bytes = static_cast<int>(a.bytes);
      ai.indexedAt = linesIn(a.indexedAt);
      std::sort(ai.indexedAt.begin(), ai.indexedAt.end());
      if (a.usedAt && a.usedAt->file == file) ai.usedAt = static_cast<int>(a.usedAt->line) + shift;
      i.localArrays.push_back(std::move(ai));
    }
    out.kernels.push_back(std::move(i));
  }
  for (const LookHere& l : linesToLookAtFirst(costs, kernels, file))
    out.lookFirst.push_back({static_cast<int>(l.line) + shift, l.why});
  // The static heat: each figure against the file's largest, for editors to colour by when
  // no profile is shown.
  auto heat = [&](auto figure) {
    std::vector<lsp::HeatLine> v;
    double most = 0;
    for (const auto& lc : costs) most = std::max(most, double(figure(lc.second)));
    if (most > 0)
      for (const auto& [line, c] : costs)
        if (const double f = figure(c); f > 0)
          v.push_back({static_cast<int>(line) + shift, f / most});
    return v;
  };
  out.heat.issueCycles = heat([](const LineCost& c) { return c.hasControl ? c.issueCycles : 0u; });
  out.heat.live = heat([](const LineCost& c) { return c.hasLive ? uint32_t(c.peakGpr) : 0u; });
  out.heat.local = heat([](const LineCost& c) { return c.ldl + c.stl; });
  return out;
}

}  // namespace ks
