// MIR parser: rustc `--emit=mir` with `-Zmir-include-spans=on`.
//
// Each statement ends with `// scope N at FILE:L:C: L:C`. Scopes nest; an inlined scope
// is declared as `scope N (inlined PATH) { // at FILE:L:C: L:C`, where the span is the
// call site. A statement's inline chain is its own span, then the call site of every
// inlined scope on the way out to the function's root scope.
#include <algorithm>
#include <map>
#include <unordered_map>

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

/// Normalized paths by the text MIR spells them in: a file's spans repeat its path on every
/// statement, so each is normalized once.
using PathCache = std::unordered_map<std::string_view, std::string>;

/// Parses "FILE:L:C: L:C" (the end position is ignored).
std::optional<Frame> parseSpan(std::string_view s, PathCache& paths) {
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
  std::string_view file = start.substr(0, c1);
  auto [path, added] = paths.try_emplace(file);
  if (added) path->second = normalizePath(file);
  f.file = path->second;
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

/// The parser's state between lines: the function being read, its scopes, and the braces
/// open in it.
class MirReader {
 public:
  explicit MirReader(Artifact& a) : a_(a) {}

  void readLine(size_t i) {
    std::string_view raw = a_.lineText(i);
    std::string_view t = text::trim(raw);
    ArtifactLine& line = a_.lines()[i];
    line.function = fn_;

    // Split off the trailing `// ...` comment (MIR code itself has no "//").
    std::string_view code = t, comment;
    if (size_t c = t.find("//"); c != std::string_view::npos) {
      code = text::trim(t.substr(0, c));
      comment = text::trim(t.substr(c + 2));
    }

    if (fn_ < 0) {
      // A new item at column 0 that opens a body.
      if (!raw.empty() && raw.front() != ' ' && raw.front() != '/' && code.ends_with("{"))
        startFunction(i, code);
      return;
    }
    if (code == "}") return closeBrace(i);
    if (code.starts_with("scope ") && code.ends_with("{")) return openScope(i, code, comment);
    if (code.ends_with(": {")) {  // bbN: {   or   bbN (cleanup): {
      braces_.push_back('b');
      line.kind = LineKind::Label;
      return;
    }
    if (code.ends_with("{")) braces_.push_back('o');

    if (code.empty()) {
      line.kind = LineKind::Other;  // blank line or a continuation comment
      return;
    }
    bool inBlock = std::find(braces_.begin(), braces_.end(), 'b') != braces_.end();
    line.kind = inBlock ? LineKind::Instruction : LineKind::Directive;
    locate(line, comment);
  }

 private:
  void startFunction(size_t i, std::string_view header) {
    ArtifactFunction f;
    f.symbol = functionNameOf(header);
    f.demangled = f.symbol;
    f.firstLine = f.lastLine = static_cast<uint32_t>(i);
    fn_ = static_cast<int32_t>(a_.functions.size());
    a_.functions.push_back(f);
    fnName_ = f.symbol;
    scopes_.clear();
    openScopes_.clear();
    braces_.assign(1, 'o');
    a_.lines()[i].function = fn_;
    a_.lines()[i].kind = LineKind::Header;
  }

  void closeBrace(size_t i) {
    char kind = braces_.empty() ? 'o' : braces_.back();
    if (!braces_.empty()) braces_.pop_back();
    if (kind == 's' && !openScopes_.empty()) openScopes_.pop_back();
    a_.lines()[i].kind = LineKind::Other;
    if (braces_.empty()) {
      a_.functions[fn_].lastLine = static_cast<uint32_t>(i);
      fn_ = -1;
    }
  }

  /// `scope N {`, or `scope N (inlined PATH) { // at CALL-SITE`.
  void openScope(size_t i, std::string_view code, std::string_view comment) {
    std::string_view rest = code.substr(6);
    auto id = text::takeUint(rest);
    Scope s;
    s.parent = openScopes_.empty() ? 0 : openScopes_.back();
    rest = text::trim(rest);
    if (text::consume(rest, "(inlined ")) {
      s.inlined = true;
      size_t close = rest.rfind(')');
      std::string_view callee = rest.substr(0, close);
      text::consume(callee, "#[track_caller] ");
      s.callee = std::string(callee);
      if (text::consume(comment, "at ")) {
        if (auto f = parseSpan(comment, paths_)) s.callSite = *f;
      }
    }
    if (id) {
      scopes_[*id] = s;
      openScopes_.push_back(static_cast<int>(*id));
    }
    braces_.push_back('s');
    a_.lines()[i].kind = LineKind::Directive;
  }

  /// The location of a statement or declaration from its comment: "scope N at SPAN" on
  /// statements, "in scope N at SPAN" on declarations; the chain is the span, then the call
  /// site of every inlined scope on the way out.
  void locate(ArtifactLine& line, std::string_view comment) {
    std::string_view c = comment;
    text::consume(c, "in ");
    text::consume(c, "return place in ");
    if (!text::consume(c, "scope ")) return;
    auto scopeId = text::takeUint(c);
    if (!scopeId || !text::consume(c, " at ")) return;
    auto span = parseSpan(c, paths_);
    if (!span) return;
    int s = static_cast<int>(*scopeId);
    span->function = functionOfScope(s);
    std::vector<Frame> chain{*span};
    for (const Scope* scope = scopeOf(s); s > 0 && scope; scope = scopeOf(s = scope->parent)) {
      if (!scope->inlined) continue;
      Frame site = scope->callSite;
      site.function = functionOfScope(scope->parent);
      chain.push_back(site);
    }
    line.location = chains_.intern(std::move(chain));
  }

  const Scope* scopeOf(int s) const {
    auto it = scopes_.find(s);
    return it == scopes_.end() ? nullptr : &it->second;
  }

  /// The function whose code scope `s` holds: the innermost inlined callee, else the item.
  const std::string& functionOfScope(int s) const {
    for (const Scope* scope = scopeOf(s); scope; scope = scopeOf(scope->parent))
      if (scope->inlined) return scope->callee;
    return fnName_;
  }

  Artifact& a_;
  ChainInterner chains_;
  PathCache paths_;
  std::map<int, Scope> scopes_;  // per function
  std::vector<int> openScopes_;  // scope declarations whose bodies we are in
  std::vector<char> braces_;     // 's' scope, 'b' block, 'o' other
  int32_t fn_ = -1;
  std::string fnName_;
};

}  // namespace

Artifact parseMir(std::string input) {
  Artifact a(Stage::Mir, std::move(input));
  MirReader reader(a);
  for (size_t i = 0; i < a.lines().size(); ++i) reader.readLine(i);
  return a;
}

}  // namespace ks
