// Live registers per SASS instruction, by dataflow over the SASS control-flow graph. See
// Liveness.h.
#include "Liveness.h"

#include <algorithm>
#include <bit>
#include <bitset>

#include "SassText.h"
#include "TextUtil.h"
#include "llvm/ADT/SmallVector.h"

namespace ks {

namespace {

using Units = std::bitset<SassFlowGraph::kUnits>;

std::string_view baseOf(std::string_view lineText) {
  const std::string_view op = sassOpcode(lineText);
  return op.substr(0, op.find('.'));
}

/// The uniform register pair holding a `.E` global or generic access's memory descriptor
/// (`desc[UR4]`): CUDA 11.8's nvdisasm does not print it, its life ranges count it. Bits
/// 32..37 of a load's encoding (those of a store hold its data register), 64..69 of a
/// store's, reduction's or atomic's.
std::optional<uint16_t> descriptorOf(std::string_view opcode, std::string_view encoding) {
  const std::string_view base = opcode.substr(0, opcode.find('.'));
  if (opcode.find(".E") == std::string_view::npos || encoding.size() < 16) return std::nullopt;
  size_t bit = 0;
  if (base == "LDG" || base == "LD")
    bit = 32;
  else if (base == "STG" || base == "ST" || base == "RED" || base == "REDG" || base == "ATOM" ||
           base == "ATOMG")
    bit = 64;
  else
    return std::nullopt;
  const uint16_t ur = uint8_t(encoding[bit / 8]) & 0x3f;
  if (ur >= 63) return std::nullopt;  // URZ
  return ur;
}

/// A set of the sites that write one register, as bits.
class Sites {
 public:
  explicit Sites(size_t n = 0) : words_((n + 63) / 64, 0) {}
  void set(size_t k) { words_[k / 64] |= 1ull << (k % 64); }
  void clear() { std::fill(words_.begin(), words_.end(), 0); }
  /// Adds `o`; whether that changed the set.
  bool add(const Sites& o) {
    bool changed = false;
    for (size_t w = 0; w < words_.size(); ++w) {
      changed = changed || (words_[w] | o.words_[w]) != words_[w];
      words_[w] |= o.words_[w];
    }
    return changed;
  }
  template <class F>
  void forEach(F&& f) const {
    for (size_t w = 0; w < words_.size(); ++w)
      for (uint64_t bits = words_[w]; bits; bits &= bits - 1)
        f(w * 64 + size_t(std::countr_zero(bits)));
  }
  bool meets(const Sites& o) const {
    for (size_t w = 0; w < words_.size(); ++w)
      if (words_[w] & o.words_[w]) return true;
    return false;
  }
  /// Whether a site of `a`, not in `b`, is in this set.
  bool meetsOutside(const Sites& a, const Sites& b) const {
    for (size_t w = 0; w < words_.size(); ++w)
      if (words_[w] & a.words_[w] & ~b.words_[w]) return true;
    return false;
  }

 private:
  // Most registers are written at fewer than 128 sites: no allocation per set then (a set
  // is kept per instruction and copied along every pass).
  llvm::SmallVector<uint64_t, 2> words_;
};

/// One function's liveness, step by step (each step a method: the flow graph's effects, its
/// edges as nvdisasm follows them, the classic liveness, then each register's values).
class Liveness {
 public:
  Liveness(const Artifact& sass, const SassFlowGraph& g, std::string_view code, uint32_t registers)
      : sass_(sass), g_(g), insts_(g.instructions()), blocks_(uint32_t(g.blockCount())) {
    blockOf_.resize(insts_.size());
    for (uint32_t b = 0; b < blocks_; ++b)
      for (size_t i = g.blockBegin(b); i < g.blockEnd(b); ++i) blockOf_[i] = b;
    effects(code, registers);
    edges();
    liveInto();
    counted_.resize(insts_.size());
    sitesAndPoints();
    Units present;
    for (size_t i = 0; i < insts_.size(); ++i)
      if (listed_[blockOf_[i]]) present |= uses_[i] | defs_[i];
    for (uint16_t r = 0; r < SassFlowGraph::kUnits; ++r)
      if (present.test(r)) countRegister(r);
  }

  std::vector<std::optional<LiveCount>> counts() const {
    // R63 was the zero register before sm_30: nvdisasm's life ranges still leave it out.
    Units gprs, preds, ugprs;
    for (uint16_t u = 0; u < SassFlowGraph::kPredUnit; ++u) gprs.set(u);
    gprs.reset(63);
    for (uint16_t u = SassFlowGraph::kPredUnit; u < SassFlowGraph::kUgprUnit; ++u) preds.set(u);
    for (uint16_t u = SassFlowGraph::kUgprUnit; u < SassFlowGraph::kUpredUnit; ++u) ugprs.set(u);
    std::vector<std::optional<LiveCount>> out(insts_.size());
    for (size_t i = 0; i < insts_.size(); ++i)
      if (listed_[blockOf_[i]])
        out[i] = LiveCount{uint16_t((counted_[i] & gprs).count()),
                           uint16_t((counted_[i] & preds).count()),
                           uint16_t((counted_[i] & ugprs).count())};
    return out;
  }

 private:
  std::string_view text(size_t i) const { return text::trim(sass_.lineText(insts_[i].line)); }
  bool listedAt(size_t i) const { return listed_[blockOf_[i]]; }

  /// Per instruction: what it reads, may write, and surely writes. A guarded write leaves a
  /// general register's earlier value live (the guard may be false); nvdisasm takes a guarded
  /// write of a predicate or uniform register as a write all the same.
  void effects(std::string_view code, uint32_t registers) {
    // The calling convention as nvdisasm's life ranges see it: R1 is the stack pointer, a
    // call reads R0 and R1 and clobbers R3..R15, UR4..UR35 and the uniform predicates; a
    // return reads R1 and R2, and from a function visible outside the cubin also what it
    // keeps for its caller (R16..R31 of the kernel's registers, UR36..UR62).
    Units kept, clobbered, gprs;
    for (uint16_t r = 16; r < 32 && r < registers; ++r) kept.set(r);
    for (uint16_t r = 36; r < 63; ++r) kept.set(SassFlowGraph::kUgprUnit + r);
    for (uint16_t r = 3; r < 16 && r < registers; ++r) clobbered.set(r);
    for (uint16_t r = 4; r < 36; ++r) clobbered.set(SassFlowGraph::kUgprUnit + r);
    for (uint16_t r = 0; r < 7; ++r) clobbered.set(SassFlowGraph::kUpredUnit + r);
    for (uint16_t u = 0; u < SassFlowGraph::kPredUnit; ++u) gprs.set(u);
    uses_.resize(insts_.size());
    defs_.resize(insts_.size());
    kills_.resize(insts_.size());
    bool inGlobal = false;
    for (size_t i = 0; i < insts_.size(); ++i) {
      if (g_.blockBegin(blockOf_[i]) == i && g_.startsFunction(blockOf_[i]))
        inGlobal = g_.global(blockOf_[i]);
      const std::string_view t = text(i), base = baseOf(t);
      for (const auto& o : insts_[i].reads) {
        for (uint16_t u : o.units) uses_[i].set(u);
        // An indirect branch's or return's target is a 64-bit address.
        if ((base == "BRX" || base == "JMX" || base == "RET") && o.name[0] == 'R' &&
            o.units.size() == 1 && o.units[0] + 1 < SassFlowGraph::kPredUnit)
          uses_[i].set(o.units[0] + 1);
        if (o.name == "PR")  // P2R: nvdisasm reads the whole predicate file, whatever the mask
          for (uint16_t u = SassFlowGraph::kPredUnit; u < SassFlowGraph::kPredUnit + 7; ++u)
            uses_[i].set(u);
      }
      for (const auto& o : insts_[i].writes)
        for (uint16_t u : o.units) defs_[i].set(u);
      kills_[i] = insts_[i].guarded ? defs_[i] & ~gprs : defs_[i];
      const auto address = sassAddress(t);
      if (address && size_t(*address) + 16 <= code.size())
        if (auto ur = descriptorOf(sassOpcode(t), code.substr(*address, 16)))
          for (uint16_t k = 0; k < 2 && *ur + k < 63; ++k)
            uses_[i].set(SassFlowGraph::kUgprUnit + *ur + k);
      if (base == "EXIT") uses_[i].set(1);
      if (base == "RET") uses_[i] |= (inGlobal ? kept : Units()) | Units().set(1).set(2);
      if (base == "CALL") {
        uses_[i].set(0).set(1);
        kills_[i] |= clobbered;
      }
    }
  }

  /// The edges: the graph's, but a call goes on after itself (its callee is a function of its
  /// own), a return goes nowhere, nor does an indirect branch (nvdisasm does not follow jump
  /// tables). What nvdisasm lists and analyses: the code reached from the start or a label.
  void edges() {
    succs_.assign(blocks_, {});
    for (uint32_t b = 0; b < blocks_; ++b) {
      const size_t last = g_.blockEnd(b) - 1;
      const std::string_view base = baseOf(text(last));
      if (base == "BRX" || base == "JMX") {
        if (insts_[last].guarded && b + 1 < blocks_) succs_[b].push_back(b + 1);
      } else if (base != "RET" || insts_[last].guarded) {
        succs_[b] = g_.successors(b);
      }
    }
    listed_.assign(blocks_, false);
    std::vector<uint32_t> work;
    for (uint32_t b = 0; b < blocks_; ++b)
      if (b == 0 || g_.labelled(b)) work.push_back(b);
    while (!work.empty()) {
      const uint32_t b = work.back();
      work.pop_back();
      if (listed_[b]) continue;
      listed_[b] = true;
      work.insert(work.end(), succs_[b].begin(), succs_[b].end());
    }
  }

  /// Backward: the registers read on some path from each instruction before being written.
  void liveInto() {
    liveIn_.assign(insts_.size(), Units());
    std::vector<Units> blockIn(blocks_);
    for (bool changed = true; changed;) {
      changed = false;
      for (uint32_t b = blocks_; b-- > 0;) {
        if (!listed_[b]) continue;
        Units live;
        for (uint32_t s : succs_[b]) live |= blockIn[s];
        for (size_t i = g_.blockEnd(b); i-- > g_.blockBegin(b);) {
          live = (live & ~kills_[i]) | uses_[i];
          liveIn_[i] = live;
        }
        if (live != blockIn[b]) {
          blockIn[b] = live;
          changed = true;
        }
      }
    }
  }

  /// Per register, the listed instructions that write or clobber it (its sites) and those
  /// where it is live or read (its points), in order; and the blocks where a function starts.
  void sitesAndPoints() {
    sitesOf_.assign(SassFlowGraph::kUnits, {});
    pointsOf_.assign(SassFlowGraph::kUnits, {});
    const auto each = [](const Units& u, auto&& f) {
      for (size_t r = u._Find_first(); r < u.size(); r = u._Find_next(r)) f(r);
    };
    for (size_t i = 0; i < insts_.size(); ++i) {
      if (!listedAt(i)) continue;
      each(defs_[i] | kills_[i], [&](size_t r) { sitesOf_[r].push_back(uint32_t(i)); });
      each(liveIn_[i] | uses_[i], [&](size_t r) { pointsOf_[r].push_back(uint32_t(i)); });
    }
    for (uint32_t b = 0; b < blocks_; ++b)
      if (listed_[b] && (b == 0 || g_.startsFunction(b))) functionStarts_.push_back(b);
  }

  /// One register's values, as nvdisasm counts them: by web (the writes that reach a common
  /// read), from where a value is written to where it is read, and further: within a block,
  /// from a web's first write or read to its last, and on to where another write of the same
  /// web sets the register again in the block (carryToNextWrite). A read that no write reaches
  /// counts nowhere, except that a function's general registers (and a called function's uniform
  /// ones) arrive set.
  void countRegister(uint16_t r) {
    Values v(*this, r);
    if (v.siteAt.empty()) return;
    v.reachAndWebs();
    v.spanBlocks();
    v.carryToNextWrite();
  }

  /// The sites that write one register (a function's start, each write, each call's
  /// clobber), what reaches the instructions that ask for it and the webs they form. Only the
  /// register's own sites and points are walked, and the blocks' effects at block level: a
  /// kernel has a few hundred registers, each used in a few places of thousands of instructions.
  struct Values {
    Values(Liveness& l, uint16_t r) : l(l), r(r), writes(l.sitesOf_[r]) {
      startOf.assign(l.blocks_, -1);
      for (uint32_t b : l.functionStarts_)
        if (r < SassFlowGraph::kPredUnit ||
            (b > 0 && r >= SassFlowGraph::kUgprUnit && r < SassFlowGraph::kUpredUnit)) {
          startOf[b] = int32_t(siteAt.size());
          siteAt.push_back(l.g_.blockBegin(b));
        }
      firstWrite = siteAt.size();
      siteAt.insert(siteAt.end(), writes.begin(), writes.end());
    }

    /// The site written at instruction `i`, if any.
    std::optional<size_t> siteOf(size_t i) const {
      const auto at = std::lower_bound(writes.begin(), writes.end(), uint32_t(i));
      if (at == writes.end() || *at != i) return std::nullopt;
      return firstWrite + size_t(at - writes.begin());
    }
    void step(size_t i, Sites& in) const {
      if (l.kills_[i].test(r)) in.clear();
      if (const auto k = siteOf(i)) in.set(*k);
    }
    size_t find(size_t k) {
      while (parent[k] != k) k = parent[k] = parent[parent[k]];
      return k;
    }
    static std::optional<size_t> firstOf(const Sites& s) {
      std::optional<size_t> first;
      s.forEach([&](size_t k) {
        if (!first) first = k;
      });
      return first;
    }
    /// The sites that reach instruction `i` (one that asks: see reachAndWebs).
    const Sites& reachOf(size_t i) const {
      return sets[std::lower_bound(reach.begin(), reach.end(), i, [](const auto& e, size_t at) {
                    return e.first < at;
                  })->second];
    }
    bool hasSites(uint32_t b) const { return blockSites[b].first < blockSites[b].second; }

    /// Forward: the sites that reach each instruction that asks (a block's start where the
    /// register has a site, and where it is live or read); the sites that reach one read are
    /// one web. First at block level (what a block generates, and whether it clears what
    /// comes in), then along the instructions of the blocks that write.
    void reachAndWebs() {
      const size_t n = siteAt.size();
      blockSites.assign(l.blocks_, {0, 0});
      for (size_t w = 0; w < writes.size();) {
        const uint32_t b = l.blockOf_[writes[w]];
        blockSites[b].first = w;
        while (w < writes.size() && l.blockOf_[writes[w]] == b) ++w;
        blockSites[b].second = w;
      }
      std::vector<Sites> gen(l.blocks_);
      std::vector<bool> clears(l.blocks_, false);
      for (uint32_t b = 0; b < l.blocks_; ++b) {
        if (!hasSites(b) && startOf[b] < 0) continue;
        gen[b] = Sites(n);
        if (startOf[b] >= 0) gen[b].set(size_t(startOf[b]));
        for (size_t w = blockSites[b].first; w < blockSites[b].second; ++w) {
          if (l.kills_[writes[w]].test(r)) {
            gen[b].clear();
            clears[b] = true;
          }
          gen[b].set(firstWrite + w);
        }
      }
      std::vector<Sites> reachIn(l.blocks_, Sites(n));
      for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t b = 0; b < l.blocks_; ++b) {
          if (!l.listed_[b]) continue;
          if (!hasSites(b) && startOf[b] < 0) {  // passes what comes in through
            for (uint32_t s : l.succs_[b]) changed = reachIn[s].add(reachIn[b]) || changed;
            continue;
          }
          Sites out = clears[b] ? gen[b] : reachIn[b];
          out.add(gen[b]);
          for (uint32_t s : l.succs_[b]) changed = reachIn[s].add(out) || changed;
        }
      }
      // The sets at the points: a set is kept once for all the points it reaches unchanged
      // (a block's points see one set until a write), so a point costs an index, not a copy.
      const std::vector<uint32_t>& points = l.pointsOf_[r];
      size_t p = 0;
      for (uint32_t b = 0; b < l.blocks_; ++b) {
        if (!l.listed_[b]) continue;
        const size_t begin = l.g_.blockBegin(b), end = l.g_.blockEnd(b);
        if (!hasSites(b) && startOf[b] < 0) {
          if (p < points.size() && points[p] < end) sets.push_back(reachIn[b]);
          for (; p < points.size() && points[p] < end; ++p)
            reach.emplace_back(points[p], uint32_t(sets.size() - 1));
          continue;
        }
        Sites in = reachIn[b];
        if (startOf[b] >= 0) in.set(size_t(startOf[b]));
        bool kept = false;  // whether `in` is sets.back()
        for (size_t i = begin; i < end; ++i) {
          const bool point = p < points.size() && points[p] == i;
          if (point) ++p;
          if (point || i == begin) {
            if (!kept) sets.push_back(in);
            kept = true;
            reach.emplace_back(uint32_t(i), uint32_t(sets.size() - 1));
          }
          if (siteOf(i)) {
            step(i, in);
            kept = false;
          }
        }
      }
      parent.resize(n);
      for (size_t k = 0; k < n; ++k) parent[k] = k;
      std::vector<bool> joined(sets.size(), false);
      for (const auto& [i, set] : reach)
        if (l.uses_[i].test(r) && !joined[set]) {
          joined[set] = true;
          if (const auto first = firstOf(sets[set]))
            sets[set].forEach([&](size_t k) { parent[find(k)] = find(*first); });
        }
      web.assign(n, Sites(n));
      for (size_t k = 0; k < n; ++k) web[find(k)].set(k);
    }

    /// Within a block: each web from its first point (where a value of it is live into an
    /// instruction, or written; a call's clobber only where what it sets is read later) to
    /// its last.
    void spanBlocks() {
      // The web each kept set's values belong to (the web of its first site).
      std::vector<int64_t> webOf(sets.size(), -1);
      for (size_t v = 0; v < sets.size(); ++v)
        if (const auto first = firstOf(sets[v])) webOf[v] = int64_t(find(*first));
      std::vector<bool> live(siteAt.size(), false);
      for (const auto& [i, set] : reach)
        if (webOf[set] >= 0 && l.liveIn_[i].test(r)) live[size_t(webOf[set])] = true;
      // Each web's points come in instruction order (the live points merged with the writes,
      // both in order already): the span of the current block is kept per web and counted
      // when a point of another block comes.
      struct Span {
        uint32_t block = 0;
        size_t first = 0, last = 0;
        bool open = false;
      };
      std::vector<Span> spans(siteAt.size());
      const auto count = [&](const Span& s) {
        if (s.open)
          for (size_t i = s.first; i <= s.last; ++i) l.counted_[i].set(r);
      };
      const auto add = [&](size_t web, size_t i) {
        Span& s = spans[web];
        if (s.open && s.block == l.blockOf_[i]) {
          s.last = i;
          return;
        }
        count(s);
        s = {l.blockOf_[i], i, i, true};
      };
      size_t w = 0;
      const auto addWrite = [&] {
        const size_t i = writes[w], k = firstWrite + w++;
        const bool readLater = i + 1 < l.insts_.size() && l.listedAt(i + 1) &&
                               l.liveIn_[i + 1].test(r) && live[find(k)];
        if (l.defs_[i].test(r) || readLater) add(find(k), i);
      };
      for (const auto& [i, set] : reach) {
        while (w < writes.size() && writes[w] < i) addWrite();
        if (webOf[set] >= 0 && l.liveIn_[i].test(r)) add(size_t(webOf[set]), i);
      }
      while (w < writes.size()) addWrite();
      for (const Span& s : spans) count(s);
    }

    /// Within a block, across the writes of other webs: a web of two or more writes stays
    /// counted from where one of its values reaches to where another of its writes sets the
    /// register again in the same block; the writes of other webs in between neither end the
    /// one nor hide the other (nvdisasm counts webs, not values, apart).
    void carryToNextWrite() {
      const size_t n = siteAt.size();
      std::vector<size_t> writesOfWeb(n, 0);
      for (size_t k = 0; k < n; ++k) ++writesOfWeb[find(k)];
      for (uint32_t b = 0; b < l.blocks_; ++b) {
        // Only a web that writes in the block can be carried in it.
        if (!l.listed_[b] || !hasSites(b)) continue;
        std::vector<size_t> roots;
        for (size_t w = blockSites[b].first; w < blockSites[b].second; ++w)
          if (writesOfWeb[find(firstWrite + w)] >= 2) roots.push_back(find(firstWrite + w));
        std::sort(roots.begin(), roots.end());
        roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
        for (size_t root : roots) carryWithin(l.g_.blockBegin(b), l.g_.blockEnd(b), root);
      }
    }

    /// carryToNextWrite for one web over the instructions [begin, end) of one block.
    void carryWithin(size_t begin, size_t end, size_t root) {
      const size_t n = siteAt.size();
      const Sites& w = web[root];
      const auto stepWeb = [&](size_t i, Sites& s) {
        const auto k = siteOf(i);
        if (!k || find(*k) != root) return;
        if (l.kills_[i].test(r)) s.clear();
        s.set(*k);
      };
      std::vector<Sites> reaching(end - begin, Sites(n));
      Sites in = reachOf(begin);
      for (size_t i = begin; i < end; ++i) {
        reaching[i - begin] = in;
        stepWeb(i, in);
      }
      Sites ahead(n);
      for (size_t i = end; i-- > begin;) {
        stepWeb(i, ahead);
        const Sites& at = reaching[i - begin];
        if (!l.counted_[i].test(r) && at.meets(w) && ahead.meetsOutside(w, at))
          l.counted_[i].set(r);
      }
    }

    Liveness& l;
    const uint16_t r;
    const std::vector<uint32_t>& writes;  // the instructions that write or clobber it, in order
    std::vector<size_t> siteAt;           // the instruction of each site: the starts, then `writes`
    size_t firstWrite = 0;                // the site of writes[0]
    std::vector<int32_t> startOf;
    std::vector<std::pair<size_t, size_t>> blockSites;  // each block's range of `writes`
    std::vector<Sites> sets;                            // the sets that reach the points
    std::vector<std::pair<uint32_t, uint32_t>> reach;   // instruction, its set; in order
    std::vector<Sites> web;
    std::vector<size_t> parent;
  };

  const Artifact& sass_;
  const SassFlowGraph& g_;
  const std::vector<SassFlowGraph::Instruction>& insts_;
  const uint32_t blocks_;
  std::vector<uint32_t> blockOf_;
  std::vector<Units> uses_, defs_, kills_, liveIn_, counted_;
  std::vector<std::vector<uint32_t>> succs_, sitesOf_, pointsOf_;
  std::vector<uint32_t> functionStarts_;
  std::vector<bool> listed_;
};

}  // namespace

std::vector<std::optional<LiveCount>> liveCounts(const Artifact& sass, const SassFlowGraph& g,
                                                 std::string_view code, uint32_t registers) {
  if (g.blockCount() == 0) return std::vector<std::optional<LiveCount>>(g.instructions().size());
  return Liveness(sass, g, code, registers).counts();
}

}  // namespace ks
