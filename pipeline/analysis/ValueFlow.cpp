// Reaching definitions over the SASS listing's control-flow graph. See ValueFlow.h.
#include "ValueFlow.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <set>

#include "SassText.h"
#include "TextUtil.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

namespace ks {

namespace {

// Register units (RZ, PT, URZ, UPT hold nothing).
constexpr uint16_t kPred = SassFlowGraph::kPredUnit, kUgpr = SassFlowGraph::kUgprUnit,
                   kUpred = SassFlowGraph::kUpredUnit;

enum class RegClass { Gpr, Pred, Ugpr, Upred, Zero, PredZero, PredFile };

/// A register token in operand text: its class, number and explicit width (`R2.64`).
struct RegToken {
  RegClass cls;
  uint16_t number = 0;
  uint8_t width = 0;  // 0: not written in the token
  std::string_view text;
};

bool wordChar(char c) { return std::isalnum(uint8_t(c)) || c == '_' || c == '.'; }

// The operand reader runs over every instruction of a listing for the costs: its short
// lists stay off the heap.
using RegTokens = llvm::SmallVector<RegToken, 4>;
using Modifiers = llvm::SmallVector<std::string_view, 6>;

/// Every register named in `op` ("-|R2|", "[R2.64+UR4+0x10]", "c[0x0][R0]", "!P0").
RegTokens registersIn(std::string_view op) {
  RegTokens out;
  if (op.starts_with("`")) return out;  // a branch or call target
  for (size_t i = 0; i < op.size(); ++i) {
    if (i > 0 && wordChar(op[i - 1])) continue;
    std::string_view t = op.substr(i);
    // Longer names first: "URZ" before "UR", "PT" and "PR" before "P".
    static constexpr std::pair<std::string_view, RegClass> kNames[] = {
        {"URZ", RegClass::Zero},    {"UPT", RegClass::PredZero}, {"UR", RegClass::Ugpr},
        {"UP", RegClass::Upred},    {"RZ", RegClass::Zero},      {"PT", RegClass::PredZero},
        {"PR", RegClass::PredFile}, {"R", RegClass::Gpr},        {"P", RegClass::Pred}};
    const auto* name = std::find_if(std::begin(kNames), std::end(kNames),
                                    [&](const auto& n) { return t.starts_with(n.first); });
    if (name == std::end(kNames)) continue;
    RegToken r{name->second, 0, 0, {}};
    const size_t prefix = name->first.size();
    size_t j = prefix;
    const bool numbered = r.cls == RegClass::Gpr || r.cls == RegClass::Pred ||
                          r.cls == RegClass::Ugpr || r.cls == RegClass::Upred;
    if (numbered) {
      uint32_t n = 0;
      while (j < t.size() && std::isdigit(uint8_t(t[j])) && n < 1000) n = n * 10 + (t[j++] - '0');
      if (j == prefix) continue;
      r.number = uint16_t(n);
    }
    if (j < t.size() && (std::isalnum(uint8_t(t[j])) || t[j] == '_')) continue;  // SR_TID, R2X
    if (t.substr(j).starts_with(".64")) r.width = 2;
    if (t.substr(j).starts_with(".128")) r.width = 4;
    r.text = t.substr(0, j);
    out.push_back(r);
    i += j - 1;
  }
  return out;
}

bool isPredicate(RegClass c) {
  return c == RegClass::Pred || c == RegClass::Upred || c == RegClass::PredZero;
}

/// The dot-separated modifiers of an opcode after its base ("LDG.E.64" -> E, 64).
Modifiers modifiersOf(std::string_view opcode) {
  Modifiers out;
  for (size_t dot = opcode.find('.'); dot != std::string_view::npos;) {
    const size_t next = opcode.find('.', dot + 1);
    out.push_back(opcode.substr(dot + 1, next == std::string_view::npos ? next : next - dot - 1));
    dot = next;
  }
  return out;
}

bool oneOf(std::string_view s, std::initializer_list<std::string_view> set) {
  return std::find(set.begin(), set.end(), s) != set.end();
}

/// Registers of a memory instruction's data (loads, stores, atomics): from its width.
uint8_t dataWidth(std::string_view base, llvm::ArrayRef<std::string_view> mods) {
  uint8_t w = 1;
  for (auto m : mods) {
    if (oneOf(m, {"64", "U64", "S64", "F64"})) w = 2;
    if (m == "128") w = 4;
    if (base == "LDSM" && (m == "2" || m == "4")) w = uint8_t(m[0] - '0');
  }
  return w;
}

bool isWide(std::string_view type) { return oneOf(type, {"F64", "S64", "U64"}); }
bool isFloatType(std::string_view t) { return !t.empty() && t[0] == 'F'; }
bool isIntType(std::string_view t) { return !t.empty() && (t[0] == 'S' || t[0] == 'U'); }

/// The widths of a conversion's destination and source ("F2F.F64.F32": 2 and 1).
std::pair<uint8_t, uint8_t> conversionWidths(std::string_view base,
                                             llvm::ArrayRef<std::string_view> mods) {
  Modifiers types;
  for (auto m : mods)
    if ((isFloatType(m) || isIntType(m)) && m.size() <= 4 && std::isdigit(uint8_t(m.back())))
      types.push_back(m);
  uint8_t dst = 1, src = 1;
  if (base == "I2F" || base == "F2I") {
    // One type may be either side: I2F's float type is its result's, F2I's integer type.
    const bool resultFloat = base == "I2F";
    for (auto t : types) {
      const bool result = resultFloat ? isFloatType(t) : isIntType(t);
      (result ? dst : src) = std::max<uint8_t>(result ? dst : src, isWide(t) ? 2 : 1);
    }
  } else if (!types.empty()) {  // F2F, I2I, FRND: the first type is the result's
    dst = isWide(types[0]) ? 2 : 1;
    src = isWide(types.size() > 1 ? types[1] : types[0]) ? 2 : 1;
  }
  return {dst, src};
}

/// The units of `r` at `width` registers; none for RZ/PT.
SassFlowGraph::Units unitsOf(const RegToken& r, uint8_t width, uint32_t predMask) {
  SassFlowGraph::Units u;
  const uint8_t w = r.width ? r.width : width;
  switch (r.cls) {
    case RegClass::Gpr:
      for (uint16_t k = 0; k < w && r.number + k < 255; ++k) u.push_back(uint16_t(r.number + k));
      break;
    case RegClass::Ugpr:
      for (uint16_t k = 0; k < w && r.number + k < 63; ++k)
        u.push_back(uint16_t(kUgpr + r.number + k));
      break;
    case RegClass::Pred:
      if (r.number < 7) u.push_back(uint16_t(kPred + r.number));
      break;
    case RegClass::Upred:
      if (r.number < 7) u.push_back(uint16_t(kUpred + r.number));
      break;
    case RegClass::PredFile:  // P2R/R2P: the predicates the mask selects
      for (uint16_t k = 0; k < 7; ++k)
        if (predMask & (1u << k)) u.push_back(uint16_t(kPred + k));
      break;
    default:
      break;
  }
  return u;
}

std::string nameOf(const RegToken& r, uint8_t width) {
  const uint8_t w = r.width ? r.width : width;
  std::string s(r.text);
  if ((r.cls == RegClass::Gpr || r.cls == RegClass::Ugpr) && w > 1) s += w == 2 ? ".64" : ".128";
  return s;
}

/// Opcodes whose first operand is read, or names no register written.
bool writesNothing(std::string_view base) {
  return oneOf(
      base,
      {"ST",      "STG",    "STS",       "STL",      "STSM",    "SUST",   "SURED",  "RED",
       "REDG",    "BAR",    "BRA",       "BRX",      "JMP",     "JMX",    "CALL",   "RET",
       "EXIT",    "BSSY",   "BSYNC",     "WARPSYNC", "MEMBAR",  "FENCE",  "ERRBAR", "CCTL",
       "CCTLL",   "NOP",    "YIELD",     "DEPBAR",   "BPT",     "KILL",   "BREAK",  "NANOSLEEP",
       "ARRIVES", "LDGSTS", "LDGDEPBAR", "UTMALDG",  "UTMASTG", "UBLKCP", "SYNCS"});
}

/// How many leading operands of instruction `base` are written.
size_t writtenOperands(std::string_view base, const std::vector<SassOperand>& ops) {
  size_t written = 0;
  auto firstReg = [&](size_t k) -> std::optional<RegToken> {
    if (k >= ops.size() || ops[k].memory) return std::nullopt;
    auto regs = registersIn(ops[k].text);
    if (regs.empty()) return std::nullopt;
    return regs[0];
  };
  if (!writesNothing(base) && firstReg(0)) {
    written = 1;
    const RegToken first = *firstReg(0);
    if (isPredicate(first.cls) && base != "FCHK") {
      // A compare's two predicates; a shuffle's or atomic's predicate and its value.
      if (firstReg(1)) written = 2;
    } else {
      // Carry-out predicates right after the result (IADD3 R2, P0, P1, ...; LEA R0, P0, ...).
      const size_t most = base == "IADD3" || base == "UIADD3" ? 2 : 1;
      while (written <= most) {
        auto r = firstReg(written);
        if (!r || ops[written].negated ||
            (r->cls != RegClass::Pred && r->cls != RegClass::Upred && r->cls != RegClass::PredZero))
          break;
        ++written;
      }
    }
  }
  return written;
}

}  // namespace

SassFlowGraph::Instruction sassRegisters(std::string_view lineText) {
  SassFlowGraph::Instruction inst;
  const SassInstructionText it = splitSassInstruction(lineText);
  const std::string_view base =
      it.opcode.substr(0, std::min(it.opcode.size(), it.opcode.find('.')));
  const Modifiers mods = modifiersOf(it.opcode);
  if (!it.guard.empty()) {
    std::string_view g = it.guard.substr(1);
    if (g.starts_with("!")) g.remove_prefix(1);
    auto regs = registersIn(g);
    if (!regs.empty() && regs[0].cls != RegClass::PredZero) {
      inst.guarded = true;
      inst.reads.push_back({std::string(regs[0].text), unitsOf(regs[0], 1, 0)});
    }
  }
  inst.writesAnyGpr = base == "CALL";
  const auto& ops = it.operands;
  // P2R/R2P name the predicates through a mask, their last operand.
  uint32_t predMask = 0x7f;
  if (!ops.empty() && ops.back().text.starts_with("0x"))
    predMask = uint32_t(std::strtoul(std::string(ops.back().text).c_str(), nullptr, 16));

  const size_t written = writtenOperands(base, ops);
  inst.writes.reserve(written);
  inst.reads.reserve(ops.size() + 1 - std::min(written, ops.size()));

  // Widths: a memory instruction's data, a wide multiply's result and addend, doubles,
  // conversions; explicit `.64` in an address wins.
  const bool memoryOp = oneOf(base, {"LDG", "LD", "LDS", "LDL", "LDC", "ULDC", "LDSM", "STG", "ST",
                                     "STS", "STL", "ATOMG", "ATOM", "ATOMS", "RED", "REDG"});
  const bool doubleOp = oneOf(base, {"DADD", "DMUL", "DFMA", "DMNMX", "DSETP", "DSET"});
  const bool conversion = oneOf(base, {"F2F", "F2I", "I2F", "I2I", "FRND"});
  const bool wideMultiply = (base == "IMAD" || base == "UIMAD") &&
                            std::find(mods.begin(), mods.end(), "WIDE") != mods.end();
  const bool plain64 = !memoryOp && std::find(mods.begin(), mods.end(), "64") != mods.end();
  // CS2R reads a 64-bit special register pair into two registers unless it says `.32`.
  const bool pairMove = base == "CS2R" && std::find(mods.begin(), mods.end(), "32") == mods.end();
  const auto [convDst, convSrc] =
      conversion ? conversionWidths(base, mods) : std::pair<uint8_t, uint8_t>{1, 1};
  size_t sourceIndex = 0;  // position among the read operands (IMAD.WIDE's addend is the third)
  for (size_t k = 0; k < ops.size(); ++k) {
    const bool write = k < written;
    if (!write && !ops[k].memory) ++sourceIndex;
    for (const RegToken& r : registersIn(ops[k].text)) {
      uint8_t w = 1;
      if (!ops[k].memory) {
        if (memoryOp) w = dataWidth(base, mods);
        if (doubleOp || plain64) w = 2;
        if (conversion) w = write ? convDst : convSrc;
        if (wideMultiply && (write || sourceIndex == 3)) w = 2;
        if (pairMove && write) w = 2;
      }
      if (r.cls == RegClass::Pred || r.cls == RegClass::Upred || r.cls == RegClass::PredFile) w = 1;
      auto units = unitsOf(r, w, predMask);
      if (units.empty()) continue;
      auto& list = write ? inst.writes : inst.reads;
      std::string name = nameOf(r, w);
      auto same = std::find_if(list.begin(), list.end(),
                               [&](const SassFlowGraph::Operand& o) { return o.name == name; });
      if (same == list.end()) list.push_back({std::move(name), units});
    }
  }
  return inst;
}

SassFlowGraph::SassFlowGraph(const Artifact& sass, size_t function) {
  if (function >= sass.functions.size()) return;
  const ArtifactFunction& fn = sass.functions[function];
  std::vector<std::string_view> pendingLabels;
  std::vector<bool> leader, afterLabel, afterSymbol, afterGlobal;
  std::vector<std::string_view> globals;  // `.global NAME` directives
  std::vector<std::string_view> texts;
  bool afterBranch = true;
  const size_t end = std::min<size_t>(size_t(fn.lastLine) + 1, sass.lines().size());
  const size_t lines = end > fn.firstLine ? end - fn.firstLine : 0;
  insts_.reserve(lines);
  texts.reserve(lines);
  for (uint32_t l = fn.firstLine; l <= fn.lastLine && l < sass.lines().size(); ++l) {
    const LineKind kind = sass.lines()[l].kind;
    std::string_view t = text::trim(sass.lineText(l));
    if (kind == LineKind::Label) {
      pendingLabels.push_back(t.substr(0, t.size() - 1));
      continue;
    }
    if (kind != LineKind::Instruction) {
      kernel_ = kernel_ || (insts_.empty() && t.find("STO_CUDA_ENTRY") != std::string_view::npos);
      if (t.starts_with(".global")) globals.push_back(text::trim(t.substr(7)));
      continue;
    }
    for (auto name : pendingLabels) labels_.emplace_back(name, insts_.size());
    leader.push_back(afterBranch || !pendingLabels.empty());
    afterLabel.push_back(!pendingLabels.empty());
    afterSymbol.push_back(std::any_of(pendingLabels.begin(), pendingLabels.end(),
                                      [](std::string_view n) { return !n.starts_with("."); }));
    afterGlobal.push_back(std::any_of(pendingLabels.begin(), pendingLabels.end(), [&](auto n) {
      return std::find(globals.begin(), globals.end(), n) != globals.end();
    }));
    pendingLabels.clear();
    Instruction inst = sassRegisters(t);
    inst.line = l;
    insts_.push_back(std::move(inst));
    texts.push_back(t);
    const std::string_view base = sassOpcode(t).substr(0, sassOpcode(t).find('.'));
    // A call ends its block too: it goes on after the callee's return.
    afterBranch = oneOf(base, {"BRA", "BRX", "JMP", "JMX", "EXIT", "RET", "BPT", "KILL", "CALL"});
  }
  blockOf_.resize(insts_.size());
  for (size_t i = 0; i < insts_.size(); ++i) {
    if (leader[i]) {
      blockStart_.push_back(uint32_t(i));
      labelled_.push_back(afterLabel[i]);
      startsFunction_.push_back(afterSymbol[i]);
      global_.push_back(afterGlobal[i]);
    }
    blockOf_[i] = uint32_t(blockStart_.size() - 1);
  }
  const size_t blocks = blockStart_.size();
  succs_.assign(blocks, {});
  preds_.assign(blocks, {});
  for (size_t b = 0; b < blocks; ++b) {
    const size_t last = blockEnd(uint32_t(b)) - 1;
    std::string_view t = texts[last];
    std::string_view op = sassOpcode(t);
    const std::string_view base = op.substr(0, op.find('.'));
    const bool guarded = insts_[last].guarded;
    std::vector<uint32_t>& s = succs_[b];
    bool fallsThrough = true;
    if (base == "BRA" || base == "JMP") {
      if (auto target = blockAt(sassBranchTarget(t))) {
        s.push_back(*target);
        fallsThrough = guarded;
      }
    } else if (base == "BRX" || base == "JMX") {  // an indirect branch: any label
      for (const auto& label : labels_)
        if (label.second < insts_.size()) s.push_back(blockOf_[label.second]);
      fallsThrough = guarded;
    } else if (base == "EXIT" || base == "RET" || base == "KILL" ||
               (base == "BPT" && op.find("TRAP") != std::string_view::npos)) {
      fallsThrough = guarded;
    }
    if (fallsThrough && b + 1 < blocks) s.push_back(uint32_t(b + 1));
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
    for (uint32_t x : s) preds_[x].push_back(uint32_t(b));
  }
}

std::optional<uint32_t> SassFlowGraph::blockAt(std::string_view label) const {
  for (const auto& [name, at] : labels_)
    if (name == label && at < insts_.size()) return blockOf_[at];
  return std::nullopt;
}

bool SassFlowGraph::writes(size_t i, uint16_t unit) const {
  if (insts_[i].writesAnyGpr && unit < kPred) return true;
  for (const auto& o : insts_[i].writes)
    if (std::find(o.units.begin(), o.units.end(), unit) != o.units.end()) return true;
  return false;
}

bool SassFlowGraph::kills(size_t i, uint16_t unit) const {
  if (insts_[i].guarded) return false;
  for (const auto& o : insts_[i].writes)
    if (std::find(o.units.begin(), o.units.end(), unit) != o.units.end()) return true;
  return false;
}

bool SassFlowGraph::reads(size_t i, uint16_t unit) const {
  for (const auto& o : insts_[i].reads)
    if (std::find(o.units.begin(), o.units.end(), unit) != o.units.end()) return true;
  return false;
}

std::vector<size_t> SassFlowGraph::definitions(size_t i, uint16_t unit, bool& fromEntry) const {
  std::vector<size_t> out;
  // Scans instructions [start, end) backwards; true when an unconditional write ends the path.
  auto scan = [&](size_t start, size_t end) {
    for (size_t j = end; j-- > start;)
      if (writes(j, unit)) {
        out.push_back(j);
        if (kills(j, unit)) return true;
      }
    return false;
  };
  const uint32_t b0 = blockOf_[i];
  if (scan(blockStart_[b0], i)) return out;
  if (b0 == 0) fromEntry = true;
  if (walkBlocks(preds_[b0], preds_, scan)) fromEntry = true;
  return out;
}

std::vector<size_t> SassFlowGraph::uses(size_t i, uint16_t unit) const {
  std::vector<size_t> out;
  auto scan = [&](size_t start, size_t end) {
    for (size_t j = start; j < end; ++j) {
      if (reads(j, unit)) out.push_back(j);
      if (kills(j, unit)) return true;
    }
    return false;
  };
  const uint32_t b0 = blockOf_[i];
  if (!scan(i + 1, blockEnd(b0))) walkBlocks(succs_[b0], succs_, scan);
  return out;
}

size_t SassFlowGraph::blockEnd(uint32_t b) const {
  return b + 1 < blockStart_.size() ? blockStart_[b + 1] : insts_.size();
}

bool SassFlowGraph::walkBlocks(std::vector<uint32_t> work,
                               const std::vector<std::vector<uint32_t>>& next,
                               const std::function<bool(size_t, size_t)>& scan) const {
  std::vector<bool> seen(blockStart_.size(), false);
  bool entry = false;
  while (!work.empty()) {
    const uint32_t b = work.back();
    work.pop_back();
    if (seen[b]) continue;
    seen[b] = true;
    if (scan(blockStart_[b], blockEnd(b))) continue;
    if (b == 0) entry = true;
    work.insert(work.end(), next[b].begin(), next[b].end());
  }
  return entry;
}

ValueFlow SassFlowGraph::flowOf(uint32_t line) const {
  ValueFlow flow;
  auto at = std::find_if(insts_.begin(), insts_.end(),
                         [&](const Instruction& x) { return x.line == line; });
  if (at == insts_.end()) return flow;
  const size_t i = size_t(at - insts_.begin());
  flow.instruction = true;
  auto toLines = [&](std::set<size_t> found) {
    std::vector<uint32_t> lines;
    for (size_t j : found) lines.push_back(insts_[j].line);
    return lines;
  };
  for (const Operand& o : at->reads) {
    RegisterFlow r{o.name, {}, false};
    std::set<size_t> found;
    for (uint16_t u : o.units)
      for (size_t j : definitions(i, u, r.fromEntry)) found.insert(j);
    r.lines = toLines(std::move(found));
    flow.sources.push_back(std::move(r));
  }
  for (const Operand& o : at->writes) {
    RegisterFlow r{o.name, {}, false};
    std::set<size_t> found;
    for (uint16_t u : o.units)
      for (size_t j : uses(i, u)) found.insert(j);
    r.lines = toLines(std::move(found));
    flow.results.push_back(std::move(r));
  }
  return flow;
}

ValueFlow valueFlow(const Artifact& sass, uint32_t line) {
  if (line >= sass.lines().size() || sass.lines()[line].function < 0) return {};
  return SassFlowGraph(sass, size_t(sass.lines()[line].function)).flowOf(line);
}

std::string describeValueFlow(const Artifact& sass, const LineMap& map, const ValueFlow& flow,
                              size_t perRegister) {
  auto site = [&](uint32_t l) {
    std::string s = "the " + std::string(sassOpcode(sass.lineText(l)));
    if (auto a = sassAddress(sass.lineText(l))) {
      char addr[16];
      std::snprintf(addr, sizeof addr, "0x%04x", *a);
      s += " at " + std::string(addr);
    }
    const LineOrigin& o = map.origin(Stage::Sass, l);
    if (o.attribution == Attribution::Direct) s += " — line " + std::to_string(o.user.line);
    return s;
  };
  auto list = [&](const std::vector<uint32_t>& lines, std::string_view joint) {
    std::string s;
    for (size_t k = 0; k < lines.size() && k < perRegister; ++k)
      s += (k ? std::string(joint) : "") + site(lines[k]);
    if (lines.size() > perRegister)
      s += " and " + std::to_string(lines.size() - perRegister) + " more";
    return s;
  };
  std::string out;
  auto add = [&](const std::string& part) { out += (out.empty() ? "" : "; ") + part; };
  for (const auto& r : flow.sources) {
    std::string s = r.reg + " from ";
    if (r.lines.empty())
      s += "the function's start (set before it runs)";
    else
      s += list(r.lines, " or ") + (r.fromEntry ? " or the function's start" : "");
    add(s);
  }
  for (const auto& r : flow.results)
    add(r.reg + (r.lines.empty() ? " not read" : " used by " + list(r.lines, ", ")));
  return out;
}

}  // namespace ks
