// LineMap: inline-aware attribution of artifact lines to the user's source lines, and the
// recovery of inline chains for formats that lost them (PTX from LLVM 22, SASS).
#include "LineMap.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace ks {

namespace {

const LineOrigin kNoOrigin{};
const StageLines kNoLines{};

SourceLine sourceLineOf(const Frame& f) { return {f.file, f.line}; }

}  // namespace

LineOrigin LineMap::attributeChain(const Chain& chain) const {
  LineOrigin o;
  o.chain = chain;
  if (chain.empty() || chain.front().line == 0) {
    o.attribution = Attribution::CompilerGenerated;
    return o;
  }
  auto user = std::find_if(chain.begin(), chain.end(),
                           [&](const Frame& f) { return f.line != 0 && isUserFile(f.file); });
  if (user == chain.end()) {
    o.attribution = Attribution::Unattributed;
    return o;
  }
  o.attribution = Attribution::Direct;
  o.user = *user;
  o.viaLibrary = user != chain.begin();
  for (auto it = std::next(user); it != chain.end(); ++it)
    if (it->line != 0 && isUserFile(it->file) && sourceLineOf(*it) != sourceLineOf(*user) &&
        std::none_of(o.outerUserFrames.begin(), o.outerUserFrames.end(),
                     [&](const Frame& f) { return sourceLineOf(f) == sourceLineOf(*it); }))
      o.outerUserFrames.push_back(*it);
  return o;
}

bool LineMap::isUserFile(std::string_view file) const {
  return std::find(userFiles_.begin(), userFiles_.end(), file) != userFiles_.end();
}

void LineMap::addArtifact(const Artifact& a) {
  auto added = std::make_shared<PerStage>();
  PerStage& s = *added;
  // One origin per distinct chain (lines share interned chains): origin 0 is "not code".
  // Each origin's source lines are looked up once, not once per line of its code.
  struct Lines {
    std::vector<uint32_t>* direct = nullptr;  // null: not Direct
    std::vector<std::vector<uint32_t>*> inlined;
  };
  std::vector<Lines> linesOfOrigin(1);
  s.origins.emplace_back();
  std::unordered_map<const void*, uint32_t> originOfChain;
  s.originOfLine.reserve(a.lines().size());
  for (uint32_t i = 0; i < a.lines().size(); ++i) {
    const ArtifactLine& line = a.lines()[i];
    if (line.kind != LineKind::Instruction) {
      s.originOfLine.push_back(0);
      continue;
    }
    auto [it, isNew] =
        originOfChain.try_emplace(line.location.id(), static_cast<uint32_t>(s.origins.size()));
    if (isNew) {
      const LineOrigin& o = s.origins.emplace_back(attributeChain(line.location));
      Lines& l = linesOfOrigin.emplace_back();
      if (o.attribution == Attribution::Direct) {
        l.direct = &s.bySource[sourceLineOf(o.user)].direct;
        for (const auto& f : o.outerUserFrames)
          l.inlined.push_back(&s.bySource[sourceLineOf(f)].inlined);
      }
    }
    s.originOfLine.push_back(it->second);
    const Lines& l = linesOfOrigin[it->second];
    if (l.direct) {
      l.direct->push_back(i);
      for (auto* inlined : l.inlined) inlined->push_back(i);
    } else if (s.origins[it->second].attribution == Attribution::CompilerGenerated) {
      s.compilerGenerated.push_back(i);
    }
  }
  stages_[a.stage] = std::move(added);
}

const LineMap::PerStage* LineMap::find(Stage stage) const {
  auto it = stages_.find(stage);
  return it == stages_.end() ? nullptr : it->second.get();
}

const LineOrigin& LineMap::origin(Stage stage, uint32_t line) const {
  const PerStage* s = find(stage);
  if (!s || line >= s->originOfLine.size()) return kNoOrigin;
  return s->origins[s->originOfLine[line]];
}

const StageLines& LineMap::linesFor(Stage stage, const SourceLine& src) const {
  const PerStage* s = find(stage);
  if (!s) return kNoLines;
  auto l = s->bySource.find(src);
  return l == s->bySource.end() ? kNoLines : l->second;
}

const std::vector<uint32_t>& LineMap::compilerGenerated(Stage stage) const {
  static const std::vector<uint32_t> none;
  const PerStage* s = find(stage);
  return s ? s->compilerGenerated : none;
}

std::vector<SourceLine> LineMap::sourceLinesWithCode(Stage stage, bool orInlined) const {
  std::vector<SourceLine> out;
  const PerStage* s = find(stage);
  if (!s) return out;
  for (const auto& [src, lines] : s->bySource)
    if (!lines.direct.empty() || (orInlined && !lines.inlined.empty())) out.push_back(src);
  return out;
}

std::vector<LineMap::Segment> LineMap::segments(Stage stage) const {
  std::vector<Segment> out;
  const PerStage* s = find(stage);
  if (!s) return out;
  auto originAt = [s](uint32_t line) -> const LineOrigin& {
    return s->origins[s->originOfLine[line]];
  };
  // A run continues across non-code lines (.loc, labels) between two instructions of
  // the same source line.
  std::optional<Segment> run;
  for (uint32_t i = 0; i < s->originOfLine.size(); ++i) {
    const LineOrigin& o = originAt(i);
    if (o.attribution != Attribution::Direct) {
      if (o.attribution != Attribution::None && run) {
        out.push_back(*run);
        run.reset();
      }
      continue;
    }
    if (run && sourceLineOf(originAt(run->origin).user) == sourceLineOf(o.user)) {
      run->end = i;
      continue;
    }
    if (run) out.push_back(*run);
    run = Segment{i, i, i};
  }
  if (run) out.push_back(*run);
  return out;
}

namespace {

/// Where the IR's chains are: by function symbol and innermost location (file, line,
/// column), each distinct chain once. The keys refer to the IR's text, which outlives this.
class IrChainIndex {
 public:
  // Column 0 holds every chain of the line, too: SASS gives no column.
  static constexpr uint32_t kAnyColumn = 0;

  explicit IrChainIndex(const Artifact& ir) {
    std::unordered_set<std::pair<const void*, const void*>, PairHash> seen;  // (list, chain)
    for (const auto& line : ir.lines()) {
      if (line.kind != LineKind::Instruction || line.location.empty() || line.function < 0)
        continue;
      const Frame& f = line.location.front();
      const std::string& fn = ir.functions[line.function].symbol;
      for (uint32_t col : {f.column, kAnyColumn}) {
        auto& v = index_[Key{fn, f.file, f.line, col}];
        if (seen.emplace(&v, line.location.id()).second) v.push_back(&line.location);
      }
    }
  }
  /// The chains of `symbol` at this location; null when there are none.
  const std::vector<const Chain*>* find(std::string_view symbol, std::string_view file,
                                        uint32_t line, uint32_t column) const {
    auto it = index_.find(Key{symbol, file, line, column});
    return it == index_.end() ? nullptr : &it->second;
  }

 private:
  struct Key {
    std::string_view symbol, file;
    uint32_t line, column;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      std::hash<std::string_view> h;
      return h(k.symbol) ^ (h(k.file) << 1) ^ (size_t(k.line) * 0x9e3779b97f4a7c15ULL) ^
             (size_t(k.column) << 7);
    }
  };
  struct PairHash {
    size_t operator()(const std::pair<const void*, const void*>& p) const {
      return std::hash<const void*>{}(p.first) ^ (std::hash<const void*>{}(p.second) << 1);
    }
  };
  std::unordered_map<Key, std::vector<const Chain*>, KeyHash> index_;
};

}  // namespace

void recoverInlineChains(Artifact& target, const Artifact& ir, const LineMap& users) {
  // Only a printed one-frame location is completed: where there is none (PTX from
  // kernelscope's back end), the IR need not be indexed at all.
  auto completes = [](const ArtifactLine& l) {
    return l.kind == LineKind::Instruction && l.function >= 0 && l.location.size() == 1 &&
           l.location.front().line != 0 && l.source != LocationSource::Regenerated;
  };
  if (std::none_of(target.lines().begin(), target.lines().end(), completes)) return;
  // Every IR chain, keyed by function and innermost location (with and without column:
  // SASS gives no column).
  const IrChainIndex index(ir);

  auto innermostUser = [&](const std::vector<Frame>& chain) -> const Frame* {
    for (const auto& f : chain)
      if (f.line != 0 && users.isUserFile(f.file)) return &f;
    return nullptr;
  };

  ChainInterner completed;  // chains made here, shared by the lines that get them
  int32_t fn = -2;
  Chain context;  // the last chain in this function that reached user code
  for (auto& line : target.lines()) {
    if (line.function != fn) {
      fn = line.function;
      context = {};
    }
    if (line.kind != LineKind::Instruction || line.location.empty() || fn < 0) continue;
    const Chain printed = line.location;  // keeps `here` alive while the line's changes
    const Frame& here = printed.front();
    if (here.line == 0) continue;
    if (line.location.size() > 1 || line.source == LocationSource::Regenerated) {  // already exact
      if (innermostUser(line.location)) context = line.location;
      continue;
    }
    const std::string& symbol = target.functions[fn].symbol;
    const std::vector<const Chain*>* candidates =
        index.find(symbol, here.file, here.line, here.column);
    if (!candidates)
      candidates = index.find(symbol, here.file, here.line, IrChainIndex::kAnyColumn);

    const Chain* chosen = nullptr;
    if (candidates) {
      // Prefer the candidate that shares a user frame with the code just before it, then
      // the one whose user line is nearest to it.
      const Frame* ctx = innermostUser(context);
      long bestScore = -1;
      for (const auto* cand : *candidates) {
        const Frame* u = innermostUser(*cand);
        long score = u ? 1000000 : 0;
        if (u && ctx) {
          bool shares = std::any_of(cand->begin(), cand->end(), [&](const Frame& f) {
            return std::any_of(context.begin(), context.end(), [&](const Frame& g) {
              return f.file == g.file && f.line == g.line && users.isUserFile(f.file);
            });
          });
          score += (shares ? 500000 : 0) -
                   std::min<long>(499999, std::labs(long(u->line) - long(ctx->line)));
        }
        if (score > bestScore) bestScore = score, chosen = cand;
      }
    }
    if (chosen && chosen->size() > 1) {
      std::vector<Frame> chain = *chosen;
      chain.front().column = here.column;
      line.location = completed.intern(std::move(chain));
      line.source = LocationSource::Guessed;
    } else if (!chosen && !users.isUserFile(here.file) && innermostUser(context)) {
      // The IR has no such location (the backend moved or merged it): the nearest user
      // code before it in the same function is the best remaining guess.
      std::vector<Frame> chain = line.location;
      chain.push_back(*innermostUser(context));
      line.location = completed.intern(std::move(chain));
      line.source = LocationSource::Guessed;
    }
    if (innermostUser(line.location)) context = line.location;
  }
}

}  // namespace ks
