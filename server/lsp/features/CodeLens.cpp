// Code lens on each kernel: `sm_90 · 32 regs · 0 B spill`, and one lens per available
// stage that opens it (the `kernelscope.openArtifact` client command).
#include "Diff.h"
#include "Features.h"

#include "Uri.h"

namespace ks::server {
namespace {

std::string bytes(uint32_t n) {
  if (n >= 4096 && n % 1024 == 0) return std::to_string(n / 1024) + " KiB";
  return std::to_string(n) + " B";
}

std::string summary(const KernelInfo& k, const std::string& arch) {
  std::string s = arch;
  if (!k.resources) return s + " · resources unavailable";
  const KernelResources& r = *k.resources;
  s += " · " + std::to_string(r.registers) + " regs";
  s += " · " + bytes(r.spillStores + r.spillLoads) + " spill";
  if (r.localMemory) s += " · " + bytes(r.localMemory) + " local";
  if (r.sharedMemory) s += " · " + bytes(r.sharedMemory) + " shared";
  if (k.occupancy)
    s += " · " + k.occupancy->atBlockSize.percent() + " occupancy @" +
         std::to_string(k.occupancy->atBlockSize.blockSize);
  return s;
}

}  // namespace

std::vector<lsp::CodeLens> codeLenses(const Snapshot& s, PositionEncoding enc) {
  std::vector<lsp::CodeLens> lenses;
  if (!s.result) return lenses;
  const std::string& uri = s.uri;  // the client's own spelling
  for (const KernelInfo& k : s.result->kernels) {
    if (k.definition.line == 0 || (!k.definition.file.empty() && k.definition.file != s.path))
      continue;
    lsp::Range range;
    range.start = positionOfCharColumn(s.text, k.definition.line, 1, enc);
    range.end = range.start;
    auto lens = [&](std::string title, std::optional<Stage> stage) {
      lsp::Command c;
      c.title = std::move(title);
      c.command = "kernelscope.openArtifact";
      c.arguments = nlohmann::json::array(
          {{{"uri", uri}, {"stage", stage ? stageName(*stage) : "ptx"}, {"kernel", k.symbol}}});
      lenses.push_back(lsp::CodeLens{range, std::move(c)});
    };
    lens(summary(k, s.result->arch), std::nullopt);
    for (Stage stage : kAllStages)
      if (const auto* o = s.result->stage(stage); o && o->available)
        lens(std::string(stageTitle(stage)), stage);
  }
  return lenses;
}

}  // namespace ks::server
