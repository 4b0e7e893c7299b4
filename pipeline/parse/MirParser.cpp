// MIR parser: rustc `--emit=mir` with `-Zmir-include-spans=on`.
//
// Each statement ends with `// scope N at FILE:L:C: L:C`. Scopes nest; an inlined scope
// is declared as `scope N (inlined PATH) { // at FILE:L:C: L:C`, where the span is the
// call site. A statement's inline chain is its own span, then the call site of every
// inlined scope on the way out to the function's root scope.
#include <algorithm>
#include <map>

#include "Parsers.h"
#include "TextUtil.h"

namespace ks {

namespace {

struct Scope {
  int parent = -1;
  bool inlined = false;
  std::string callee;  // the inlined function
  Frame callSite;
};

/// Parses "FILE:L:C: L:C" (the end position is ignored).
std::optional<Frame> parseSpan(std::string_view s) {
  s = text::trim(s);
  // The end position follows the last ": "; the start is "FILE:L:C" before it.
  size_t sep = s.rfind(": ");
  if (sep == std::string_view::npos) return std::nullopt;
  std::string_view start = s.substr(0, sep);
  size_t c2 = start.rfind(':');
  if (c2 == std::string_view::npos) return std::nullopt;
  size_t c1 = start.rfind(':', c2 - 1);
  if (c1 == std::string_view::npos || c1 == 0) return std::nullopt;
  auto line = text::parseUint(start.substr(c1 + 1, c2 - c1 - 1));
  auto col = text::parseUint(start.substr(c2 + 1));
  if (!line || !col) return std::nullopt;
  Frame f;
  f.file = normalizePath(start.substr(0, c1));
  f.line = *line;
  f.column = *col;
  return f;
}

/// "fn name(args) -> T {" -> "name"; "const NAME: T = {" -> "NAME"; else the line.
std::string functionNameOf(std::string_view header) {
  std::string_view h = header;
  for (std::string_view kw : {"fn ", "const ", "static mut ", "static "}) {
    if (text::consume(h, kw)) break;
  }
  size_t end = h.find_first_of("(:");
  // Generic closures and impls contain '<'; keep everything up to the argument list.
  if (h.starts_with("promoted[")) return std::string(h.substr(0, h.find(':')));
  return std::string(text::trim(h.substr(0, end)));
}

}  // namespace

Artifact parseMir(std::string input) {
  Artifact a;
  a.stage = Stage::Mir;
  a.text = std::move(input);
  a.indexLines();

  ChainInterner chains;
  std::map<uint32_t, Scope> scopes;  // per function
  std::vector<int> openScopes;       // scope declarations whose bodies we are in
  std::vector<char> braces;          // 's' scope, 'b' block, 'o' other
  int32_t fn = -1;
  std::string fnName;

  auto functionOfScope = [&](int s) -> std::string {
    for (; s >= 0; s = scopes.count(s) ? scopes[s].parent : -1)
      if (scopes.count(s) && scopes[s].inlined) return scopes[s].callee;
    return fnName;
  };

  for (size_t i = 0; i < a.lines.size(); ++i) {
    std::string_view raw = a.lineText(i);
    std::string_view t = text::trim(raw);
    ArtifactLine& line = a.lines[i];
    line.function = fn;

    // Split off the trailing `// ...` comment (MIR code itself has no "//").
    std::string_view code = t, comment;
    if (size_t c = t.find("//"); c != std::string_view::npos) {
      code = text::trim(t.substr(0, c));
      comment = text::trim(t.substr(c + 2));
    }

    if (fn < 0) {
      // A new item at column 0 that opens a body.
      if (!raw.empty() && raw.front() != ' ' && raw.front() != '/' && code.ends_with("{")) {
        ArtifactFunction f;
        f.symbol = functionNameOf(code);
        f.demangled = f.symbol;
        f.firstLine = f.lastLine = static_cast<uint32_t>(i);
        fn = static_cast<int32_t>(a.functions.size());
        a.functions.push_back(f);
        fnName = f.symbol;
        scopes.clear();
        openScopes.clear();
        braces.assign(1, 'o');
        line.function = fn;
        line.kind = LineKind::Header;
      }
      continue;
    }

    if (code == "}") {
      char kind = braces.empty() ? 'o' : braces.back();
      if (!braces.empty()) braces.pop_back();
      if (kind == 's' && !openScopes.empty()) openScopes.pop_back();
      line.kind = LineKind::Other;
      if (braces.empty()) {
        a.functions[fn].lastLine = static_cast<uint32_t>(i);
        fn = -1;
      }
      continue;
    }

    if (code.starts_with("scope ") && code.ends_with("{")) {
      std::string_view rest = code.substr(6);
      auto id = text::takeUint(rest);
      Scope s;
      s.parent = openScopes.empty() ? 0 : openScopes.back();
      rest = text::trim(rest);
      if (text::consume(rest, "(inlined ")) {
        s.inlined = true;
        size_t close = rest.rfind(')');
        std::string_view callee = rest.substr(0, close);
        text::consume(callee, "#[track_caller] ");
        s.callee = std::string(callee);
        if (text::consume(comment, "at ")) {
          if (auto f = parseSpan(comment)) s.callSite = *f;
        }
      }
      if (id) {
        scopes[*id] = s;
        openScopes.push_back(static_cast<int>(*id));
      }
      braces.push_back('s');
      line.kind = LineKind::Directive;
      continue;
    }

    if (code.ends_with(": {")) {  // bbN: {   or   bbN (cleanup): {
      braces.push_back('b');
      line.kind = LineKind::Label;
      continue;
    }
    if (code.ends_with("{")) braces.push_back('o');

    if (code.empty()) {
      line.kind = LineKind::Other;  // blank line or a continuation comment
      continue;
    }
    bool inBlock = std::find(braces.begin(), braces.end(), 'b') != braces.end();
    line.kind = inBlock ? LineKind::Instruction : LineKind::Directive;

    // "scope N at SPAN" on statements, "in scope N at SPAN" on declarations.
    std::string_view c = comment;
    text::consume(c, "in ");
    text::consume(c, "return place in ");
    if (!text::consume(c, "scope ")) continue;
    auto scopeId = text::takeUint(c);
    if (!scopeId || !text::consume(c, " at ")) continue;
    auto span = parseSpan(c);
    if (!span) continue;
    int s = static_cast<int>(*scopeId);
    span->function = functionOfScope(s);
    std::vector<Frame> chain{*span};
    for (; s > 0 && scopes.count(s); s = scopes[s].parent) {
      if (!scopes[s].inlined) continue;
      Frame site = scopes[s].callSite;
      site.function = functionOfScope(scopes[s].parent);
      chain.push_back(site);
    }
    line.location = chains.intern(std::move(chain));
  }
  return a;
}

}  // namespace ks
