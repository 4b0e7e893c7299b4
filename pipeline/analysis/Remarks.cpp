// LLVM optimization remarks: the parser for the YAML that `-Zremark-dir` writes, and their
// attribution to the user's lines (Remarks.h).
//
// The format is a stream of `--- !Passed|!Missed|!Analysis` documents with a fixed set
// of keys; only the subset below is read, so a small line reader suffices.
#include "Remarks.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "Diagnostics.h"
#include "Parsers.h"
#include "TextUtil.h"

namespace ks {

namespace {

/// Unquotes a YAML scalar: 'it''s' -> it's, "x" -> x, plain stays plain.
std::string scalar(std::string_view v) {
  v = text::trim(v);
  if (v.size() >= 2 && v.front() == '\'' && v.back() == '\'') {
    std::string out;
    v = v.substr(1, v.size() - 2);
    for (size_t i = 0; i < v.size(); ++i) {
      out += v[i];
      if (v[i] == '\'' && i + 1 < v.size() && v[i + 1] == '\'') ++i;
    }
    return out;
  }
  if (v.size() >= 2 && v.front() == '"' && v.back() == '"') return std::string(v.substr(1, v.size() - 2));
  return std::string(v);
}

/// Reads `{ File: 'x', Line: 3, Column: 4 }` (possibly spread over several lines).
std::optional<Frame> debugLoc(std::string_view v) {
  Frame f;
  auto valueOf = [&](std::string_view key) -> std::string_view {
    size_t p = v.find(key);
    if (p == std::string_view::npos) return {};
    std::string_view rest = v.substr(p + key.size());
    size_t end = rest.front() == '\'' ? rest.find('\'', 1) + 1 : rest.find_first_of(",}");
    return rest.substr(0, end);
  };
  f.file = normalizePath(scalar(valueOf("File: ")));
  auto line = text::parseUint(valueOf("Line: "));
  auto col = text::parseUint(valueOf("Column: "));
  if (f.file.empty() || !line) return std::nullopt;
  f.line = *line;
  f.column = col.value_or(0);
  return f;
}

}  // namespace

std::vector<Remark> parseRemarksYaml(std::string_view yaml) {
  std::vector<Remark> out;
  auto lines = splitLines(yaml);
  Remark* r = nullptr;
  bool inArgs = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (line.starts_with("--- !")) {
      out.emplace_back();
      r = &out.back();
      std::string_view kind = line.substr(5);
      r->kind = kind.starts_with("Missed") ? Remark::Kind::Missed
                : kind.starts_with("Analysis") ? Remark::Kind::Analysis : Remark::Kind::Passed;
      inArgs = false;
      continue;
    }
    if (!r || line == "...") continue;
    // A flow mapping may continue on the following, more indented lines.
    std::string joined(line);
    while (joined.find('{') != std::string::npos && joined.find('}') == std::string::npos && i + 1 < lines.size())
    {
      joined.push_back(' ');
      joined.append(text::trim(lines[++i]));
    }
    std::string_view t = joined;

    if (!t.starts_with(" ")) {
      inArgs = t.starts_with("Args:");
      std::string_view rest = t;
      if (text::consume(rest, "Pass:")) r->pass = scalar(rest);
      else if (text::consume(rest, "Name:")) r->name = scalar(rest);
      else if (text::consume(rest, "Function:")) r->function = demangleSymbol(scalar(rest));
      else if (text::consume(rest, "DebugLoc:")) r->location = debugLoc(rest);
      continue;
    }
    if (!inArgs) continue;
    // "  - Key: value" starts an argument; "    DebugLoc: ..." belongs to the previous one.
    std::string_view arg = text::trim(t);
    if (!text::consume(arg, "- ")) continue;
    size_t colon = arg.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = arg.substr(0, colon);
    std::string value = scalar(arg.substr(colon + 1));
    if (key == "Callee" || key == "Caller" || key == "Function") value = demangleSymbol(value);
    r->message += value;
  }
  return out;
}

namespace {

/// Where the instructions of the LLVM IR are, by their innermost frame.
class IrLocations {
 public:
  explicit IrLocations(const Artifact& ir) : ir_(ir) {
    for (uint32_t i = 0; i < ir.lines.size(); ++i) {
      const ArtifactLine& l = ir.lines[i];
      if (l.kind != LineKind::Instruction || l.location.empty()) continue;
      const Frame& f = l.location.front();
      byColumn_[{f.file, f.line, f.column}].push_back(i);
      byLine_[{f.file, f.line}].push_back(i);
    }
  }

  /// The chains of the instructions at `at`: exact position first, then the line; in
  /// `function` when it has any there, else anywhere.
  std::vector<const std::vector<Frame>*> chainsAt(const Frame& at, const std::string& function) const {
    for (const auto* lines : {find(byColumn_, std::tuple{at.file, at.line, at.column}),
                              find(byLine_, std::pair{at.file, at.line})}) {
      if (!lines) continue;
      std::vector<const std::vector<Frame>*> inFunction, anywhere;
      for (uint32_t i : *lines) {
        const ArtifactLine& l = ir_.lines[i];
        anywhere.push_back(&l.location);
        if (l.function >= 0 && ir_.functions[l.function].demangled == function) inFunction.push_back(&l.location);
      }
      return inFunction.empty() ? anywhere : inFunction;
    }
    return {};
  }

 private:
  template <class Map, class Key>
  static const std::vector<uint32_t>* find(const Map& m, const Key& k) {
    auto it = m.find(k);
    return it == m.end() ? nullptr : &it->second;
  }
  const Artifact& ir_;
  std::map<std::tuple<std::string, uint32_t, uint32_t>, std::vector<uint32_t>> byColumn_;
  std::map<std::pair<std::string, uint32_t>, std::vector<uint32_t>> byLine_;
};

auto sortKey(const Remark& r) {
  const Frame none;
  const Frame& at = r.userLocation ? *r.userLocation : none;
  // Remarks on no user line are told apart by where they are.
  const Frame& where = r.userLocation || !r.location ? none : *r.location;
  return std::tuple{!r.userLocation.has_value(), at.file, at.line, where, r.kind, r.pass, r.name, remarkMessage(r)};
}

}  // namespace

bool isBookkeepingRemark(const Remark& r) {
  static const std::string_view kPasses[] = {"size-info", "stack-frame-layout", "prologepilog", "asm-printer"};
  return std::find(std::begin(kPasses), std::end(kPasses), r.pass) != std::end(kPasses);
}

std::string_view remarkKindName(Remark::Kind k) {
  switch (k) {
    case Remark::Kind::Passed: return "passed";
    case Remark::Kind::Missed: return "missed";
    case Remark::Kind::Analysis: return "analysis";
  }
  return "passed";
}

std::string remarkMessage(const Remark& r) {
  std::string m = r.message;
  if (size_t at = m.find(" at callsite "); at != std::string::npos) m.erase(at);
  while (!m.empty() && (m.back() == ';' || m.back() == ' ')) m.pop_back();
  return m;
}

std::vector<Remark> attributeRemarks(std::vector<Remark> remarks, const Artifact& llvmIr, const LineMap& users) {
  const IrLocations ir(llvmIr);
  std::vector<Remark> out;
  for (Remark& r : remarks) {
    r.userLocation.reset();
    r.viaLibrary = false;
    if (!r.location || r.location->line == 0) {
      out.push_back(std::move(r));
      continue;
    }
    if (users.isUserFile(r.location->file)) {
      r.userLocation = r.location;
      out.push_back(std::move(r));
      continue;
    }
    std::vector<Frame> lines;  // distinct user lines, in the order the IR has them
    for (const auto* chain : ir.chainsAt(*r.location, r.function)) {
      LineOrigin o = users.attributeChain(*chain);
      if (o.attribution != Attribution::Direct) continue;
      if (std::none_of(lines.begin(), lines.end(),
                       [&](const Frame& f) { return f.file == o.user.file && f.line == o.user.line; }))
        lines.push_back(o.user);
    }
    for (const Frame& line : lines) {
      Remark copy = r;
      copy.userLocation = line;
      copy.viaLibrary = true;
      out.push_back(std::move(copy));
    }
    if (lines.empty()) out.push_back(std::move(r));
  }

  // Fold identical remarks on the same line: loops unrolled or code inlined several times
  // repeat them word for word.
  std::stable_sort(out.begin(), out.end(), [](const Remark& a, const Remark& b) { return sortKey(a) < sortKey(b); });
  std::vector<Remark> folded;
  for (Remark& r : out) {
    if (!folded.empty() && sortKey(folded.back()) == sortKey(r)) {
      folded.back().count += r.count;
      continue;
    }
    folded.push_back(std::move(r));
  }
  return folded;
}

bool RemarkFilter::accepts(const Remark& r) const {
  if (!passes.empty() && std::find(passes.begin(), passes.end(), r.pass) == passes.end()) return false;
  const bool kindShown = r.kind == Remark::Kind::Passed ? passed : r.kind == Remark::Kind::Missed ? missed : analysis;
  return kindShown || std::find(alsoShown.begin(), alsoShown.end(), std::pair{r.kind, r.pass}) != alsoShown.end();
}

std::optional<RemarkFilter> RemarkFilter::named(std::string_view name) {
  RemarkFilter f;
  f.passed = f.missed = f.analysis = false;
  if (name == "all") f.passed = f.missed = f.analysis = true;
  else if (name == "missed") f.missed = true;
  else if (name == "passed") f.passed = true;
  else if (name == "analysis") f.analysis = true;
  else if (name == "default") {
    f.missed = true;
    for (const char* pass : {"inline", "licm", "loop-unroll", "loop-vectorize", "slp-vectorizer"})
      f.alsoShown.push_back({Remark::Kind::Passed, pass});
    f.alsoShown.push_back({Remark::Kind::Analysis, "loop-vectorize"});
  } else if (name != "none") {
    return std::nullopt;
  }
  return f;
}

}  // namespace ks
