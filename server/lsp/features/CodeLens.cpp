// Code lens on each kernel: `sm_90 · 32 regs · 0 B spill · peak 30 live at line 41`, and one
// lens per available stage that opens it (the `kernelscope.openArtifact` client command). In a file
// without kernels of its own (a path dependency's), a lens per function and kernel that uses it:
// `in smooth: 9 PTX · 14 SASS`, the code the PTX view lists under that kernel.
#include "CostSummary.h"
#include "Diff.h"
#include "Features.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "Uri.h"

namespace ks::server {
namespace {

std::string bytes(uint32_t n) {
  if (n >= 4096 && n % 1024 == 0) return std::to_string(n / 1024) + " KiB";
  return std::to_string(n) + " B";
}

/// The kernel's figures. While ptxas is still running (`resourcesComing`), the figures of
/// the same kernel in `earlier` (the newest compile that had them), marked as updating, so
/// the lens neither reads as a failure on every save nor changes its width twice. `cost`:
/// where the registers go, when the SASS's costs are there.
std::string summary(const KernelInfo& k, const std::string& arch, bool resourcesComing,
                    const CompileResult* earlier, const KernelCost* cost) {
  std::string s = arch;
  const KernelInfo* shown = &k;
  if (!k.resources && resourcesComing && earlier)
    for (const KernelInfo& before : earlier->kernels)
      if (before.symbol == k.symbol && before.resources && earlier->arch == arch) shown = &before;
  if (!shown->resources)
    return s + (resourcesComing ? " · resources coming" : " · resources unavailable");
  const std::string updating = shown != &k ? " · updating" : "";
  const KernelResources& r = *shown->resources;
  s += " · " + std::to_string(r.registers) + " regs";
  s += " · " + bytes(r.spillStores + r.spillLoads) + " spill";
  if (r.localMemory) s += " · " + bytes(r.localMemory) + " local";
  if (r.sharedMemory) s += " · " + bytes(r.sharedMemory) + " shared";
  if (shown->occupancy)
    s += " · " + shown->occupancy->atBlockSize.percent() + " occupancy @" +
         std::to_string(shown->occupancy->atBlockSize.blockSize);
  if (cost && cost->hasLive && updating.empty()) {  // where the registers go
    s += " · peak " + std::to_string(cost->peakGpr) + " live";
    if (!cost->peakLines.empty()) s += " at line " + std::to_string(cost->peakLines[0].line);
    if (cost->step)
      s += " · ≤ " + std::to_string(*cost->stepRegisters) + " regs → " + cost->step->percent();
  }
  return s + updating;
}

lsp::CodeLens openLens(const std::string& uri, lsp::Range range, std::string title,
                       std::optional<Stage> stage, const std::string& symbol) {
  lsp::Command c;
  c.title = std::move(title);
  c.command = "kernelscope.openArtifact";
  c.arguments = nlohmann::json::array(
      {{{"uri", uri}, {"stage", stage ? stageName(*stage) : "ptx"}, {"kernel", symbol}}});
  return lsp::CodeLens{range, std::move(c)};
}

/// The 1-based line of `text` that defines the function `name` (its last path segment), at
/// or above `below`; `below` when no such line is found (a macro-made function).
uint32_t definitionLine(const std::string& text, const std::string& name, uint32_t below) {
  const size_t colons = name.rfind("::");
  const std::string fn = "fn " + name.substr(colons == std::string::npos ? 0 : colons + 2);
  auto isIdentifier = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  };
  auto lines = splitLines(text);
  for (uint32_t l = std::min<uint32_t>(below, lines.size()); l >= 1; --l) {
    std::string_view t = lines[l - 1];
    auto at = t.find(fn);
    if (at != std::string_view::npos &&
        (at + fn.size() == t.size() || !isIdentifier(t[at + fn.size()])))
      return l;
  }
  return below;
}

/// The lenses of a file whose code lives only inlined into other files' kernels: for each
/// of its functions, one per kernel (PTX function) that holds its code, with the counts.
std::vector<lsp::CodeLens> usedByLenses(const Snapshot& s, PositionEncoding enc) {
  struct Use {
    uint32_t firstLine = UINT32_MAX;
    std::map<std::pair<std::string, std::string>, std::map<Stage, size_t>> kernels;
  };
  std::map<std::string, Use> byFunction;  // function -> kernels (symbol, name) -> counts
  const LineMap& map = *s.result->lineMap;
  for (Stage stage : {Stage::Ptx, Stage::Sass}) {
    const StageOutcome* o = s.result->stage(stage);
    if (!o || !o->available) continue;
    const Artifact& a = *o->artifact;
    for (const SourceLine& src : map.sourceLinesWithCode(stage)) {
      if (src.file != s.path) continue;
      for (uint32_t l : map.linesFor(stage, src).direct) {
        if (l >= a.lines().size() || a.lines()[l].function < 0 ||
            static_cast<size_t>(a.lines()[l].function) >= a.functions.size())
          continue;
        const ArtifactFunction& f = a.functions[a.lines()[l].function];
        Use& use = byFunction[map.origin(stage, l).user.function];
        use.firstLine = std::min(use.firstLine, src.line);
        ++use.kernels[{f.symbol, f.demangled}][stage];
      }
    }
  }
  std::vector<lsp::CodeLens> lenses;
  const std::string uri = lsp::pathToFileUri(s.path);
  for (const auto& [function, use] : byFunction) {
    lsp::Range range;
    range.start =
        positionOfCharColumn(s.text, definitionLine(s.text, function, use.firstLine), 1, enc);
    range.end = range.start;
    for (const auto& [kernel, counts] : use.kernels) {
      std::string title = "in " + kernel.second + ":";
      for (const auto& [stage, n] : counts)
        title += std::string(stage == Stage::Ptx ? " " : " · ") + std::to_string(n) + " " +
                 std::string(stageTitle(stage));
      lenses.push_back(openLens(uri, range, std::move(title), Stage::Ptx, kernel.first));
    }
  }
  return lenses;
}

}  // namespace

std::vector<lsp::CodeLens> codeLenses(const Snapshot& s, const Snapshot* earlier,
                                      PositionEncoding enc) {
  std::vector<lsp::CodeLens> lenses;
  if (!s.result) return lenses;
  const auto& pending = s.result->pending;
  const bool resourcesComing =
      std::find(pending.begin(), pending.end(), "resources") != pending.end();
  const CompileResult* before = earlier && earlier != &s ? earlier->result.get() : nullptr;
  const std::string& uri = s.uri;  // the client's own spelling
  const std::vector<KernelCost> costs = kernelCosts(*s.result);
  for (size_t i = 0; i < s.result->kernels.size(); ++i) {
    const KernelInfo& k = s.result->kernels[i];
    if (k.definition.line == 0 || (!k.definition.file.empty() && k.definition.file != s.path))
      continue;
    lsp::Range range;
    range.start = positionOfCharColumn(s.text, k.definition.line, 1, enc);
    range.end = range.start;
    auto lens = [&](std::string title, std::optional<Stage> stage) {
      lenses.push_back(openLens(uri, range, std::move(title), stage, k.symbol));
    };
    lens(
        summary(k, s.result->arch, resourcesComing, before, i < costs.size() ? &costs[i] : nullptr),
        std::nullopt);
    for (Stage stage : kAllStages)
      if (const auto* o = s.result->stage(stage); o && o->available)
        lens(std::string(stageTitle(stage)), stage);
  }
  if (lenses.empty() && s.result->lineMap) return usedByLenses(s, enc);
  return lenses;
}

}  // namespace ks::server
