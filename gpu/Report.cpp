#include "Report.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <sstream>

namespace ks::gpu {

using nlohmann::json;

RunFigures runFigures(const LaunchPlan& plan, const RunResult& r) {
  RunFigures f;
  f.time = timeStats(r.timesMs);
  f.bytesFromSpec = plan.bytes.has_value();
  f.bytes = plan.bytes.value_or(static_cast<double>(plan.bufferBytes()));
  double seconds = f.time.median / 1000;
  f.bandwidth = seconds > 0 ? f.bytes / seconds : 0;
  f.flops = plan.flops;
  f.throughput = plan.flops && seconds > 0 ? *plan.flops / seconds : 0;
  return f;
}

json deviceJson(const DeviceInfo& d) {
  return {{"name", d.name},
          {"arch", "sm_" + std::to_string(d.major) + std::to_string(d.minor)},
          {"multiprocessors", d.smCount},
          {"peakBandwidth", d.peakBandwidth()},
          {"peakFlops", d.peakFlops()},
          {"driverVersion", d.driverVersion}};
}

json launchJson(const LaunchPlan& p) {
  return {
      {"kernel", p.kernel}, {"grid", p.grid}, {"block", p.block}, {"sharedBytes", p.sharedBytes}};
}

json runJson(const std::filesystem::path& file, const LaunchPlan& plan, const RunResult& r) {
  RunFigures f = runFigures(plan, r);
  json buffers = json::array();
  for (const auto& b : r.buffers)
    buffers.push_back({{"name", b.name},
                       {"type", elemTypeName(b.elem)},
                       {"length", b.count},
                       {"output", b.output},
                       {"checksum", b.checksum},
                       {"first", b.first}});
  json j = {{"file", file.string()},
            {"device", deviceJson(r.device)},
            {"launch", launchJson(plan)},
            {"runs", r.timesMs.size()},
            {"timesMs", r.timesMs},
            {"timeMs", {{"min", f.time.min}, {"median", f.time.median}, {"max", f.time.max}}},
            {"bytes", f.bytes},
            {"bandwidth", f.bandwidth},
            {"buffers", buffers},
            {"execMs", r.execMs}};
  if (f.flops) j["flops"] = *f.flops, j["throughput"] = f.throughput;
  return j;
}

std::vector<const LineCounters*> hottestLines(const KernelLineProfile& lp, size_t top) {
  std::vector<const LineCounters*> order;
  for (const auto& l : lp.lines) order.push_back(&l);
  std::stable_sort(order.begin(), order.end(),
                   [](const auto* a, const auto* b) { return a->stallSamples > b->stallSamples; });
  if (top > 0 && order.size() > top) order.resize(top);
  return order;
}

std::string compactCount(double v) {
  const char* suffixes[] = {"", "k", "M", "G", "T"};
  int i = 0;
  while (std::fabs(v) >= 1000 && i < 4) v /= 1000, ++i;
  std::ostringstream out;
  out << std::setprecision(i == 0 ? 4 : 3) << v << suffixes[i];
  return out.str();
}

std::string stallReasonWords(const std::string& reason) {
  // ncu's short names of the warp stall reasons, as its documentation spells them out.
  static const std::map<std::string, std::string, std::less<>> words = {
      {"long_sb", "long scoreboard"},
      {"short_sb", "short scoreboard"},
      {"lg", "LG throttle"},
      {"mio", "MIO throttle"},
      {"imc", "IMC miss"},
      {"math", "math pipe throttle"},
      {"tex", "texture throttle"},
      {"no_inst", "no instruction"},
      {"dispatch", "dispatch stall"},
      {"branch_resolving", "branch resolving"},
      {"not_selected", "not selected"}};
  if (auto it = words.find(reason); it != words.end()) return it->second;
  std::string s = reason;
  std::replace(s.begin(), s.end(), '_', ' ');
  return s;
}

std::string lineHeadline(const KernelLineProfile& lp, const LineCounters& l) {
  std::string s = std::to_string(static_cast<int>(std::lround(100 * lp.share(l)))) + "% stalls";
  auto top = l.topStalls(1);
  if (!top.empty()) s += " · " + stallReasonWords(top[0].first);
  return s;
}

json profileJson(const std::filesystem::path& file, const KernelLineProfile& lp,
                 const DeviceInfo& device, const LaunchPlan& plan, size_t top,
                 const std::function<std::string(const LineCounters&)>& sourceText) {
  json lines = json::array();
  for (const auto* l : hottestLines(lp, top)) {
    json stalls = json::array();  // largest first
    for (const auto& [reason, v] : l->topStalls(l->stalls.size()))
      stalls.push_back({{"reason", reason}, {"samples", v}});
    lines.push_back({{"file", l->file},
                     {"line", l->line},
                     {"text", sourceText(*l)},
                     {"share", lp.share(*l)},
                     {"headline", lineHeadline(lp, *l)},
                     {"stallSamples", l->stallSamples},
                     {"stalls", stalls},
                     {"instructions", l->instructions},
                     {"executed", l->executed},
                     {"threadsActive", l->threadsActive()},
                     {"l2Sectors", l->l2Sectors},
                     {"l2SectorsIdeal", l->l2SectorsIdeal},
                     {"sharedBankConflictWays", l->sharedConflictWays}});
  }
  const auto& m = lp.metrics;
  json kernel = {{"name", lp.kernel}, {"stallSamples", lp.totalSamples}};
  if (m.durationNs) kernel["durationNs"] = *m.durationNs;
  if (m.achievedOccupancyPct) kernel["achievedOccupancyPct"] = *m.achievedOccupancyPct;
  if (m.dramThroughputPct) kernel["dramThroughputPct"] = *m.dramThroughputPct;
  if (m.dramBytes) kernel["dramBytes"] = *m.dramBytes;
  return {{"file", file.string()},
          {"device", deviceJson(device)},
          {"launch", launchJson(plan)},
          {"kernel", kernel},
          {"lines", lines}};
}

}  // namespace ks::gpu
