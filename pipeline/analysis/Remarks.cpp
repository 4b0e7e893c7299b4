// LLVM optimization remarks: the YAML that `-Zremark-dir` writes, read with LLVM's own
// remarks parser, and their attribution to the user's lines (Remarks.h).
#include "Remarks.h"

#include <llvm/Remarks/Remark.h>
#include <llvm/Remarks/RemarkParser.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "Diagnostics.h"
#include "Parsers.h"
#include "TextUtil.h"

namespace ks {

namespace {

Remark::Kind kindOf(llvm::remarks::Type type) {
  switch (type) {
    case llvm::remarks::Type::Missed:
      return Remark::Kind::Missed;
    case llvm::remarks::Type::Analysis:
    case llvm::remarks::Type::AnalysisFPCommute:
    case llvm::remarks::Type::AnalysisAliasing:
      return Remark::Kind::Analysis;
    default:
      return Remark::Kind::Passed;
  }
}

/// LLVM's YAML remark parser hands back a scalar's raw text, less the quotes of a
/// single-quoted one: undo YAML's quoting. `''` is a quote in a single-quoted scalar; a
/// double-quoted one (still in its quotes) has backslash escapes. The message is one line,
/// so a line break becomes "; ".
std::string unquote(llvm::StringRef raw) {
  std::string out;
  if (raw.size() >= 2 && raw.front() == '"' && raw.back() == '"') {
    raw = raw.drop_front().drop_back();
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] != '\\' || i + 1 == raw.size()) {
        out += raw[i];
        continue;
      }
      switch (char c = raw[++i]) {
        case 'n':
          out += "; ";
          break;
        case 't':
          out += ' ';
          break;
        case '0':
          break;
        default:
          out += c;  // \\, \", \', \/
      }
    }
  } else {
    for (size_t i = 0; i < raw.size(); ++i) {
      out += raw[i];
      if (raw[i] == '\'' && i + 1 < raw.size() && raw[i + 1] == '\'') ++i;
    }
  }
  return out;
}

std::optional<Frame> frameOf(const std::optional<llvm::remarks::RemarkLocation>& loc) {
  if (!loc || loc->SourceFilePath.empty() || loc->SourceLine == 0) return std::nullopt;
  Frame f;
  f.file = normalizePath(unquote(loc->SourceFilePath));
  f.line = loc->SourceLine;
  f.column = loc->SourceColumn;
  return f;
}

}  // namespace

std::vector<Remark> parseRemarksYaml(std::string_view yaml) {
  std::vector<Remark> out;
  auto parser = llvm::remarks::createRemarkParser(llvm::remarks::Format::YAML,
                                                  llvm::StringRef(yaml.data(), yaml.size()));
  if (!parser) {
    llvm::consumeError(parser.takeError());
    return out;
  }
  while (true) {
    auto next = (*parser)->next();
    if (!next) {
      // The end of the stream, or a document LLVM cannot read: keep what was read.
      llvm::consumeError(next.takeError());
      break;
    }
    const llvm::remarks::Remark& in = **next;
    Remark& r = out.emplace_back();
    r.kind = kindOf(in.RemarkType);
    r.pass = unquote(in.PassName);
    r.name = unquote(in.RemarkName);
    r.function = demangleSymbol(unquote(in.FunctionName));
    r.location = frameOf(in.Loc);
    for (const llvm::remarks::Argument& arg : in.Args) {
      std::string value = unquote(arg.Val);
      if (arg.Key == "Callee" || arg.Key == "Caller" || arg.Key == "Function")
        value = demangleSymbol(value);
      r.message += value;
    }
    while (r.message.ends_with("; ")) r.message.resize(r.message.size() - 2);
    while (r.message.starts_with("; ")) r.message.erase(0, 2);
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
  std::vector<const Chain*> chainsAt(const Frame& at, const std::string& function) const {
    for (const auto* lines : {find(byColumn_, std::tuple{at.file, at.line, at.column}),
                              find(byLine_, std::pair{at.file, at.line})}) {
      if (!lines) continue;
      std::vector<const Chain*> inFunction, anywhere;
      for (uint32_t i : *lines) {
        const ArtifactLine& l = ir_.lines[i];
        anywhere.push_back(&l.location);
        if (l.function >= 0 && ir_.functions[l.function].demangled == function)
          inFunction.push_back(&l.location);
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
  return std::tuple{!r.userLocation.has_value(),
                    at.file,
                    at.line,
                    where,
                    r.kind,
                    r.pass,
                    r.name,
                    remarkMessage(r)};
}

}  // namespace

bool isBookkeepingRemark(const Remark& r) {
  static const std::string_view kPasses[] = {"size-info", "stack-frame-layout", "prologepilog",
                                             "asm-printer"};
  return std::find(std::begin(kPasses), std::end(kPasses), r.pass) != std::end(kPasses);
}

std::string_view remarkKindName(Remark::Kind k) {
  switch (k) {
    case Remark::Kind::Passed:
      return "passed";
    case Remark::Kind::Missed:
      return "missed";
    case Remark::Kind::Analysis:
      return "analysis";
  }
  return "passed";
}

std::string remarkMessage(const Remark& r) {
  std::string m = r.message;
  if (size_t at = m.find(" at callsite "); at != std::string::npos) m.erase(at);
  while (!m.empty() && (m.back() == ';' || m.back() == ' ')) m.pop_back();
  return m;
}

std::vector<Remark> attributeRemarks(std::vector<Remark> remarks, const Artifact& llvmIr,
                                     const LineMap& users) {
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
      if (std::none_of(lines.begin(), lines.end(), [&](const Frame& f) {
            return f.file == o.user.file && f.line == o.user.line;
          }))
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
  // repeat them word for word. Each key is made once (it holds the remark's message as
  // shown), then the remarks are sorted by it.
  using Key = decltype(sortKey(out.front()));
  std::vector<std::pair<Key, size_t>> keys;
  keys.reserve(out.size());
  for (size_t i = 0; i < out.size(); ++i) keys.emplace_back(sortKey(out[i]), i);
  std::stable_sort(keys.begin(), keys.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Remark> folded;
  for (size_t k = 0; k < keys.size(); ++k) {
    if (k > 0 && keys[k - 1].first == keys[k].first) {
      folded.back().count += out[keys[k].second].count;
      continue;
    }
    folded.push_back(std::move(out[keys[k].second]));
  }
  return folded;
}

bool RemarkFilter::accepts(const Remark& r) const {
  if (!passes.empty() && std::find(passes.begin(), passes.end(), r.pass) == passes.end())
    return false;
  const bool kindShown = r.kind == Remark::Kind::Passed   ? passed
                         : r.kind == Remark::Kind::Missed ? missed
                                                          : analysis;
  return kindShown || std::find(alsoShown.begin(), alsoShown.end(), std::pair{r.kind, r.pass}) !=
                          alsoShown.end();
}

std::optional<RemarkFilter> RemarkFilter::named(std::string_view name) {
  RemarkFilter f;
  f.passed = f.missed = f.analysis = false;
  if (name == "all")
    f.passed = f.missed = f.analysis = true;
  else if (name == "missed")
    f.missed = true;
  else if (name == "passed")
    f.passed = true;
  else if (name == "analysis")
    f.analysis = true;
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
