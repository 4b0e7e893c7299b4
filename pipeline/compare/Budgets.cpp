// Budgets and baselines. See Budgets.h.
#include "Budgets.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "Occupancy.h"

namespace ks {

const std::vector<FigureSpec>& kernelFigureSpecs() {
  static const std::vector<FigureSpec> specs = {{"registers", "registers", true},
                                                {"spill-bytes", "spill bytes", true},
                                                {"local-memory", "bytes of local memory", true},
                                                {"stack", "bytes of stack", true},
                                                {"shared-memory", "bytes of shared memory", true},
                                                {"instructions", "SASS instructions", true},
                                                {"occupancy", "% occupancy", false}};
  return specs;
}

std::optional<double> figureValue(const KernelFigures& f, std::string_view name) {
  if (name == "registers") return f.registers;
  if (name == "spill-bytes") return f.spillBytes;
  if (name == "local-memory") return f.localMemory;
  if (name == "stack") return f.stack;
  if (name == "shared-memory") return f.sharedMemory;
  if (name == "instructions") return f.instructions;
  if (name == "occupancy") return f.occupancy;
  return std::nullopt;
}

bool setFigureValue(KernelFigures& f, std::string_view name, double value) {
  auto count = static_cast<uint32_t>(std::max(0.0, value));
  if (name == "registers")
    f.registers = count;
  else if (name == "spill-bytes")
    f.spillBytes = count;
  else if (name == "local-memory")
    f.localMemory = count;
  else if (name == "stack")
    f.stack = count;
  else if (name == "shared-memory")
    f.sharedMemory = count;
  else if (name == "instructions")
    f.instructions = count;
  else if (name == "occupancy")
    f.occupancy = value;
  else
    return false;
  return true;
}

namespace {

std::string kernelName(const KernelInfo& k) { return k.demangled.empty() ? k.symbol : k.demangled; }

std::string number(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

/// The source lines whose SASS in `symbol` touches local memory (spills and per-thread
/// arrays), in order: what a spill or local-memory finding points at.
std::vector<Frame> localMemoryLines(const CompileResult& r, const std::string& symbol) {
  const StageOutcome* sass = r.stage(Stage::Sass);
  if (!sass || !sass->available || !r.lineMap) return {};
  const Artifact& a = *sass->artifact;
  std::set<std::pair<std::string, uint32_t>> seen;
  std::vector<Frame> lines;
  for (uint32_t l = 0; l < a.lines().size(); ++l) {
    const ArtifactLine& line = a.lines()[l];
    if (line.kind != LineKind::Instruction || line.function < 0 ||
        static_cast<size_t>(line.function) >= a.functions.size() ||
        a.functions[line.function].symbol != symbol)
      continue;
    const std::string_view text = a.lineText(l);
    if (text.find("LDL") == text.npos && text.find("STL") == text.npos) continue;
    const LineOrigin& origin = r.lineMap->origin(Stage::Sass, l);
    if (origin.attribution == Attribution::None || origin.user.line == 0) continue;
    if (seen.insert({origin.user.file, origin.user.line}).second) lines.push_back(origin.user);
  }
  std::sort(lines.begin(), lines.end(), [](const Frame& a, const Frame& b) {
    return std::tie(a.file, a.line) < std::tie(b.file, b.line);
  });
  return lines;
}

const FigureSpec& specOf(std::string_view name) {
  for (const FigureSpec& s : kernelFigureSpecs())
    if (s.name == name) return s;
  return kernelFigureSpecs().front();
}

}  // namespace

std::map<std::string, KernelFigures> kernelFigures(const CompileResult& result,
                                                   uint32_t blockSize) {
  std::map<std::string, KernelFigures> out;
  for (const KernelInfo& k : result.kernels) {
    if (!k.resources) continue;
    const KernelResources& r = *k.resources;
    KernelFigures f;
    f.registers = r.registers;
    f.spillBytes = r.spillStores + r.spillLoads;
    f.localMemory = r.localMemory;
    f.stack = r.stackFrame;
    f.sharedMemory = r.sharedMemory;
    f.instructions = static_cast<uint32_t>(k.sassInstructions);
    f.blockSize = blockSize;
    if (auto occ = kernelOccupancy(result.arch, r, blockSize))
      f.occupancy = std::round(occ->atBlockSize.fraction() * 1000) / 10;
    out[kernelName(k)] = f;
  }
  return out;
}

std::vector<BudgetFinding> checkKernels(const CompileResult& result,
                                        const std::map<std::string, KernelBudget>& budgets,
                                        const std::map<std::string, KernelFigures>* baseline,
                                        uint32_t blockSize, double instructionSlack) {
  std::vector<BudgetFinding> findings;
  const KernelBudget* fallback = budgets.count("") ? &budgets.at("") : nullptr;
  std::set<std::string> present;
  for (const KernelInfo& k : result.kernels) {
    if (!k.resources) continue;
    const std::string name = kernelName(k);
    present.insert(name);
    auto finding = [&](BudgetFinding::Kind kind, const FigureSpec& spec, double limit,
                       double actual) {
      BudgetFinding f;
      f.kind = kind;
      f.kernel = name;
      f.figure = std::string(spec.name);
      f.limit = limit;
      f.actual = actual;
      f.location = k.definition;
      if (spec.name == "spill-bytes" || spec.name == "local-memory" || spec.name == "stack")
        f.lines = localMemoryLines(result, k.symbol);
      // The first responsible line in the kernel's body: its `fn` line holds the frame's
      // set-up, which says less than the line that indexes the array.
      for (const Frame& line : f.lines)
        if (line.line != k.definition.line || line.file != k.definition.file) {
          f.location = line;
          break;
        }
      const std::string unit =
          spec.name == "occupancy" ? "% occupancy" : " " + std::string(spec.words);
      const std::string at =
          spec.name == "occupancy" ? " at " + std::to_string(blockSize) + " threads" : "";
      f.message = "kernel " + name + ": " + number(actual) + unit + at +
                  (kind == BudgetFinding::Kind::OverBudget
                       ? (spec.largerIsWorse ? ", over its budget of " : ", under its budget of ") +
                             number(limit)
                       : ", was " + number(limit) + " in the baseline");
      if (!f.lines.empty()) {
        f.message += " (local memory at line";
        f.message += f.lines.size() > 1 ? "s " : " ";
        for (size_t i = 0; i < f.lines.size(); ++i)
          f.message += (i ? ", " : "") + std::to_string(f.lines[i].line);
        f.message += ")";
      }
      findings.push_back(std::move(f));
    };
    // The kernel's own budget, each figure it leaves unset taken from the default one.
    KernelBudget budget = fallback ? *fallback : KernelBudget{};
    if (auto own = budgets.find(name); own != budgets.end() && !name.empty())
      for (const auto& [figure, limit] : own->second.limits) budget.limits[figure] = limit;
    const uint32_t budgetBlock = budget.blockSize.value_or(blockSize);
    const KernelFigures figures = kernelFigures(result, budgetBlock)[name];
    for (const auto& [figure, limit] : budget.limits) {
      const FigureSpec& spec = specOf(figure);
      auto value = figureValue(figures, figure);
      if (!value) continue;
      if (spec.largerIsWorse ? *value > limit : *value < limit)
        finding(BudgetFinding::Kind::OverBudget, spec, limit, *value);
    }
    if (!baseline) continue;
    auto before = baseline->find(name);
    if (before == baseline->end()) continue;  // a new kernel: only its budget applies
    const KernelFigures now = kernelFigures(result, before->second.blockSize)[name];
    for (const FigureSpec& spec : kernelFigureSpecs()) {
      auto was = figureValue(before->second, spec.name);
      auto is = figureValue(now, spec.name);
      if (!was || !is) continue;
      const double slack = spec.name == "instructions" ? *was * instructionSlack : 0;
      if (spec.largerIsWorse ? *is > *was + slack : *is < *was)
        finding(BudgetFinding::Kind::Regression, spec, *was, *is);
    }
  }
  return findings;
}

}  // namespace ks
