// PTX parser: LLVM NVPTX output with `.file`/`.loc` line directives.
//
// `.loc F L C` sets the location of the instructions that follow, until the next `.loc`.
// Newer LLVM adds `, function_name LABEL, inlined_at F2 L2 C2`; LABEL names a string in
// the `.debug_str` section. `.file` directives may come after their use (LLVM prints
// them at the end), so the text is read in two passes.
#include <map>
#include <optional>

#include "Parsers.h"
#include "TextUtil.h"

namespace ks {

namespace {

/// `.file N "path"[, timestamp, size]`
void readFileDirective(std::string_view t, std::map<uint32_t, std::string>& files) {
  std::string_view rest = t.substr(5);
  text::skipBlanks(rest);
  auto id = text::takeUint(rest);
  size_t q1 = rest.find('"');
  size_t q2 = q1 == std::string_view::npos ? q1 : rest.find('"', q1 + 1);
  if (id && q2 != std::string_view::npos)
    files[*id] = normalizePath(rest.substr(q1 + 1, q2 - q1 - 1));
}

/// The files that `.file` directives name, by number, wherever in the text they stand.
std::map<uint32_t, std::string> readFileDirectives(const Artifact& a) {
  std::map<uint32_t, std::string> files;
  for (size_t i = 0; i < a.lines().size(); ++i) {
    std::string_view t = text::trim(a.lineText(i));
    if (t.starts_with(".file")) readFileDirective(t, files);
  }
  return files;
}

/// The strings of `.section .debug_str { LABEL: .b8 104,105,0 ... }`, by label.
std::map<std::string, std::string, std::less<>> readDebugStrings(const Artifact& a) {
  std::map<std::string, std::string, std::less<>> strings;
  bool inSection = false;
  std::string* current = nullptr;
  for (size_t i = 0; i < a.lines().size(); ++i) {
    std::string_view t = text::trim(a.lineText(i));
    if (t.starts_with(".section") && t.find(".debug_str") != std::string_view::npos) {
      inSection = true;
      continue;
    }
    if (!inSection) continue;
    if (t == "}") break;
    if (t.ends_with(":")) {
      current = &strings[std::string(t.substr(0, t.size() - 1))];
      continue;
    }
    if (current && text::consume(t, ".b8")) {
      while (!t.empty()) {
        text::skipBlanks(t);
        auto byte = text::takeUint(t);
        if (!byte) break;
        if (*byte == 0)
          current = nullptr;
        else if (current)
          current->push_back(static_cast<char>(*byte));
        if (!current) break;
        text::skipBlanks(t);
        text::consume(t, ",");
      }
    }
  }
  return strings;
}

/// The function name a PTX header declares: `.visible .entry NAME(` -> NAME.
std::optional<std::pair<std::string, bool>> functionHeader(std::string_view t) {
  bool entry = t.find(".entry ") != std::string_view::npos;
  bool func = t.find(".func ") != std::string_view::npos || t.ends_with(".func");
  if (!entry && !func) return std::nullopt;
  if (t.starts_with("//") || t.starts_with(".extern") ||
      t.find(".extern ") != std::string_view::npos)
    return std::nullopt;
  std::string_view rest = t.substr(t.find(entry ? ".entry " : ".func") + (entry ? 7 : 5));
  text::skipBlanks(rest);
  if (rest.starts_with("(")) {  // return values: .func (.param .b32 r) NAME(
    size_t close = rest.find(')');
    if (close == std::string_view::npos) return std::nullopt;
    rest = rest.substr(close + 1);
    text::skipBlanks(rest);
  }
  size_t end = rest.find_first_of("( \t;");
  std::string_view name = rest.substr(0, end);
  if (name.empty()) return std::nullopt;
  return std::make_pair(std::string(name), entry);
}

/// A line's code: without its comment and the blanks around it.
std::string_view codeOf(std::string_view t) { return text::trim(t.substr(0, t.find("//"))); }

/// Whether a statement's text ends on this line (`;`), not on a later one.
bool statementEnds(std::string_view t) {
  std::string_view code = codeOf(t);
  return code.empty() || code.ends_with(";") || code.ends_with("{") || code.ends_with("}");
}

/// `LABEL: .directive ...`: a label that names a directive, not an instruction.
bool labelledDirective(std::string_view t) {
  size_t colon = t.find(':');
  if (colon == std::string_view::npos || t.find("//") < colon) return false;
  std::string_view rest = t.substr(colon + 1);
  text::skipBlanks(rest);
  return rest.starts_with(".");
}

/// The parser's state between lines of the second pass: the function being read, its
/// braces, and the location the last `.loc` set.
class PtxReader {
 public:
  explicit PtxReader(Artifact& a)
      : a_(a), files_(readFileDirectives(a)), debugStrings_(readDebugStrings(a)) {}

  void readLine(size_t i) {
    std::string_view t = text::trim(a_.lineText(i));
    ArtifactLine& line = a_.lines()[i];
    line.function = fn_;
    if (fn_ < 0) {
      if (auto header = functionHeader(t))
        startFunction(i, *header, t.ends_with(";"));
      else
        line.kind = t.empty() || t.starts_with("//") ? LineKind::Other : LineKind::Directive;
      return;
    }

    // Inside a function: count braces to find its end.
    for (char c : t) {
      if (c == '{') ++depth_, sawBody_ = true;
      if (c == '}') --depth_;
    }
    if (sawBody_ && depth_ <= 0) {
      a_.functions[fn_].lastLine = static_cast<uint32_t>(i);
      line.kind = LineKind::Other;
      fn_ = -1;
    } else if (!sawBody_) {  // parameter list and attributes before the body
      line.kind = LineKind::Header;
      // A declaration of a function defined later, `.func NAME` + its parameters on lines
      // of their own + `;`: it ends here (what follows is not its body).
      if (depth_ == 0 && codeOf(t).ends_with(";")) {
        a_.functions[fn_].lastLine = static_cast<uint32_t>(i);
        fn_ = -1;
      }
    } else {
      readBodyLine(t, line);
    }
  }

 private:
  /// `header` is the name and whether it is a kernel; a prototype has no body.
  void startFunction(size_t i, const std::pair<std::string, bool>& header, bool prototype) {
    ArtifactFunction f;
    f.symbol = header.first;
    f.demangled = demangleSymbol(f.symbol);
    f.isKernel = header.second;
    f.firstLine = f.lastLine = static_cast<uint32_t>(i);
    fn_ = static_cast<int32_t>(a_.functions.size());
    a_.functions.push_back(std::move(f));
    a_.lines()[i].function = fn_;
    a_.lines()[i].kind = LineKind::Header;
    depth_ = 0;
    sawBody_ = false;
    continued_ = false;
    current_.clear();
    currentChain_.reset();
    if (prototype) fn_ = -1;
  }

  void readBodyLine(std::string_view t, ArtifactLine& line) {
    if (t.empty() || t.starts_with("//") || t.starts_with("{") || t.starts_with("}")) {
      line.kind = LineKind::Other;  // blank, comment, or the braces of a call sequence
    } else if (continued_) {
      // The rest of a statement begun on an earlier line: the targets of a multi-line
      // `.branchtargets` list, the operands of a split call. Not an instruction of its own.
      line.kind = LineKind::Other;
      continued_ = !statementEnds(t);
    } else if (isPtxLocDirective(t)) {
      line.kind = LineKind::Directive;
      readLoc(t);
    } else if (t.front() == '.' || t.starts_with("@@")) {
      line.kind = LineKind::Directive;      // .reg, .local, .shared, pragmas
    } else if (codeOf(t).ends_with(":")) {  // llc: "$L__BB2_2:  // %bb4"
      line.kind = LineKind::Label;
    } else if (labelledDirective(t)) {  // "$L_brx_0: .branchtargets", its targets on the next lines
      line.kind = LineKind::Directive;
      continued_ = !statementEnds(t);
    } else {
      line.kind = LineKind::Instruction;
      if (!currentChain_) currentChain_ = chains_.intern(current_);
      line.location = *currentChain_;
      continued_ = !statementEnds(t);
    }
  }

  /// `.loc F L C[, function_name LABEL, inlined_at F2 L2 C2]` sets the location of the
  /// instructions that follow; one without a file and line changes nothing.
  void readLoc(std::string_view t) {
    std::string_view rest = t.substr(4);
    text::skipBlanks(rest);
    auto f = text::takeUint(rest);
    text::skipBlanks(rest);
    auto l = text::takeUint(rest);
    text::skipBlanks(rest);
    auto c = text::takeUint(rest);
    if (!f || !l) return;
    current_.clear();
    currentChain_.reset();
    current_.push_back(Frame{fileOf(*f), *l, c.value_or(0), {}});
    if (size_t fnPos = rest.find("function_name "); fnPos != std::string_view::npos) {
      std::string_view label = rest.substr(fnPos + 14);
      label = label.substr(0, label.find_first_of(", \t"));
      if (auto it = debugStrings_.find(label); it != debugStrings_.end())
        current_.front().function = demangleSymbol(it->second);
    }
    if (size_t at = rest.find("inlined_at "); at != std::string_view::npos) {
      std::string_view site = rest.substr(at + 11);
      auto sf = text::takeUint(site);
      text::skipBlanks(site);
      auto sl = text::takeUint(site);
      text::skipBlanks(site);
      auto sc = text::takeUint(site);
      if (sf && sl) current_.push_back(Frame{fileOf(*sf), *sl, sc.value_or(0), {}});
    }
  }

  std::string fileOf(uint32_t id) const {
    auto it = files_.find(id);
    return it == files_.end() ? std::string{} : it->second;
  }

  Artifact& a_;
  const std::map<uint32_t, std::string> files_;
  const std::map<std::string, std::string, std::less<>> debugStrings_;
  std::vector<Frame> current_;
  std::optional<Chain> currentChain_;  // current_ interned, once per `.loc`
  ChainInterner chains_;
  int32_t fn_ = -1;
  int depth_ = 0;
  bool sawBody_ = false;
  bool continued_ = false;  // the previous statement has not ended yet (no `;`)
};

}  // namespace

bool isPtxLocDirective(std::string_view t) {
  return t.starts_with(".loc") && (t.size() == 4 || t[4] == ' ' || t[4] == '\t');
}

Artifact parsePtx(std::string input) {
  Artifact a(Stage::Ptx, std::move(input));
  PtxReader reader(a);  // the first pass: `.file` directives and `.debug_str`
  for (size_t i = 0; i < a.lines().size(); ++i) reader.readLine(i);
  return a;
}

}  // namespace ks
