// Where a SASS instruction's values come from and go (pipeline/analysis/ValueFlow.h), for
// kernelscope/valueFlow and for textDocument/definition and textDocument/references on a
// register in a SASS view: locations in the view (its filtered lines when it has filters)
// and in the Rust source.
#include <algorithm>
#include <cstdio>

#include "ArtifactView.h"
#include "Features.h"
#include "SassText.h"
#include "TextUtil.h"
#include "ValueFlow.h"

namespace ks::server {

namespace {

struct FlowContext {
  const Snapshot& s;
  const Artifact& sass;
  const std::string& sassUri;
  const ArtifactView* view;
  const UriOf& uriOf;

  std::optional<int> viewLine(uint32_t line) const {
    if (!view) return static_cast<int>(line);
    const int v = view->viewLine(static_cast<int>(line));
    return v < 0 ? std::nullopt : std::optional(v);
  }

  lsp::ValueFlowSite site(uint32_t line) const {
    lsp::ValueFlowSite out;
    out.line = viewLine(line);
    const std::string_view text = sass.lineText(line);
    if (auto a = sassAddress(text)) {
      char addr[16];
      std::snprintf(addr, sizeof addr, "0x%04x", *a);
      out.address = addr;
    }
    out.opcode = std::string(sassOpcode(text));
    out.text = std::string(text::trim(text));
    const int at = out.line.value_or(0);
    out.sass = lsp::Location{sassUri, lsp::Range{{at, 0}, {at, 0}}};
    const lsp::SourceLocationResult src = sourceLocationOf(s, Stage::Sass, int(line), uriOf);
    out.source = src.location;
    return out;
  }
};

/// The register word at `character` of `text` ("R4" of "R4.reuse", "R2" of "[R2.64]").
std::string registerAt(std::string_view text, int character) {
  if (character < 0 || size_t(character) > text.size()) return {};
  auto word = [](char c) { return std::isalnum(uint8_t(c)) || c == '_'; };
  size_t b = size_t(character), e = size_t(character);
  while (b > 0 && word(text[b - 1])) --b;
  while (e < text.size() && word(text[e])) ++e;
  return std::string(text.substr(b, e - b));
}

/// "R4" of "R4.64".
std::string_view baseName(std::string_view reg) { return reg.substr(0, reg.find('.')); }

/// The text of the view's line `line` (the artifact's line when there is no view).
std::string_view viewText(const Artifact& sass, const ArtifactView* view, int viewLine,
                          int artifactLine) {
  if (!view) return sass.lineText(size_t(artifactLine));
  const std::vector<std::string_view> lines = splitLines(view->text());
  const size_t l = static_cast<size_t>(std::max(viewLine, 0));
  return l < lines.size() ? lines[l] : std::string_view{};
}

const Artifact* sassOf(const Snapshot& s) {
  if (!s.result || !s.result->lineMap) return nullptr;
  const StageOutcome* o = s.result->stage(Stage::Sass);
  return o && o->available ? o->artifact.get() : nullptr;
}

}  // namespace

lsp::ValueFlowResult valueFlowOf(const Snapshot& s, int line, const std::string& sassUri,
                                 const ArtifactView* view, const UriOf& uriOf) {
  lsp::ValueFlowResult r;
  const Artifact* sass = sassOf(s);
  if (!sass || line < 0 || size_t(line) >= sass->lines().size()) return r;
  const ValueFlow flow = valueFlow(*sass, uint32_t(line));
  if (!flow.instruction) return r;
  FlowContext c{s, *sass, sassUri, view, uriOf};
  r.instruction = c.site(uint32_t(line));
  for (const auto& src : flow.sources) {
    lsp::ValueSource v;
    v.reg = src.reg;
    v.fromStart = src.fromEntry;
    for (uint32_t l : src.lines) v.definitions.push_back(c.site(l));
    r.sources.push_back(std::move(v));
  }
  for (const auto& res : flow.results) {
    lsp::ValueResult v;
    v.reg = res.reg;
    for (uint32_t l : res.lines) v.uses.push_back(c.site(l));
    r.results.push_back(std::move(v));
  }
  r.text = describeValueFlow(*sass, *s.result->lineMap, flow);
  return r;
}

std::vector<lsp::Location> registerLocations(const Snapshot& s, int line, int viewLine,
                                             int character, const std::string& sassUri,
                                             const ArtifactView* view, RegisterQuery query) {
  std::vector<lsp::Location> out;
  const Artifact* sass = sassOf(s);
  if (!sass || line < 0 || size_t(line) >= sass->lines().size()) return out;
  const std::string word = registerAt(viewText(*sass, view, viewLine, line), character);
  if (word.empty()) return out;
  const SassFlowGraph graph(*sass, size_t(std::max(0, int(sass->lines()[line].function))));
  const ValueFlow flow = graph.flowOf(uint32_t(line));
  if (!flow.instruction) return out;
  const UriOf noUri = [](const std::string& p) { return p; };
  FlowContext c{s, *sass, sassUri, view, noUri};
  std::vector<uint32_t> lines;
  auto add = [&](uint32_t l) {
    if (std::find(lines.begin(), lines.end(), l) == lines.end()) lines.push_back(l);
  };
  const bool references = query != RegisterQuery::Definition;
  const bool withDeclaration = query == RegisterQuery::ReferencesAndDeclaration;
  // `FADD R7, R0, R7`: Go to Definition on R7 goes where the value it reads was written;
  // the instruction itself is R7's definition only when it does not also read R7.
  const bool readsWord = std::any_of(flow.sources.begin(), flow.sources.end(),
                                     [&](const auto& src) { return baseName(src.reg) == word; });
  for (const auto& res : flow.results) {
    if (baseName(res.reg) != word) continue;
    if ((!references && !readsWord) || withDeclaration) add(uint32_t(line));
    if (references)
      for (uint32_t u : res.lines) add(u);
  }
  for (const auto& src : flow.sources) {
    if (baseName(src.reg) != word) continue;
    for (uint32_t d : src.lines) {
      if (!references || withDeclaration) add(d);
      if (!references) continue;
      // Every reader of the value(s) this instruction reads: the definitions' uses.
      const ValueFlow def = graph.flowOf(d);
      bool named = false;
      for (const auto& res : def.results)
        if (baseName(res.reg) == word) {
          named = true;
          for (uint32_t u : res.lines) add(u);
        }
      if (!named)  // a register pair written as R4.64 and read as R5
        for (const auto& res : def.results)
          for (uint32_t u : res.lines) add(u);
    }
  }
  std::sort(lines.begin(), lines.end());
  for (uint32_t l : lines)
    if (auto v = c.viewLine(l)) out.push_back(lsp::Location{sassUri, lsp::Range{{*v, 0}, {*v, 0}}});
  return out;
}

}  // namespace ks::server
