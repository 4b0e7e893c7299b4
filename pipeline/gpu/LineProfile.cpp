#include "LineProfile.h"

#include <algorithm>
#include <cctype>
#include <tuple>

namespace ks::gpu {

namespace {
/// The opcode of a SASS instruction's text ("@!P0 BRA 0x70" -> "BRA").
std::string opcode(std::string_view text) {
  size_t i = 0;
  auto skipSpace = [&] {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  };
  skipSpace();
  if (i < text.size() && text.substr(i, 2) == "/*") {  // nvdisasm's /*0070*/ address
    size_t end = text.find("*/", i);
    i = end == std::string_view::npos ? text.size() : end + 2;
    skipSpace();
  }
  if (i < text.size() && text[i] == '@') {
    while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    skipSpace();
  }
  size_t start = i;
  while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_'))
    ++i;
  return std::string(text.substr(start, i - start));
}
}  // namespace

std::vector<std::pair<std::string, double>> LineCounters::topStalls(size_t n) const {
  std::vector<std::pair<std::string, double>> v(stalls.begin(), stalls.end());
  std::stable_sort(v.begin(), v.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  if (v.size() > n) v.resize(n);
  return v;
}

std::optional<KernelLineProfile> attributeToLines(
    const NcuSourceProfile& profile, const std::string& kernel, const Artifact& sass,
    const std::function<bool(const std::string&)>& isUserFile, std::string& problem) {
  const ArtifactFunction* fn = nullptr;
  for (const auto& f : sass.functions)
    if (f.symbol == kernel) fn = &f;
  if (!fn) {
    problem = "the SASS listing has no kernel '" + kernel + "'";
    return std::nullopt;
  }
  std::vector<uint32_t> instructionLines;
  for (uint32_t l = fn->firstLine; l <= fn->lastLine && l < sass.lines().size(); ++l)
    if (sass.lines()[l].kind == LineKind::Instruction) instructionLines.push_back(l);
  if (instructionLines.size() != profile.instructions.size()) {
    problem = "ncu listed " + std::to_string(profile.instructions.size()) + " instructions of " +
              kernel + ", kernelscope's SASS has " + std::to_string(instructionLines.size()) +
              ": the profiled code is not the cubin shown (was the kernel JIT-compiled from PTX?)";
    return std::nullopt;
  }
  KernelLineProfile out;
  out.kernel = kernel;
  std::map<std::pair<std::string, uint32_t>, LineCounters> byLine;
  for (size_t i = 0; i < instructionLines.size(); ++i) {
    const NcuInstruction& ins = profile.instructions[i];
    uint32_t sassLine = instructionLines[i];
    std::string mine = opcode(sass.lineText(sassLine)), theirs = opcode(ins.source);
    if (mine != theirs) {
      problem = "instruction " + std::to_string(i) + " of " + kernel + " is " + theirs +
                " in ncu's listing, " + mine +
                " in kernelscope's SASS: the profiled code is not the cubin shown";
      return std::nullopt;
    }
    std::pair<std::string, uint32_t> key{"", 0};
    for (const Frame& f : sass.lines()[sassLine].location)
      if (f.line != 0 && isUserFile(f.file)) {
        key = {f.file, f.line};
        break;
      }
    LineCounters& c = byLine[key];
    c.file = key.first;
    c.line = key.second;
    ++c.instructions;
    c.stallSamples += ins.stallSamples;
    c.executed += ins.executed;
    c.threadsExecuted += ins.threadsExecuted;
    c.l2Sectors += ins.l2Sectors;
    c.l2SectorsIdeal += ins.l2SectorsIdeal;
    c.sharedConflictWays = std::max(c.sharedConflictWays, ins.sharedConflicts);
    c.l2SectorsLocal += ins.l2SectorsLocal;
    c.divergentBranches += ins.divergentBranches;
    for (const auto& [reason, v] : ins.stalls) c.stalls[reason] += v;
    out.totalSamples += ins.stallSamples;
    if (ins.stallSamples) out.sassLineSamples[sassLine] += ins.stallSamples;
  }
  for (auto& [key, c] : byLine)
    if (key.second != 0) out.lines.push_back(std::move(c));
  if (auto it = byLine.find({"", 0}); it != byLine.end())
    out.lines.push_back(std::move(it->second));
  return out;
}

}  // namespace ks::gpu
