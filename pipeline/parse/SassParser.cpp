// SASS parser: `nvdisasm -c -g -gi` output.
//
// Each function is a `.text.NAME` section. A `//## File "PATH", line N` comment sets the
// location of the instructions that follow; with `-gi` it may continue with
// `inlined at "PATH", line M` (one or more times), giving the inline chain outward.
// ptxas pads a function with a branch-to-self and NOPs after its last instruction:
// those are marked as compiler-made (line 0). A branch-to-self earlier in the function is
// the user's own (`loop {}` after a call that does not return) and keeps its line.
#include <algorithm>

#include "Parsers.h"
#include "SassText.h"
#include "TextUtil.h"

namespace ks {

namespace {

/// Parses `"PATH", line N` at the start of `s`; advances past it.
std::optional<Frame> takeFileLine(std::string_view& s) {
  text::skipBlanks(s);
  if (!text::consume(s, "File ")) text::skipBlanks(s);
  if (!text::consume(s, "\"")) return std::nullopt;
  size_t q = s.find('"');
  if (q == std::string_view::npos) return std::nullopt;
  Frame f;
  f.file = normalizePath(s.substr(0, q));
  s.remove_prefix(q + 1);
  text::consume(s, ",");
  text::skipBlanks(s);
  if (!text::consume(s, "line ")) return std::nullopt;
  auto l = text::takeUint(s);
  if (!l) return std::nullopt;
  f.line = *l;
  return f;
}

/// The chain of a `//## File "PATH", line N[, inlined at "PATH", line M]...` comment
/// (after the `//## `), innermost first; empty when it names no file and line.
std::vector<Frame> readLocationComment(std::string_view t) {
  std::vector<Frame> chain;
  auto f = takeFileLine(t);
  if (!f) return chain;
  chain.push_back(*f);
  while (true) {
    text::skipBlanks(t);
    text::consume(t, ",");
    text::skipBlanks(t);
    if (!text::consume(t, "inlined at ")) break;
    auto site = takeFileLine(t);
    if (!site) break;
    chain.push_back(*site);
  }
  return chain;
}

/// Marks the padding ptxas puts after a function's last instruction as compiler-made
/// (line 0): from the end, the NOPs and the one branch-to-self before them.
void markPadding(Artifact& a, const ArtifactFunction& f, const std::vector<bool>& selfBranch,
                 ChainInterner& chains) {
  for (uint32_t i = f.lastLine + 1; i-- > f.firstLine;) {
    ArtifactLine& line = a.lines()[i];
    if (line.kind != LineKind::Instruction) continue;
    bool nop = sassOpcode(text::trim(a.lineText(i))) == "NOP";
    if (!nop && !selfBranch[i]) break;
    line.location = chains.intern(std::vector<Frame>{
        Frame{line.location.empty() ? SharedString{} : line.location.front().file, 0, 0, {}}});
    if (selfBranch[i]) break;
  }
}

}  // namespace

namespace {

/// The text after the address comment and the guard; `guard` receives the guard.
std::string_view afterGuard(std::string_view t, std::string_view* guard = nullptr) {
  size_t close = t.find("*/");
  std::string_view rest = close == std::string_view::npos ? t : t.substr(close + 2);
  text::skipBlanks(rest);
  if (rest.starts_with("@")) {
    size_t sp = rest.find_first_of(" \t");
    if (guard) *guard = rest.substr(0, sp);
    rest = sp == std::string_view::npos ? std::string_view{} : rest.substr(sp);
    text::skipBlanks(rest);
  }
  return rest;
}

}  // namespace

std::string_view sassOpcode(std::string_view t) {
  std::string_view rest = afterGuard(t);
  return rest.substr(0, std::min(rest.size(), rest.find_first_of(" \t;")));
}

std::optional<uint32_t> sassAddress(std::string_view t) {
  size_t open = t.find("/*");
  if (open == std::string_view::npos) return std::nullopt;
  size_t close = t.find("*/", open);
  if (close == std::string_view::npos || close == open + 2) return std::nullopt;
  uint32_t v = 0;
  for (char c : t.substr(open + 2, close - open - 2)) {
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0 || v > 0x0fffffff) return std::nullopt;
    v = v * 16 + uint32_t(d);
  }
  return v;
}

std::string_view sassBranchTarget(std::string_view t) {
  size_t open = t.find("`(");
  size_t close = open == std::string_view::npos ? open : t.find(')', open);
  return close == std::string_view::npos ? std::string_view{}
                                         : t.substr(open + 2, close - open - 2);
}

SassInstructionText splitSassInstruction(std::string_view t) {
  SassInstructionText out;
  std::string_view rest = afterGuard(t, &out.guard);
  size_t end = rest.find_first_of(" \t;");
  out.opcode = rest.substr(0, std::min(rest.size(), end));
  rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end);
  rest = rest.substr(0, std::min(rest.size(), rest.find(';')));
  int depth = 0;
  size_t start = 0;
  auto take = [&](size_t stop) {
    std::string_view op = text::trim(rest.substr(start, stop - start));
    start = stop + 1;
    if (op.empty()) return;
    SassOperand o;
    o.negated = op.starts_with("!");
    o.memory = op.find('[') != std::string_view::npos;
    if (op.ends_with(".reuse")) op.remove_suffix(6);
    o.text = op;
    out.operands.push_back(o);
  };
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '[') ++depth;
    if (rest[i] == ']') --depth;
    if (rest[i] == ',' && depth == 0) take(i);
  }
  take(rest.size());
  return out;
}

Artifact parseSass(std::string input) {
  Artifact a(Stage::Sass, std::move(input));

  std::vector<Frame> current;
  ChainInterner chains;
  int32_t fn = -1;
  std::string labelJustBefore;  // the label on the line right before, if any
  std::vector<bool> selfBranch(a.lines().size(), false);
  for (size_t i = 0; i < a.lines().size(); ++i) {
    std::string_view t = text::trim(a.lineText(i));
    ArtifactLine& line = a.lines()[i];

    if (t.starts_with("//----") && t.find(".text.") != std::string_view::npos) {
      if (fn >= 0) a.functions[fn].lastLine = static_cast<uint32_t>(i - 1);
      std::string_view name = t.substr(t.find(".text.") + 6);
      name = name.substr(0, name.find_first_of(" \t-"));
      ArtifactFunction f;
      f.symbol = std::string(name);
      f.demangled = demangleSymbol(f.symbol);
      f.firstLine = f.lastLine = static_cast<uint32_t>(i);
      fn = static_cast<int32_t>(a.functions.size());
      a.functions.push_back(std::move(f));
      current.clear();
      line.function = fn;
      line.kind = LineKind::Header;
      continue;
    }
    if (fn >= 0 && t.starts_with("//--")) {  // another section (.nv.info, .nv.constant...)
      a.functions[fn].lastLine = static_cast<uint32_t>(i - 1);
      fn = -1;
    }
    line.function = fn;

    if (text::consume(t, "//## ")) {
      line.kind = LineKind::Directive;
      current = readLocationComment(t);
      continue;
    }
    if (t.starts_with("/*") && t.find("*/") != std::string_view::npos && fn >= 0) {
      line.kind = LineKind::Instruction;
      std::string_view op = sassOpcode(t);
      // `.L_x_1: BRA (.L_x_1)`: a branch to its own label.
      selfBranch[i] = op == "BRA" && !labelJustBefore.empty() &&
                      t.find("(" + labelJustBefore + ")") != std::string_view::npos;
      labelJustBefore.clear();
      line.location = chains.intern(current);
      continue;
    }
    if (t.ends_with(":") && !t.starts_with("//")) {  // ".L_x_0:", "NAME:", ".text.NAME:"
      line.kind = LineKind::Label;
      labelJustBefore = std::string(t.substr(0, t.size() - 1));
      continue;
    }
    line.kind = t.empty() || t.starts_with("//") ? LineKind::Other : LineKind::Directive;
  }
  if (fn >= 0) a.functions[fn].lastLine = static_cast<uint32_t>(a.lines().size() - 1);
  for (auto& f : a.functions) {
    f.isKernel = true;  // refined from PTX by the driver
    markPadding(a, f, selfBranch, chains);
  }
  return a;
}

}  // namespace ks
