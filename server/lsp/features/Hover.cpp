// Hover: on a source line, the instructions it became per stage; on a line of a virtual
// document, the source line and inline chain it came from.
#include <set>

#include "Features.h"
#include "InstructionDocs.h"

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

std::string describeFrame(const Frame& f) {
  std::string s = "`";
  s += f.function.empty() ? std::string("?") : f.function;
  s += "` at " + location(f);
  return s;
}

std::string_view trimLeft(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

void appendLines(std::string& md, const Artifact& a, const std::vector<uint32_t>& lines) {
  md += "```" + std::string(stageLanguage(a.stage)) + "\n";
  for (size_t i = 0; i < lines.size() && i < kMaxLinesShown; ++i)
    md += std::string(trimLeft(a.lineText(lines[i]))) + "\n";
  md += "```\n";
  if (lines.size() > kMaxLinesShown)
    md += "… " + std::to_string(lines.size() - kMaxLinesShown) + " more\n";
}

std::string plural(size_t n, std::string_view word) {
  return std::to_string(n) + " " + std::string(word) + (n == 1 ? "" : "s");
}

}  // namespace

std::optional<lsp::Hover> sourceHover(const Snapshot& s, int line, const Settings& settings) {
  if (!s.result || !s.result->lineMap || line < 0) return std::nullopt;
  const LineMap& map = *s.result->lineMap;
  SourceLine src{s.path, static_cast<uint32_t>(line) + 1};
  std::string md;
  for (Stage stage : settings.hoverStages) {
    const StageOutcome* outcome = s.result->stage(stage);
    if (!outcome) continue;
    std::string title = "**" + std::string(stageName(stage)) + "**";
    if (!outcome->available) {
      md += title + ": unavailable (" + outcome->unavailableReason + ")\n\n";
      continue;
    }
    const StageLines& lines = map.linesFor(stage, src);
    if (lines.direct.empty() && lines.inlined.empty()) continue;
    md += title + " · " + plural(lines.direct.size(), "line");
    if (!lines.inlined.empty())
      md += " (+" + std::to_string(lines.inlined.size()) + " inlined through this line)";
    md += "\n";
    if (!lines.direct.empty()) appendLines(md, outcome->artifact, lines.direct);
    // Library code inlined into this line, named once per function.
    std::set<std::string> via;
    for (uint32_t l : lines.direct) {
      const LineOrigin& o = map.origin(stage, l);
      if (o.viaLibrary && !o.chain.empty()) via.insert(describeFrame(o.chain.front()));
    }
    for (const auto& v : via) md += "- inlined from " + v + "\n";
    if (!lines.inlined.empty() && lines.direct.empty())
      appendLines(md, outcome->artifact, lines.inlined);
    // This file's code inlined into kernels elsewhere (a dependency's helper): which kernel,
    // and the call site it was inlined at.
    std::set<std::string> into;
    for (uint32_t l : lines.direct) {
      const LineOrigin& o = map.origin(stage, l);
      auto site = std::find_if(o.outerUserFrames.begin(), o.outerUserFrames.end(),
                               [&](const Frame& f) { return f.file != s.path; });
      if (site == o.outerUserFrames.end()) continue;
      const ArtifactLine& al = outcome->artifact.lines[l];
      std::string function =
          al.function >= 0 ? outcome->artifact.functions[al.function].demangled : "?";
      into.insert("`" + function + "`, inlined at " + location(*site));
    }
    for (const auto& k : into) md += "- in " + k + "\n";
    md += "\n";
  }
  if (md.empty()) return std::nullopt;
  if (s.result->arch.size())
    md += "*" + s.result->arch + " · revision " + std::to_string(s.revision) + "*";
  lsp::Hover h;
  h.contents.value = std::move(md);
  return h;
}

std::optional<lsp::Hover> artifactHover(const Snapshot& s, Stage stage, int line) {
  if (!s.result || !s.result->lineMap || line < 0) return std::nullopt;
  const StageOutcome* outcome = s.result->stage(stage);
  if (!outcome || !outcome->available ||
      static_cast<size_t>(line) >= outcome->artifact.lines.size())
    return std::nullopt;
  const LineOrigin& o = s.result->lineMap->origin(stage, static_cast<uint32_t>(line));
  const std::string_view text = outcome->artifact.lineText(line);
  // What the instruction (or directive) means, from the instruction reference.
  const std::optional<InstructionDoc> doc = describeInstruction(stage, text);
  if (o.attribution == Attribution::None && !doc) return std::nullopt;
  std::string md = "```";
  md += stageLanguage(stage);
  md += "\n";
  md += trimLeft(text);
  md += "\n```\n";
  if (doc) md += "```text\n" + renderPlain(*doc) + "```\n";
  switch (o.attribution) {
    case Attribution::None:
      break;
    case Attribution::CompilerGenerated:
      md += "compiler-generated: no source line\n";
      break;
    case Attribution::Unattributed:
      md += "from library code only\n";
      break;
    case Attribution::Direct:
      md += "from " + location(o.user) + "\n";
      break;
  }
  if (o.chain.size() > 1 || o.viaLibrary) {
    md += "\ninline chain (innermost first):\n";
    for (const Frame& f : o.chain) md += "- " + describeFrame(f) + "\n";
  }
  lsp::Hover h;
  h.contents.value = std::move(md);
  return h;
}

}  // namespace ks::server
