// Budgets and baselines: a kernel's cost figures (registers, spills, memory, instructions,
// occupancy) checked against the limits its crate sets and against the figures of a
// committed baseline, so that a change that makes a kernel cost more fails a check (CI) with
// the kernel, the figure, before and after, and the source lines responsible where known.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "Compile.h"
#include "Crate.h"

namespace ks {

/// The figures of one kernel that budgets and baselines speak of.
struct KernelFigures {
  uint32_t registers = 0;
  uint32_t spillBytes = 0;  // spill stores + spill loads
  uint32_t localMemory = 0;
  uint32_t stack = 0;
  uint32_t sharedMemory = 0;
  uint32_t instructions = 0;        // SASS instructions of the kernel's own code
  std::optional<double> occupancy;  // percent at `blockSize`; unset for an unknown arch
  uint32_t blockSize = 256;
  bool operator==(const KernelFigures&) const = default;
};

/// One figure: its name in budgets, baselines and findings ("registers", "spill-bytes", ...).
struct FigureSpec {
  std::string_view name;
  std::string_view words;  // "registers", "spill bytes", ...
  /// Whether a larger value is worse (all but occupancy).
  bool largerIsWorse = true;
};
/// Every figure, in the order findings and tables list them.
const std::vector<FigureSpec>& kernelFigureSpecs();
/// The value of figure `name` in `f`; nullopt when it has none (occupancy of an unknown arch).
std::optional<double> figureValue(const KernelFigures& f, std::string_view name);
/// Sets figure `name` of `f`; false for an unknown name.
bool setFigureValue(KernelFigures& f, std::string_view name, double value);

/// The figures of every kernel of `result` with resources, occupancy at `blockSize`.
std::map<std::string, KernelFigures> kernelFigures(const CompileResult& result, uint32_t blockSize);

/// One way a kernel costs more than it may.
struct BudgetFinding {
  enum class Kind : uint8_t { OverBudget, Regression };
  Kind kind = Kind::OverBudget;
  std::string kernel;  // the demangled name (the symbol when there is none)
  std::string figure;  // FigureSpec::name
  double limit = 0;    // the budget, or the baseline's value
  double actual = 0;
  Frame location;  // the kernel's definition, or the first responsible line
  /// Source lines responsible where kernelscope knows them (the lines whose SASS spills or
  /// uses local memory), in order.
  std::vector<Frame> lines;
  std::string message;  // one sentence: "kernel saxpy: 40 registers, over its budget of 32"
};

/// The findings of `result` against `budgets` (a kernel's own budget, else the default of
/// `""`), `baseline` (nullptr: none) and the kernels the baseline has that are gone.
/// Instruction counts regress only beyond `instructionSlack` (a share: 0.05 is 5%), as a
/// rebuild moves them by a few.
std::vector<BudgetFinding> checkKernels(const CompileResult& result,
                                        const std::map<std::string, KernelBudget>& budgets,
                                        const std::map<std::string, KernelFigures>* baseline,
                                        uint32_t blockSize, double instructionSlack = 0.05);

}  // namespace ks
