// Live registers per SASS instruction, by dataflow over the SASS control-flow graph. See
// Liveness.h.
#include "Liveness.h"

#include <algorithm>
#include <bit>
#include <bitset>

#include "SassText.h"
#include "TextUtil.h"

namespace ks {

namespace {

using Units = std::bitset<SassFlowGraph::kUnits>;
constexpr uint16_t kPred = SassFlowGraph::kPredUnit, kUgpr = SassFlowGraph::kUgprUnit,
                   kUpred = SassFlowGraph::kUpredUnit;

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
  bool any() const {
    return std::any_of(words_.begin(), words_.end(), [](uint64_t w) { return w != 0; });
  }
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
  /// Whether a site of `a`, not in `b`, is in this set.
  bool meetsOutside(const Sites& a, const Sites& b) const {
    for (size_t w = 0; w < words_.size(); ++w)
      if (words_[w] & a.words_[w] & ~b.words_[w]) return true;
    return false;
  }
  bool operator==(const Sites&) const = default;

 private:
  std::vector<uint64_t> words_;
};

}  // namespace

std::vector<std::optional<LiveCount>> liveCounts(const Artifact& sass, const SassFlowGraph& g,
                                                 std::string_view code, uint32_t registers) {
  const auto& insts = g.instructions();
  const uint32_t blocks = uint32_t(g.blockCount());
  std::vector<std::optional<LiveCount>> out(insts.size());
  if (blocks == 0) return out;
  auto text = [&](size_t i) { return text::trim(sass.lineText(insts[i].line)); };
  std::vector<uint32_t> blockOf(insts.size());
  for (uint32_t b = 0; b < blocks; ++b)
    for (size_t i = g.blockBegin(b); i < g.blockEnd(b); ++i) blockOf[i] = b;

  // The calling convention as nvdisasm's life ranges see it: R1 is the stack pointer, a call
  // reads R0 and R1 and clobbers R3..R15, UR4..UR35 and the uniform predicates; a return
  // reads R1 and R2, and from a function visible outside the cubin also what it keeps for
  // its caller (R16..R31 of the kernel's registers, UR36..UR62).
  Units kept, clobbered, gprs;
  for (uint16_t r = 16; r < 32 && r < registers; ++r) kept.set(r);
  for (uint16_t r = 36; r < 63; ++r) kept.set(kUgpr + r);
  for (uint16_t r = 3; r < 16 && r < registers; ++r) clobbered.set(r);
  for (uint16_t r = 4; r < 36; ++r) clobbered.set(kUgpr + r);
  for (uint16_t r = 0; r < 7; ++r) clobbered.set(kUpred + r);
  for (uint16_t u = 0; u < kPred; ++u) gprs.set(u);

  // Per instruction: what it reads, may write, and surely writes. A guarded write leaves a
  // general register's earlier value live (the guard may be false); nvdisasm takes a guarded
  // write of a predicate or uniform register as a write all the same.
  std::vector<Units> uses(insts.size()), defs(insts.size()), kills(insts.size());
  bool inGlobal = false;
  for (size_t i = 0; i < insts.size(); ++i) {
    if (g.blockBegin(blockOf[i]) == i && g.startsFunction(blockOf[i]))
      inGlobal = g.global(blockOf[i]);
    const std::string_view t = text(i);
    const std::string_view base = baseOf(t);
    for (const auto& o : insts[i].reads) {
      for (uint16_t u : o.units) uses[i].set(u);
      // An indirect branch's or return's target is a 64-bit address.
      if ((base == "BRX" || base == "JMX" || base == "RET") && o.name[0] == 'R' &&
          o.units.size() == 1 && o.units[0] + 1 < kPred)
        uses[i].set(o.units[0] + 1);
      if (o.name == "PR")  // P2R: nvdisasm reads the whole predicate file, whatever the mask
        for (uint16_t u = kPred; u < kPred + 7; ++u) uses[i].set(u);
    }
    for (const auto& o : insts[i].writes)
      for (uint16_t u : o.units) defs[i].set(u);
    kills[i] = insts[i].guarded ? defs[i] & ~gprs : defs[i];
    const auto address = sassAddress(t);
    if (address && size_t(*address) + 16 <= code.size())
      if (auto ur = descriptorOf(sassOpcode(t), code.substr(*address, 16)))
        for (uint16_t k = 0; k < 2 && *ur + k < 63; ++k) uses[i].set(kUgpr + *ur + k);
    if (base == "EXIT") uses[i].set(1);
    if (base == "RET") uses[i] |= (inGlobal ? kept : Units()) | Units().set(1).set(2);
    if (base == "CALL") {
      uses[i].set(0).set(1);
      kills[i] |= clobbered;
    }
  }

  // The edges: the graph's, but a call goes on after itself (its callee is a function of its
  // own), a return goes nowhere, nor does an indirect branch (nvdisasm does not follow jump
  // tables).
  std::vector<std::vector<uint32_t>> succs(blocks), preds(blocks);
  for (uint32_t b = 0; b < blocks; ++b) {
    const size_t last = g.blockEnd(b) - 1;
    const std::string_view base = baseOf(text(last));
    if (base == "BRX" || base == "JMX") {
      if (insts[last].guarded && b + 1 < blocks) succs[b].push_back(b + 1);
    } else if (base != "RET" || insts[last].guarded) {
      succs[b] = g.successors(b);
    }
  }
  // What nvdisasm lists and analyses: the code reached from the start or from a label.
  std::vector<bool> listed(blocks, false);
  std::vector<uint32_t> work;
  for (uint32_t b = 0; b < blocks; ++b)
    if (b == 0 || g.labelled(b)) work.push_back(b);
  while (!work.empty()) {
    const uint32_t b = work.back();
    work.pop_back();
    if (listed[b]) continue;
    listed[b] = true;
    work.insert(work.end(), succs[b].begin(), succs[b].end());
  }
  for (uint32_t b = 0; b < blocks; ++b)
    if (listed[b])
      for (uint32_t s : succs[b]) preds[s].push_back(b);

  // Backward: the registers read on some path from each instruction before being written
  // again.
  std::vector<Units> liveIn(insts.size()), blockIn(blocks);
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t b = blocks; b-- > 0;) {
      if (!listed[b]) continue;
      Units live;
      for (uint32_t s : succs[b]) live |= blockIn[s];
      for (size_t i = g.blockEnd(b); i-- > g.blockBegin(b);) {
        live = (live & ~kills[i]) | uses[i];
        liveIn[i] = live;
      }
      if (live != blockIn[b]) {
        blockIn[b] = live;
        changed = true;
      }
    }
  }

  // nvdisasm counts a register by its values (webs: the writes that reach a common read),
  // from where a value is written to where it is read, and further: within a block, from a
  // web's first write or read to its last; across blocks, on to where another write of the
  // same web sets the register again. A read that no write reaches counts nowhere, except
  // that a function's general registers (and a called function's uniform ones) arrive set.
  std::vector<Units> counted(insts.size());
  Units present;
  for (size_t i = 0; i < insts.size(); ++i)
    if (listed[blockOf[i]]) present |= uses[i] | defs[i];
  for (uint16_t r = 0; r < SassFlowGraph::kUnits; ++r) {
    if (!present.test(r)) continue;
    // The sites that write r: a function's start, each write, each call's clobber.
    std::vector<size_t> siteAt;  // the instruction of each site (a start: its first)
    std::vector<int32_t> siteOf(insts.size(), -1), startOf(blocks, -1);
    for (uint32_t b = 0; b < blocks; ++b)
      if (listed[b] && (b == 0 || g.startsFunction(b)) &&
          (r < kPred || (b > 0 && r >= kUgpr && r < kUpred))) {
        startOf[b] = int32_t(siteAt.size());
        siteAt.push_back(g.blockBegin(b));
      }
    for (size_t i = 0; i < insts.size(); ++i)
      if (listed[blockOf[i]] && (defs[i].test(r) || kills[i].test(r))) {
        siteOf[i] = int32_t(siteAt.size());
        siteAt.push_back(i);
      }
    if (siteAt.empty()) continue;
    const size_t n = siteAt.size();

    // Forward: the sites that reach each instruction.
    auto step = [&](size_t i, Sites& in) {
      if (kills[i].test(r)) in.clear();
      if (siteOf[i] >= 0) in.set(size_t(siteOf[i]));
    };
    std::vector<Sites> reachIn(blocks, Sites(n)), reach(insts.size(), Sites(n));
    for (bool changed = true; changed;) {
      changed = false;
      for (uint32_t b = 0; b < blocks; ++b) {
        if (!listed[b]) continue;
        Sites in = reachIn[b];
        if (startOf[b] >= 0) in.set(size_t(startOf[b]));
        for (size_t i = g.blockBegin(b); i < g.blockEnd(b); ++i) {
          reach[i] = in;
          step(i, in);
        }
        for (uint32_t s : succs[b]) changed = reachIn[s].add(in) || changed;
      }
    }
    // The webs.
    std::vector<size_t> parent(n);
    for (size_t k = 0; k < n; ++k) parent[k] = k;
    auto find = [&](size_t k) {
      while (parent[k] != k) k = parent[k] = parent[parent[k]];
      return k;
    };
    auto firstOf = [](const Sites& s) {
      std::optional<size_t> first;
      s.forEach([&](size_t k) {
        if (!first) first = k;
      });
      return first;
    };
    for (size_t i = 0; i < insts.size(); ++i)
      if (listed[blockOf[i]] && uses[i].test(r))
        if (const auto first = firstOf(reach[i]))
          reach[i].forEach([&](size_t k) { parent[find(k)] = find(*first); });
    std::vector<Sites> web(n, Sites(n));
    for (size_t k = 0; k < n; ++k) web[find(k)].set(k);

    // Each web's points: where a value of it is live into an instruction, and its writes (a
    // call's clobber only where what it sets is read later).
    std::vector<std::vector<size_t>> points(n);
    for (size_t i = 0; i < insts.size(); ++i)
      if (listed[blockOf[i]] && liveIn[i].test(r))
        if (const auto first = firstOf(reach[i])) points[find(*first)].push_back(i);
    for (size_t k = 0; k < n; ++k) {
      const size_t i = siteAt[k];
      if (siteOf[i] != int32_t(k)) continue;  // a start
      const bool readLater = i + 1 < insts.size() && listed[blockOf[i + 1]] &&
                             liveIn[i + 1].test(r) && !points[find(k)].empty();
      if (defs[i].test(r) || readLater) points[find(k)].push_back(i);
    }
    // Within a block: a web's first point to its last.
    for (auto& pts : points) {
      std::sort(pts.begin(), pts.end());
      for (size_t a = 0; a < pts.size();) {
        size_t z = a;
        while (z + 1 < pts.size() && blockOf[pts[z + 1]] == blockOf[pts[a]]) ++z;
        for (size_t i = pts[a]; i <= pts[z]; ++i) counted[i].set(r);
        a = z + 1;
      }
    }
    // Across blocks: the sites that write r next on a path from each instruction (up to and
    // including the first that surely does); a value reaching an instruction stays counted
    // there when one of them is another write of its web.
    std::vector<Sites> nextIn(blocks, Sites(n)), next(insts.size(), Sites(n));
    for (bool changed = true; changed;) {
      changed = false;
      for (uint32_t b = blocks; b-- > 0;) {
        if (!listed[b]) continue;
        Sites later(n);
        for (uint32_t s : succs[b]) later.add(nextIn[s]);
        for (size_t i = g.blockEnd(b); i-- > g.blockBegin(b);) {
          step(i, later);
          next[i] = later;
        }
        if (!(later == nextIn[b])) {
          nextIn[b] = later;
          changed = true;
        }
      }
    }
    for (size_t i = 0; i < insts.size(); ++i) {
      if (!listed[blockOf[i]] || counted[i].test(r) || !reach[i].any()) continue;
      bool live = liveIn[i].test(r);
      reach[i].forEach(
          [&](size_t k) { live = live || next[i].meetsOutside(web[find(k)], reach[i]); });
      if (live) counted[i].set(r);
    }
  }

  // R63 was the zero register before sm_30: nvdisasm's life ranges still leave it out.
  Units gprCounted = gprs, predCounted, ugprCounted;
  gprCounted.reset(63);
  for (uint16_t u = kPred; u < kUgpr; ++u) predCounted.set(u);
  for (uint16_t u = kUgpr; u < kUpred; ++u) ugprCounted.set(u);
  for (size_t i = 0; i < insts.size(); ++i)
    if (listed[blockOf[i]])
      out[i] = LiveCount{uint16_t((counted[i] & gprCounted).count()),
                         uint16_t((counted[i] & predCounted).count()),
                         uint16_t((counted[i] & ugprCounted).count())};
  return out;
}

}  // namespace ks
