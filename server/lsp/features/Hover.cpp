// Hover: on a source line, the instructions it became per stage; on a line of a virtual
// document, the source line and inline chain it came from.
#include <set>

#include "ArtifactView.h"
#include "Costs.h"
#include "Features.h"
#include "InstructionDocs.h"
#include "TextUtil.h"
#include "ValueFlow.h"

namespace ks::server {
namespace {

// Lines shown per stage before the hover says how many more there are.
constexpr size_t kMaxLinesShown = 12;

std::string fileName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

/// `file.rs:12:5` (the column only when known).
std::string location(const Frame& f) {
  std::string s = fileName(f.file);
  s += ':';
  s += std::to_string(f.line);
  if (f.column) {
    s += ':';
    s += std::to_string(f.column);
  }
  return s;
}

/// Hover text in the format the client reads: markdown, or plain text for a client that
/// accepts only plaintext (LSP's hover.contentFormat). The same words either way; only the
/// markup differs.
class HoverText {
 public:
  explicit HoverText(bool markdown) : markdown_(markdown) {}
  /// A name, function or symbol: `code` in markdown, as is in plain text.
  std::string code(std::string_view s) const {
    return markdown_ ? "`" + std::string(s) + "`" : std::string(s);
  }
  std::string bold(std::string_view s) const {
    return markdown_ ? "**" + std::string(s) + "**" : std::string(s);
  }
  std::string italic(std::string_view s) const {
    return markdown_ ? "*" + std::string(s) + "*" : std::string(s);
  }
  void text(std::string_view s) { out_ += s; }
  /// A block of code in `language` (a fenced block in markdown, indented in plain text).
  void block(std::string_view language, const std::vector<std::string_view>& lines) {
    if (markdown_) out_ += "```" + std::string(language) + "\n";
    for (std::string_view l : lines) out_ += (markdown_ ? "" : "    ") + std::string(l) + "\n";
    if (markdown_) out_ += "```\n";
  }
  bool empty() const { return out_.empty(); }
  lsp::Hover hover() && {
    lsp::Hover h;
    h.contents.kind = markdown_ ? "markdown" : "plaintext";
    h.contents.value = std::move(out_);
    return h;
  }

 private:
  bool markdown_;
  std::string out_;
};

std::string describeFrame(const Frame& f, const HoverText& t) {
  return t.code(f.function.empty() ? std::string("?") : f.function.str()) + " at " + location(f);
}

/// A line of `stage` as a hover shows it: SASS as compact as the views show it by default.
std::string hoverLine(Stage stage, std::string_view text) {
  return stage == Stage::Sass ? compactSassLine(text) : std::string(text::trimLeft(text));
}

void appendLines(HoverText& out, const Artifact& a, const std::vector<uint32_t>& lines) {
  std::vector<std::string> kept;
  for (size_t i = 0; i < lines.size() && i < kMaxLinesShown; ++i)
    kept.push_back(hoverLine(a.stage, a.lineText(lines[i])));
  out.block(stageLanguage(a.stage), {kept.begin(), kept.end()});
  if (lines.size() > kMaxLinesShown)
    out.text("… " + std::to_string(lines.size() - kMaxLinesShown) + " more\n");
}

std::string plural(size_t n, std::string_view word) {
  return std::to_string(n) + " " + std::string(word) + (n == 1 ? "" : "s");
}

}  // namespace

std::optional<lsp::Hover> sourceHover(const Snapshot& s, int line, const Settings& settings,
                                      const ShownLines& shown, bool markdown) {
  if (!s.result || !s.result->lineMap || line < 0) return std::nullopt;
  const LineMap& map = *s.result->lineMap;
  SourceLine src{s.path, static_cast<uint32_t>(line) + 1};
  HoverText md(markdown);
  const LineCount count = countLine(*s.result, settings.hoverStages, src, shown);
  for (Stage stage : settings.hoverStages) {
    const StageOutcome* outcome = s.result->stage(stage);
    if (!outcome) continue;
    std::string title = md.bold(stageName(stage));
    if (!outcome->available) {
      md.text(title + ": unavailable (" + outcome->unavailableReason + ")\n\n");
      continue;
    }
    const LineCount::PerStage* counted = count.find(stage);
    if (!counted) continue;
    const StageLines& lines = map.linesFor(stage, src);
    md.text(title + " · " + plural(counted->lines.size(), "line") + std::string(count.mark()));
    if (!counted->inlined.empty())
      md.text(" (+" + std::to_string(counted->inlined.size()) + " inlined through this line)");
    md.text("\n");
    // A stage without lines of its own on a line that has some in another: what came
    // through its calls.
    appendLines(md, *outcome->artifact, counted->lines.empty() ? counted->inlined : counted->lines);
    // Library code inlined into this line, named once per function.
    std::set<std::string> via;
    for (uint32_t l : lines.direct) {
      const LineOrigin& o = map.origin(stage, l);
      if (o.viaLibrary && !o.chain.empty()) via.insert(describeFrame(o.chain.front(), md));
    }
    for (const auto& v : via) md.text("- inlined from " + v + "\n");
    // This file's code inlined into kernels elsewhere (a dependency's helper): which kernel,
    // and the call site it was inlined at.
    std::set<std::string> into;
    for (uint32_t l : lines.direct) {
      const LineOrigin& o = map.origin(stage, l);
      auto site = std::find_if(o.outerUserFrames.begin(), o.outerUserFrames.end(),
                               [&](const Frame& f) { return f.file != s.path; });
      if (site == o.outerUserFrames.end()) continue;
      const ArtifactLine& al = outcome->artifact->lines()[l];
      std::string function =
          al.function >= 0 ? outcome->artifact->functions[al.function].demangled : "?";
      into.insert(md.code(function) + ", inlined at " + location(*site));
    }
    for (const auto& k : into) md.text("- in " + k + "\n");
    if (stage == Stage::Sass && s.result->costs) {
      const LineCost c = lineCost(*outcome->artifact, map, *s.result->costs, src);
      if (c.any()) md.text(md.bold("cost") + ": " + lineCostText(c) + "\n");
    }
    md.text("\n");
  }
  if (md.empty()) return std::nullopt;
  if (s.result->arch.size()) md.text(md.italic(s.result->arch));
  return std::move(md).hover();
}

std::optional<lsp::Hover> artifactHover(const Snapshot& s, Stage stage, int line, bool markdown) {
  if (!s.result || !s.result->lineMap || line < 0) return std::nullopt;
  const StageOutcome* outcome = s.result->stage(stage);
  if (!outcome || !outcome->available ||
      static_cast<size_t>(line) >= outcome->artifact->lines().size())
    return std::nullopt;
  const LineOrigin& o = s.result->lineMap->origin(stage, static_cast<uint32_t>(line));
  const std::string_view text = outcome->artifact->lineText(line);
  // What the instruction (or directive) means, from the instruction reference.
  const std::optional<InstructionDoc> doc = describeInstruction(stage, text);
  if (o.attribution == Attribution::None && !doc) return std::nullopt;
  HoverText md(markdown);
  const std::string shown = hoverLine(stage, text);
  md.block(stageLanguage(stage), {shown});
  if (doc) {
    const std::string plain = renderPlain(*doc);
    md.block("text", splitLines(plain));
  }
  switch (o.attribution) {
    case Attribution::None:
      break;
    case Attribution::CompilerGenerated:
      md.text("compiler-generated: no source line\n");
      break;
    case Attribution::Unattributed:
      md.text("from library code only\n");
      break;
    case Attribution::Direct:
      md.text("from " + location(o.user) + "\n");
      break;
  }
  if (stage == Stage::Sass && s.result->costs &&
      static_cast<size_t>(line) < s.result->costs->lines.size()) {
    const InstructionCost& c = s.result->costs->lines[line];
    if (c.hasLive)
      md.text("live across it: " + std::to_string(c.gpr) + " registers, " + std::to_string(c.pred) +
              " predicates, " + std::to_string(c.ugpr) + " uniform\n");
    if (c.local != LocalUse::None)
      md.text(c.local == LocalUse::Spill ? "local memory: a spill ptxas added\n"
                                         : "local memory: a per-thread array LLVM kept there\n");
    const std::string control =
        describeControl(*outcome->artifact, *s.result->lineMap, *s.result->costs, line);
    if (!control.empty()) md.text("control: " + control + "\n");
  }
  if (stage == Stage::Sass) {
    const std::string flow =
        describeValueFlow(*outcome->artifact, *s.result->lineMap,
                          valueFlow(*outcome->artifact, static_cast<uint32_t>(line)));
    if (!flow.empty()) md.text("values: " + flow + "\n");
  }
  if (o.chain.size() > 1 || o.viaLibrary) {
    md.text("\ninline chain (innermost first):\n");
    for (const Frame& f : o.chain) md.text("- " + describeFrame(f, md) + "\n");
  }
  return std::move(md).hover();
}

}  // namespace ks::server
