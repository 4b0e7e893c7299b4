// Filtered views of an artifact, as Compiler Explorer's output filters give them. Each
// filter decides per line from the line's text, its kind and its function, which the
// parsers already know; the view keeps the mapping to the artifact's lines so that the
// line map (kept in artifact lines) serves the view exactly.
#include "ArtifactView.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "SassText.h"
#include "TextUtil.h"

namespace ks {
namespace {

using text::trim;

bool startsWithWord(std::string_view s, std::string_view word) {
  return s.starts_with(word) &&
         (s.size() == word.size() || s[word.size()] == ' ' || s[word.size()] == '\t');
}

bool isNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '$' || c == '.';
}

/// The names a line mentions (labels, symbols), without LLVM IR's `%` and `@` sigils.
void addNames(std::string_view text, std::set<std::string_view>& out) {
  for (size_t i = 0; i < text.size();) {
    if (!isNameChar(text[i])) {
      ++i;
      continue;
    }
    size_t start = i;
    while (i < text.size() && isNameChar(text[i])) ++i;
    out.insert(text.substr(start, i - start));
  }
}

/// A line that only says where code came from: PTX `.loc`/`.file`, SASS `//## File`, LLVM
/// IR's debug records.
bool isDebugLocation(Stage stage, std::string_view t) {
  switch (stage) {
    case Stage::Ptx:
      return startsWithWord(t, ".loc") || startsWithWord(t, ".file") || t.starts_with("@@DWARF");
    case Stage::Sass:
      return t.starts_with("//## File");
    case Stage::LlvmIr:
      return t.starts_with("#dbg_");
    case Stage::Mir:
      return false;
  }
  return false;
}

bool isComment(Stage stage, std::string_view t) {
  return t.empty() || t.starts_with(stage == Stage::LlvmIr ? ";" : "//");
}

/// PTX's variables (`.shared .align 4 .b8 tile[1024];`) are data the kernel uses, not
/// configuration: the directives filter keeps them.
bool isPtxVariable(std::string_view t) {
  for (std::string_view space : {".global", ".shared", ".const", ".local"})
    if (startsWithWord(t, space)) return true;
  return false;
}

/// `name:` -> `name`, also with LLVM IR's `; preds = …` after it.
std::string_view labelName(std::string_view t) {
  return t.substr(0, std::min(t.find(':'), t.size()));
}

/// The functions that are kept by the library-functions filter: the kernels and what they
/// call, directly or through other kept functions (named in their lines). MIR lists no
/// kernels: there, every function that is not an impl (`<impl …>::clone`, what
/// `#[derive]` writes) is a root.
std::vector<bool> reachableFunctions(const Artifact& a) {
  const size_t n = a.functions.size();
  std::vector<bool> reached(n, false);
  std::vector<size_t> work;
  for (size_t f = 0; f < n; ++f) {
    const ArtifactFunction& fn = a.functions[f];
    bool root = a.stage == Stage::Mir
                    ? !(fn.demangled.starts_with('<') || fn.symbol.starts_with('<'))
                    : fn.isKernel;
    if (root) {
      reached[f] = true;
      work.push_back(f);
    }
  }
  if (work.empty() && a.stage != Stage::Mir) return std::vector<bool>(n, true);  // no kernels
  while (!work.empty()) {
    const ArtifactFunction& fn = a.functions[work.back()];
    work.pop_back();
    std::set<std::string_view> names;
    for (uint32_t l = fn.firstLine; l <= fn.lastLine && l < a.lines().size(); ++l)
      if (a.lines()[l].kind != LineKind::Header || l != fn.firstLine)
        addNames(a.lineText(l), names);
    for (size_t g = 0; g < n; ++g)
      if (!reached[g] &&
          (names.count(a.functions[g].symbol) || names.count(a.functions[g].demangled))) {
        reached[g] = true;
        work.push_back(g);
      }
  }
  return reached;
}

/// SASS's padding after each function's last instruction: NOPs, a BRA to itself and the
/// labels among them.
void hidePadding(const Artifact& a, std::vector<uint8_t>& hiddenBy) {
  for (const ArtifactFunction& fn : a.functions) {
    std::string_view loopTarget;
    for (int64_t l = std::min<int64_t>(fn.lastLine, int64_t(a.lines().size()) - 1);
         l >= int64_t(fn.firstLine); --l) {
      const std::string_view t = trim(a.lineText(l));
      const LineKind kind = a.lines()[l].kind;
      if (kind == LineKind::Label) {
        if (labelName(t) != fn.symbol) hiddenBy[l] |= kFilterPadding;
        continue;
      }
      if (kind != LineKind::Instruction) continue;
      std::string_view op = sassOpcode(t);
      if (op == "NOP") {
        hiddenBy[l] |= kFilterPadding;
      } else if (op == "BRA" && loopTarget.empty() && !sassBranchTarget(t).empty() && l > 0 &&
                 labelName(trim(a.lineText(l - 1))) == sassBranchTarget(t)) {
        loopTarget = sassBranchTarget(t);  // `.L_x_1: BRA `(.L_x_1)`: the branch to itself
        hiddenBy[l] |= kFilterPadding;
      } else {
        break;
      }
    }
  }
}

/// `let mut _6: u32;   // in scope 0 at /abs/k.rs:9:13: 9:58` -> `let mut _6: u32;`: rustc's
/// MIR ends most lines with the source span of its scope, which the line map already gives.
/// Other comments stay.
std::string_view withoutMirScopeTail(std::string_view line) {
  size_t slash = line.rfind("//");
  if (slash == std::string_view::npos) return line;
  std::string_view comment = line.substr(slash);
  // `// in scope 0 at PATH:9:13: 9:58`, `// at PATH:12:28: 12:34` (a scope's opening line).
  const bool scopeSpan =
      (comment.starts_with("// at ") || comment.find(" scope ") != comment.npos) &&
      comment.find(" at ") != comment.npos &&
      std::isdigit(static_cast<unsigned char>(comment.back()));
  if (!scopeSpan) return line;
  std::string_view kept = line.substr(0, slash);
  while (!kept.empty() && (kept.back() == ' ' || kept.back() == '\t')) kept.remove_suffix(1);
  return kept;
}

}  // namespace

const std::vector<ViewFilter>& viewFilters() {
  static const std::vector<ViewFilter> table = {
      {"directives", kFilterDirectives, &lsp::ArtifactFilters::directives},
      {"debugLocations", kFilterDebugLocations, &lsp::ArtifactFilters::debugLocations},
      {"unusedLabels", kFilterUnusedLabels, &lsp::ArtifactFilters::unusedLabels},
      {"comments", kFilterComments, &lsp::ArtifactFilters::comments},
      {"libraryFunctions", kFilterLibraryFunctions, &lsp::ArtifactFilters::libraryFunctions},
      {"padding", kFilterPadding, &lsp::ArtifactFilters::padding},
      {"compactSass", kFilterCompactSass, &lsp::ArtifactFilters::compactSass},
  };
  return table;
}

uint8_t filterBits(const lsp::ArtifactFilters& f) {
  uint8_t bits = 0;
  for (const ViewFilter& v : viewFilters())
    if (f.*v.field) bits |= v.bit;
  return bits;
}

std::vector<uint8_t> lineFilters(const Artifact& a, uint8_t asked) {
  const size_t n = a.lines().size();
  std::vector<uint8_t> hiddenBy(n, 0);
  const Stage stage = a.stage;
  std::set<std::string_view> used;  // names that instructions mention
  std::set<std::string_view> functionNames;
  if (asked & kFilterUnusedLabels) {
    for (size_t l = 0; l < n; ++l)
      if (a.lines()[l].kind == LineKind::Instruction) addNames(a.lineText(l), used);
    for (const ArtifactFunction& fn : a.functions) functionNames.insert(fn.symbol);
  }
  bool inDebugSection = false;  // PTX's `.section .debug_* { … }`
  for (size_t l = 0; l < n; ++l) {
    const std::string_view t = trim(a.lineText(l));
    const LineKind kind = a.lines()[l].kind;
    if (stage == Stage::Ptx && t.starts_with(".section") && t.find(".debug_") != t.npos)
      inDebugSection = true;
    const bool debug = inDebugSection || isDebugLocation(stage, t);
    if (inDebugSection && t == "}") inDebugSection = false;
    if (debug) {  // only the debug locations filter speaks of these
      hiddenBy[l] = kFilterDebugLocations;
      continue;
    }
    if (kind != LineKind::Instruction && isComment(stage, t)) hiddenBy[l] |= kFilterComments;
    if (stage != Stage::Mir && kind == LineKind::Directive &&
        !(stage == Stage::Ptx && isPtxVariable(t)))
      hiddenBy[l] |= kFilterDirectives;
    if ((asked & kFilterUnusedLabels) && stage != Stage::Mir && kind == LineKind::Label &&
        !used.count(labelName(t)) && !functionNames.count(labelName(t)))
      hiddenBy[l] |= kFilterUnusedLabels;
  }
  if (asked & kFilterLibraryFunctions) {
    std::vector<bool> reached = reachableFunctions(a);
    for (size_t g = 0; g < a.functions.size(); ++g)
      if (!reached[g])
        for (uint32_t l = a.functions[g].firstLine; l <= a.functions[g].lastLine && l < n; ++l)
          hiddenBy[l] |= kFilterLibraryFunctions;
  }
  if ((asked & kFilterPadding) && stage == Stage::Sass) hidePadding(a, hiddenBy);
  for (uint8_t& bits : hiddenBy) bits &= asked;
  return hiddenBy;
}

bool ShownLines::shown(Stage stage, uint32_t line) const {
  auto it = lineFilters.find(stage);
  if (it == lineFilters.end() || !it->second || line >= it->second->size()) return true;
  return ((*it->second)[line] & filters) == 0;
}

std::shared_ptr<const std::vector<uint8_t>> LineFiltersCache::of(
    const std::shared_ptr<const Artifact>& artifact) {
  for (auto it = kept_.begin(); it != kept_.end(); ++it)
    if (it->first.lock() == artifact) {
      auto found = it->second;
      kept_.erase(it);
      kept_.emplace_front(artifact, found);
      return found;
    }
  auto bits = std::make_shared<const std::vector<uint8_t>>(lineFilters(*artifact));
  kept_.emplace_front(artifact, bits);
  // The artifacts of the snapshots being read; one that expired is never asked again.
  std::erase_if(kept_, [](const auto& k) { return k.first.expired(); });
  if (kept_.size() > kKept) kept_.resize(kKept);
  return bits;
}

lsp::ArtifactFilters defaultViewFilters() {
  lsp::ArtifactFilters f;
  f.directives = true;
  f.debugLocations = true;
  f.unusedLabels = true;
  f.comments = true;
  f.libraryFunctions = true;
  f.padding = true;
  f.compactSass = true;
  return f;
}

/// `        /*0090*/               @P0 EXIT ;` -> `/*0090*/ @P0 EXIT ;`
std::string compactSassLine(std::string_view line) {
  std::string_view t = trim(line);
  size_t end = t.starts_with("/*") ? t.find("*/") : std::string_view::npos;
  if (end == std::string_view::npos) return std::string(line);
  return std::string(t.substr(0, end + 2)) + " " + std::string(trim(t.substr(end + 2)));
}

ArtifactView::ArtifactView(const Artifact& a, const lsp::ArtifactFilters& filters) {
  const std::vector<uint8_t> hidden = lineFilters(a, filterBits(filters));
  const bool compact = filters.compactSass && a.stage == Stage::Sass;
  const bool mirSpans = filters.debugLocations && a.stage == Stage::Mir;
  viewOf_.assign(hidden.size(), -1);
  nextShown_.assign(hidden.size() + 1, 0);
  for (size_t l = 0; l < hidden.size(); ++l) {
    if (hidden[l]) continue;
    viewOf_[l] = static_cast<int32_t>(shown_.size());
    shown_.push_back(static_cast<uint32_t>(l));
    const LineKind kind = a.lines()[l].kind;
    if (a.stage == Stage::Sass && kind == LineKind::Directive) {
      text_ += a.shownLine(l);  // a place comment is kept as its marker
    } else {
      std::string_view line = a.lineText(l);
      if (mirSpans) line = withoutMirScopeTail(line);
      if (compact && kind == LineKind::Instruction)
        text_ += compactSassLine(line);
      else
        text_ += line;
    }
    text_ += '\n';
  }
  if (!a.text().ends_with('\n') && !text_.empty()) text_.pop_back();
  int32_t next = static_cast<int32_t>(shown_.size());
  for (size_t l = hidden.size(); l-- > 0;) {
    if (viewOf_[l] >= 0) next = viewOf_[l];
    nextShown_[l] = next;
  }
  nextShown_[hidden.size()] = static_cast<int32_t>(shown_.size());
}

int ArtifactView::artifactLine(int line) const {
  return line >= 0 && static_cast<size_t>(line) < shown_.size() ? static_cast<int>(shown_[line])
                                                                : -1;
}

int ArtifactView::viewLine(int line) const {
  return line >= 0 && static_cast<size_t>(line) < viewOf_.size() ? viewOf_[line] : -1;
}

bool ArtifactView::viewRange(int start, int end, int& viewStart, int& viewEnd) const {
  const int n = static_cast<int>(viewOf_.size());
  if (start < 0 || end < start || start >= n) return false;
  viewStart = nextShown_[start];
  viewEnd = nextShown_[std::min(end + 1, n)] - 1;
  return viewStart <= viewEnd;
}

lsp::ArtifactResult filterArtifact(lsp::ArtifactResult r, const ArtifactView& view) {
  r.text = view.text();
  std::vector<lsp::ArtifactSegment> segments;
  for (lsp::ArtifactSegment& s : r.segments)
    if (view.viewRange(s.start, s.end, s.start, s.end)) segments.push_back(std::move(s));
  r.segments = std::move(segments);
  std::vector<lsp::ArtifactKernel> kernels;
  for (lsp::ArtifactKernel& k : r.kernels)
    if (view.viewRange(k.start, k.end, k.start, k.end)) kernels.push_back(std::move(k));
  r.kernels = std::move(kernels);
  return r;
}

namespace {

/// `ranges` of artifact lines as ranges of view lines; the lines they hold, in `count`.
std::vector<lsp::LineRange> viewRanges(const std::vector<lsp::LineRange>& ranges,
                                       const ArtifactView& view, int* count = nullptr) {
  std::vector<lsp::LineRange> out;
  for (const lsp::LineRange& r : ranges)
    for (int l = r.start; l <= r.end; ++l) {
      int v = view.viewLine(l);
      if (v < 0) continue;
      if (count) ++*count;
      if (!out.empty() && out.back().end + 1 == v)
        out.back().end = v;
      else
        out.push_back(lsp::LineRange{v, v});
    }
  return out;
}

}  // namespace

lsp::LineMapResult filterLineMap(lsp::LineMapResult r, const CompileResult& result,
                                 const lsp::ArtifactFilters& filters) {
  for (Stage stage : kAllStages) {
    const StageOutcome* outcome = result.stage(stage);
    const std::string name(stageName(stage));
    if (!outcome || !outcome->available || !r.stages.count(name)) continue;
    const ArtifactView view(*outcome->artifact, filters);
    int count = 0;
    r.stages[name] = viewRanges(r.stages[name], view, &count);
    r.counts[name] = count;
    if (auto it = r.inlined.find(name); it != r.inlined.end()) {
      it->second = viewRanges(it->second, view);
      if (it->second.empty()) r.inlined.erase(it);
    }
  }
  return r;
}

}  // namespace ks
