// Optimizer remarks on the user's lines: inline-aware attribution, de-duplication, filters.
//
// LLVM writes a remark with the debug location of the code it is about, but without that
// location's inline chain: a loop in `core` that was inlined into a kernel is reported at
// core's line. The LLVM IR of the same compile still has every instruction's chain, so
// the instructions at the remark's location say which user lines the code belongs to.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "Artifact.h"
#include "Diagnostics.h"
#include "LineMap.h"

namespace ks {

/// Parses the YAML files that `-Zremark-dir` writes (one document per remark), with LLVM's
/// remarks parser. Without `withBookkeeping`, the remarks of isBookkeepingRemark are left
/// out, their documents skipped before parsing (the cost is that of the others).
std::vector<Remark> parseRemarksYaml(std::string_view yaml, bool withBookkeeping = true);

/// Gives every remark its user line (Remark::userLocation) and folds identical remarks on
/// one line into one (Remark::count). A remark at a user's line belongs to that line. One
/// at library code belongs to the user lines that code was inlined into: the instructions
/// of `llvmIr` at the remark's location (in the remark's function while it still exists)
/// give the inline chains, and the LineMap's rules pick the user frame; code inlined at
/// several lines gives the remark once per line. A remark whose code is gone (deleted,
/// or merged into other code) keeps no user line. The result is sorted by file and line;
/// remarks without a user line come last.
std::vector<Remark> attributeRemarks(std::vector<Remark> remarks, const Artifact& llvmIr,
                                     const LineMap& users);

/// Remarks that describe bookkeeping (instruction counts, frame layout, the asm printer's
/// statistics) rather than decisions a kernel author can act on.
bool isBookkeepingRemark(const Remark&);

/// "passed", "missed", "analysis".
std::string_view remarkKindName(Remark::Kind);

/// A remark's message for one line of text: LLVM's `at callsite` chain (mangled names and
/// line offsets) dropped.
std::string remarkMessage(const Remark&);

/// Which remarks to show: by kind, and by pass.
struct RemarkFilter {
  bool passed = true, missed = true, analysis = true;
  std::vector<std::string> passes;  // when not empty, only remarks of these passes
  /// Kind and pass pairs shown even when their kind is not (the default's useful extras).
  std::vector<std::pair<Remark::Kind, std::string>> alsoShown;

  bool accepts(const Remark&) const;
  /// False for "none": then rustc is not asked for remarks at all.
  bool showsAny() const { return passed || missed || analysis || !alsoShown.empty(); }

  /// "all", "missed", "passed", "analysis", "none", or "default": missed remarks, plus the
  /// passed ones of inlining, hoisting, unrolling and vectorization and the vectorizer's
  /// reasons. nullopt for another name.
  static std::optional<RemarkFilter> named(std::string_view name);
};

}  // namespace ks
