#include "GpuResults.h"

#include "Report.h"

namespace ks {

lsp::GpuDevice gpuDeviceOf(const gpu::DeviceInfo& d) {
  return {d.name,        "sm_" + std::to_string(d.major) + std::to_string(d.minor),
          d.smCount,     d.peakBandwidth(),
          d.peakFlops(), d.driverVersion};
}

lsp::GpuLaunch gpuLaunchOf(const gpu::LaunchPlan& p) {
  return {p.kernel, p.grid, p.block, p.sharedBytes};
}

lsp::RunResult runResultOf(const std::filesystem::path& file, const gpu::LaunchPlan& plan,
                           const gpu::RunResult& r) {
  const gpu::RunFigures f = gpu::runFigures(plan, r);
  lsp::RunResult out;
  out.file = file.string();
  out.device = gpuDeviceOf(r.device);
  out.launch = gpuLaunchOf(plan);
  out.timesMs = r.timesMs;
  out.minMs = f.time.min, out.medianMs = f.time.median, out.maxMs = f.time.max;
  out.bytes = f.bytes;
  out.bandwidth = f.bandwidth;
  for (const auto& b : r.buffers)
    out.buffers.push_back({b.name,
                           b.typeName.empty() ? std::string(gpu::elemTypeName(b.elem)) : b.typeName,
                           b.count, b.output, b.checksum, b.first});
  out.execMs = r.execMs;
  if (f.flops) out.flops = *f.flops, out.throughput = f.throughput;
  return out;
}

lsp::ProfileResult profileResultOf(const std::filesystem::path& file,
                                   const gpu::KernelLineProfile& lp, const gpu::DeviceInfo& device,
                                   const gpu::LaunchPlan& plan, size_t top) {
  lsp::ProfileResult out;
  out.file = file.string();
  out.device = gpuDeviceOf(device);
  out.launch = gpuLaunchOf(plan);
  const auto& m = lp.metrics;
  out.kernel = {lp.kernel,           lp.totalSamples, m.durationNs, m.achievedOccupancyPct,
                m.dramThroughputPct, m.dramBytes};
  for (const auto* l : gpu::hottestLines(lp, top)) {
    lsp::ProfileLine line;
    line.file = l->file;
    line.line = l->line;
    line.text = l->text;
    line.share = lp.share(*l);
    line.headline = gpu::lineHeadline(lp, *l);
    line.stallSamples = l->stallSamples;
    for (const auto& [reason, v] : l->topStalls(l->stalls.size()))
      line.stalls.push_back({reason, v});
    line.instructions = l->instructions;
    line.executed = l->executed;
    line.threadsActive = l->threadsActive();
    line.l2Sectors = l->l2Sectors;
    line.l2SectorsIdeal = l->l2SectorsIdeal;
    line.sharedBankConflictWays = l->sharedConflictWays;
    out.lines.push_back(std::move(line));
  }
  return out;
}

std::vector<lsp::ProfileLineDelta> profileDeltasOf(const std::vector<gpu::LineDelta>& deltas,
                                                   const std::string& since) {
  auto side = [](const gpu::ProfileSnapshot::Line& l) {
    return lsp::ProfileLineCounters{l.stallSamples, l.share, l.instructions, l.l2Sectors};
  };
  std::vector<lsp::ProfileLineDelta> out;
  for (const auto& d : deltas) {
    lsp::ProfileLineDelta j;
    j.line = d.line;
    j.beforeLine = d.beforeLine;
    if (d.beforeLine) j.before = side(d.before);
    j.after = side(d.after);
    j.stallChange = d.stallChange();
    j.hint = d.hint(since);
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace ks
