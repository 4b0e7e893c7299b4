#include "SpecCheck.h"

#include <algorithm>
#include <tuple>

#include "KernelLaunch.h"
#include "LaunchSpec.h"
#include "SpecSkeleton.h"
#include "TextUtil.h"

namespace ks::gpu {

namespace {

/// The edits (insert, delete, replace one character) that turn `a` into `b`.
size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = above;
    }
  }
  return row[b.size()];
}

/// The parameter an unknown key most likely means: the only one the spec gives no value,
/// else the only one of those within two edits of the key. Without `onlyUnassigned` (other
/// items may come from the crate's spec) only a close name.
std::optional<std::string> intendedParameter(const std::string& key, const LaunchSpec& spec,
                                             const KernelSignature& sig, bool onlyUnassigned) {
  std::vector<std::string> unassigned;
  for (const auto& p : sig.params)
    if (!spec.find(p.name)) unassigned.push_back(p.name);
  if (onlyUnassigned && unassigned.size() == 1) return unassigned.front();
  std::optional<std::string> close;
  int found = 0;
  for (const auto& name : unassigned)
    if (editDistance(key, name) <= std::min<size_t>(2, name.size() - 1)) {
      close = name;
      ++found;
    }
  return found == 1 ? close : std::nullopt;
}

/// The fix of `e`, when it is obvious.
std::optional<SpecFix> fixOf(const SpecError& e, const LaunchSpec& spec, const KernelSignature& sig,
                             const std::vector<std::string_view>& lines, bool crateSpec) {
  SpecFix fix;
  fix.edit.line = e.line;
  fix.edit.column = e.column;
  fix.edit.endColumn = e.endColumn;
  switch (e.kind) {
    case SpecErrorKind::ShiftPrecedence:
      if (!e.rewrite || !e.column) return std::nullopt;
      fix.title = "Shift first: " + *e.rewrite;
      fix.edit.text = *e.rewrite;
      return fix;
    case SpecErrorKind::UnknownName: {
      auto name = e.column ? intendedParameter(e.key, spec, sig, !crateSpec) : std::nullopt;
      if (!name) return std::nullopt;
      fix.title = "Rename '" + e.key + "' to '" + *name + "'";
      fix.edit.text = *name;
      return fix;
    }
    case SpecErrorKind::MissingParameter:
    case SpecErrorKind::MissingLaunch: {
      // The skeleton's item (the `Add launch spec` lens's), on a line of its own above the
      // spec's first line, indented like it.
      const auto items = specSkeletonItems(sig);
      auto item =
          std::find_if(items.begin(), items.end(), [&](const auto& i) { return i.first == e.key; });
      if (item == items.end() || e.line == 0 || e.line > lines.size()) return std::nullopt;
      const std::string_view first = lines[e.line - 1];
      const std::string_view indent = first.substr(0, first.find_first_not_of(" \t"));
      fix.title = "Add '" + item->first + " = " + item->second + "' to the launch spec";
      fix.edit.column = fix.edit.endColumn = 1;
      fix.edit.text =
          std::string(indent) + "// kernelscope: " + item->first + " = " + item->second + "\n";
      return fix;
    }
    case SpecErrorKind::Syntax:
    case SpecErrorKind::Expression:
    case SpecErrorKind::Value:
      return std::nullopt;
  }
  return std::nullopt;
}

/// Whether an item's own text shows the problem, whatever other items its crate adds.
bool withinItems(SpecErrorKind kind) {
  return kind == SpecErrorKind::Syntax || kind == SpecErrorKind::UnknownName ||
         kind == SpecErrorKind::ShiftPrecedence;
}

}  // namespace

std::vector<SpecProblem> checkWrittenSpec(const CompileResult& result, const KernelInfo& kernel,
                                          const std::string& path, const std::string& source,
                                          bool crateSpec) {
  std::vector<SpecProblem> out;
  std::vector<SpecError> errors;
  LaunchSpec spec = specFromComments(source, kernel.definition.line, path, errors);
  if (spec.empty() && errors.empty()) return out;
  std::string note;  // a signature from the PTX alone still checks the spec
  std::optional<KernelSignature> sig =
      kernelSignature(result, kernel.symbol, {{path, source}}, note);
  if (!sig) return out;
  if (!spec.empty()) resolveSpec(spec, *sig, errors);
  const std::vector<std::string_view> lines = splitLines(source);
  for (const SpecError& e : errors) {
    if (e.line == 0 || e.origin != path || (crateSpec && !withinItems(e.kind))) continue;
    // A value that another item names fails there too: each problem once per place.
    auto same = [&](const SpecProblem& p) {
      return std::tie(p.error.line, p.error.column, p.error.endColumn, p.error.message) ==
             std::tie(e.line, e.column, e.endColumn, e.message);
    };
    if (std::any_of(out.begin(), out.end(), same)) continue;
    out.push_back({e, fixOf(e, spec, *sig, lines, crateSpec)});
  }
  return out;
}

}  // namespace ks::gpu
