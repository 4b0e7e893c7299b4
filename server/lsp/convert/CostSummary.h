// What each line costs (pipeline/analysis/Costs.h) in the protocol's shape: the one
// conversion that `kernelscope/lineCosts`, the editor's hints and `kernelscope explain`
// share, so that every surface names the same figures.
#pragma once

#include <string>
#include <vector>

#include "Compile.h"
#include "Costs.h"
#include "Extensions.h"

namespace ks {

/// The cost of each kernel of `r` (empty without SASS costs).
std::vector<KernelCost> kernelCosts(const CompileResult& r);

/// Everything `kernelscope/lineCosts` answers for `file`, lines counted from `lineBase`
/// (0 for the wire, 1 for `explain --json`).
lsp::LineCostsResult lineCostsOf(const CompileResult& r, const std::string& file, int lineBase);

/// One line's cost as the wire spells it.
lsp::LineCostInfo lineCostInfoOf(const LineCost&, int line);

}  // namespace ks
