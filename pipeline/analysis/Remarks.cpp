// LLVM optimization remarks: the YAML that `-Zremark-dir` writes, read with LLVM's own
// remarks parser, and their attribution to the user's lines (Remarks.h).
#include "Remarks.h"

#include <llvm/Remarks/Remark.h>
#include <llvm/Remarks/RemarkParser.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

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

namespace {

constexpr std::string_view kBookkeepingPasses[] = {"size-info", "stack-frame-layout",
                                                   "prologepilog", "asm-printer"};

bool isBookkeepingPass(std::string_view pass) {
  return std::find(std::begin(kBookkeepingPasses), std::end(kBookkeepingPasses), pass) !=
         std::end(kBookkeepingPasses);
}

/// The pass a remark document names on the line after its `--- !Kind` line, as the YAML
/// remark serializer writes it (`Pass: NAME`, NAME perhaps quoted); empty when it is not
/// there.
std::string_view passOfDocument(std::string_view doc) {
  size_t nl = doc.find('\n');
  if (nl == std::string_view::npos) return {};
  std::string_view next = doc.substr(nl + 1);
  if (!text::consume(next, "Pass:")) return {};
  next = text::trim(text::firstLine(next));
  if (next.size() >= 2 && (next.front() == '\'' || next.front() == '"') &&
      next.back() == next.front())
    next = next.substr(1, next.size() - 2);
  return next;
}

/// `yaml` without the documents of bookkeeping passes, which are about half of what rustc
/// writes and need not go through the YAML parser at all.
std::string withoutBookkeeping(std::string_view yaml) {
  std::string kept;
  kept.reserve(yaml.size());
  size_t at = 0;
  while (at < yaml.size()) {
    size_t next = yaml.find("\n--- ", at);
    next = next == std::string_view::npos ? yaml.size() : next + 1;
    std::string_view doc = yaml.substr(at, next - at);
    if (!(doc.starts_with("--- ") && isBookkeepingPass(passOfDocument(doc)))) kept.append(doc);
    at = next;
  }
  return kept;
}

}  // namespace

std::vector<Remark> parseRemarksYaml(std::string_view yaml, bool withBookkeeping) {
  std::vector<Remark> out;
  std::string kept;
  if (!withBookkeeping) yaml = kept = withoutBookkeeping(yaml);
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
    if (!withBookkeeping && isBookkeepingPass(unquote(in.PassName))) continue;
    Remark& r = out.emplace_back();
    r.kind = kindOf(in.RemarkType);
    r.pass = unquote(in.PassName);
    r.name = unquote(in.RemarkName);
    r.function = demangleSymbol(unquote(in.FunctionName));
    r.location = frameOf(in.Loc);
    std::string message;
    for (const llvm::remarks::Argument& arg : in.Args) {
      std::string value = unquote(arg.Val);
      if (arg.Key == "Callee" || arg.Key == "Caller" || arg.Key == "Function")
        value = demangleSymbol(value);
      message += value;
    }
    while (message.ends_with("; ")) message.resize(message.size() - 2);
    while (message.starts_with("; ")) message.erase(0, 2);
    r.message = std::move(message);
  }
  shareRemarkTexts(out);
  return out;
}

namespace {

/// Where the instructions of the LLVM IR are, by their innermost frame: at each position
/// (file, line, column) and each whole line, the distinct chains there with the function
/// each is in, in the order the IR has them. Thousands of instructions share a chain (code
/// of `core` inlined in every kernel), so a remark looks at each chain once.
class IrLocations {
 public:
  explicit IrLocations(const Artifact& ir) : ir_(ir) {
    std::unordered_set<Seen, SeenHash> seen;
    for (const ArtifactLine& l : ir.lines()) {
      if (l.kind != LineKind::Instruction || l.location.empty()) continue;
      const Frame& f = l.location.front();
      for (uint32_t column : {f.column, kWholeLine}) {
        std::vector<Candidate>& here = at_[Key{f.file, f.line, column}];
        if (seen.insert(Seen{&here, l.location.id(), l.function}).second)
          here.push_back(Candidate{&l.location, l.function});
      }
    }
  }

  /// The chains of the instructions at `at`: exact position first, then the line; in
  /// `function` when it has any there, else anywhere.
  std::vector<const Chain*> chainsAt(const Frame& at, const std::string& function) const {
    for (uint32_t column : {at.column, kWholeLine}) {
      auto it = at_.find(Key{at.file, at.line, column});
      if (it == at_.end()) continue;
      std::vector<const Chain*> inFunction, anywhere;
      for (const Candidate& c : it->second) {
        anywhere.push_back(c.chain);
        if (c.function >= 0 && ir_.functions[c.function].demangled == function)
          inFunction.push_back(c.chain);
      }
      return inFunction.empty() ? anywhere : inFunction;
    }
    return {};
  }

 private:
  static constexpr uint32_t kWholeLine = UINT32_MAX;  // a column no location has
  struct Key {
    std::string_view file;  // in the IR's chains, which outlive this index
    uint32_t line, column;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return std::hash<std::string_view>{}(k.file) ^ (size_t(k.line) * 0x9e3779b97f4a7c15ULL) ^
             (size_t(k.column) << 1);
    }
  };
  struct Candidate {
    const Chain* chain;
    int32_t function;
  };
  struct Seen {
    const void* list;
    const void* chain;
    int32_t function;
    bool operator==(const Seen&) const = default;
  };
  struct SeenHash {
    size_t operator()(const Seen& s) const {
      return std::hash<const void*>{}(s.list) ^ (std::hash<const void*>{}(s.chain) << 1) ^
             size_t(s.function);
    }
  };
  const Artifact& ir_;
  std::unordered_map<Key, std::vector<Candidate>, KeyHash> at_;
};

/// What remarks are sorted and folded by (references into the remark and its message).
auto sortKey(const Remark& r, const std::string& message) {
  static const Frame kNone;
  const Frame& at = r.userLocation ? *r.userLocation : kNone;
  // Remarks on no user line are told apart by where they are.
  const Frame& where = r.userLocation || !r.location ? kNone : *r.location;
  return std::tuple<bool, const std::string&, uint32_t, const Frame&, Remark::Kind,
                    const std::string&, const std::string&, const std::string&>{
      !r.userLocation.has_value(), at.file, at.line, where, r.kind, r.pass, r.name, message};
}

}  // namespace

bool isBookkeepingRemark(const Remark& r) { return isBookkeepingPass(r.pass); }

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
  std::unordered_map<const void*, std::optional<Frame>> userLineOf;  // by chain
  auto userLine = [&](const Chain& chain) -> const std::optional<Frame>& {
    auto [it, added] = userLineOf.try_emplace(chain.id());
    if (added)
      if (LineOrigin o = users.attributeChain(chain); o.attribution == Attribution::Direct)
        it->second = o.user;
    return it->second;
  };
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
      const std::optional<Frame>& user = userLine(*chain);
      if (user && std::none_of(lines.begin(), lines.end(), [&](const Frame& f) {
            return f.line == user->line && f.file == user->file;
          }))
        lines.push_back(*user);
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
  // repeat them word for word. Each message is made once; the remarks are sorted by their
  // keys, which refer to the remarks and messages without copying them.
  std::vector<std::string> messages;
  messages.reserve(out.size());
  for (const Remark& r : out) messages.push_back(remarkMessage(r));
  std::vector<size_t> order(out.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto key = [&](size_t i) { return sortKey(out[i], messages[i]); };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key(a) < key(b); });
  std::vector<Remark> folded;
  size_t last = 0;  // the index in `out` of folded.back(), whose message stays in `messages`
  for (size_t k = 0; k < order.size(); ++k) {
    if (k > 0 && sortKey(folded.back(), messages[last]) == key(order[k])) {
      folded.back().count += out[order[k]].count;
      continue;
    }
    last = order[k];
    folded.push_back(std::move(out[last]));
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
