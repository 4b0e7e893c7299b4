#include "Report.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <sstream>

namespace ks::gpu {

RunFigures runFigures(const LaunchPlan& plan, const RunResult& r) {
  RunFigures f;
  f.time = timeStats(r.timesMs);
  f.bytes = plan.bytes.value_or(static_cast<double>(plan.bufferBytes()));
  double seconds = f.time.median / 1000;
  f.bandwidth = seconds > 0 ? f.bytes / seconds : 0;
  f.flops = plan.flops;
  f.throughput = plan.flops && seconds > 0 ? *plan.flops / seconds : 0;
  return f;
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

}  // namespace ks::gpu
