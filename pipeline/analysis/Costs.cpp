// Costs per SASS instruction, per source line and per kernel. See Costs.h.
#include "Costs.h"

#include <algorithm>
#include <cstring>
#include <future>
#include <thread>
#include <unordered_map>

#include "Liveness.h"
#include "Parsers.h"
#include "SassText.h"
#include "TextUtil.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

namespace ks {

ControlCode decodeControlCode(uint64_t high) {
  // Bits 105..125 of the instruction, i.e. 41..61 of its high word: stall (4), yield (1),
  // write barrier (3), read barrier (3), wait mask (6), reuse (4).
  ControlCode c;
  c.stall = (high >> 41) & 0xf;
  c.yield = (high >> 45) & 0x1;
  c.writeBarrier = (high >> 46) & 0x7;
  c.readBarrier = (high >> 49) & 0x7;
  c.waitMask = (high >> 52) & 0x3f;
  c.reuse = (high >> 58) & 0xf;
  return c;
}

std::string controlCodeNotation(const ControlCode& c) {
  std::string s = "S" + std::string(c.stall < 10 ? "0" : "") + std::to_string(c.stall);
  s += c.yield ? " Y" : " -";
  s += c.writeBarrier == 7 ? " W-" : " W" + std::to_string(c.writeBarrier);
  s += c.readBarrier == 7 ? " R-" : " R" + std::to_string(c.readBarrier);
  if (c.waitMask) {
    s += " wait{";
    bool first = true;
    for (int b = 0; b < 6; ++b)
      if (c.waitMask & (1u << b)) {
        s += (first ? "" : ",") + std::to_string(b);
        first = false;
      }
    s += "}";
  }
  if (c.reuse) {
    s += " reuse{";
    for (int b = 0; b < 4; ++b)
      if (c.reuse & (1u << b)) s += char('a' + b);
    s += "}";
  }
  return s;
}

namespace {

/// Calls `f(functionIndex, line, address)` for every SASS instruction line with an address.
template <class F>
void forEachInstruction(const Artifact& sass, F&& f) {
  for (size_t fi = 0; fi < sass.functions.size(); ++fi) {
    const auto& fn = sass.functions[fi];
    for (uint32_t l = fn.firstLine; l <= fn.lastLine && l < sass.lines().size(); ++l) {
      if (sass.lines()[l].kind != LineKind::Instruction) continue;
      if (auto a = sassAddress(sass.lineText(l))) f(fi, l, *a);
    }
  }
}

}  // namespace

std::unordered_map<std::string, CubinFunction> cubinFunctions(std::string_view cubin,
                                                              std::string* error) {
  std::unordered_map<std::string, CubinFunction> out;
  // LLVM's object reader finds each function's `.text.NAME` and the `.nv.info` attributes.
  auto object = llvm::object::ObjectFile::createELFObjectFile(
      llvm::MemoryBufferRef(llvm::StringRef(cubin.data(), cubin.size()), "cubin"));
  if (!object) {
    if (error) *error = "the cubin is not an ELF file: " + llvm::toString(object.takeError());
    return out;
  }
  llvm::StringRef info;
  for (const auto& section : (*object)->sections()) {
    auto name = section.getName();
    auto contents = section.getContents();
    if (!name || !contents) {
      if (!name) llvm::consumeError(name.takeError());
      if (!contents) llvm::consumeError(contents.takeError());
      continue;
    }
    if (name->starts_with(".text."))
      out[name->drop_front(6).str()].code = std::string_view(contents->data(), contents->size());
    if (*name == ".nv.info") info = *contents;
  }
  std::unordered_map<uint64_t, std::string> symbols;  // by index, as `.nv.info` names them
  for (const auto& symbol : (*object)->symbols()) {
    auto name = symbol.getName();
    if (!name) {
      llvm::consumeError(name.takeError());
      continue;
    }
    symbols[symbol.getRawDataRefImpl().d.b] = name->str();
  }
  // `.nv.info` entries: format and attribute bytes, then (format 4) a 16-bit size and that
  // many bytes, or (formats 1..3) a 16-bit value. EIATTR_REGCOUNT (0x2f): symbol, count.
  for (size_t at = 0; at + 4 <= info.size();) {
    const uint8_t format = uint8_t(info[at]), attribute = uint8_t(info[at + 1]);
    uint16_t size = 0;
    std::memcpy(&size, info.data() + at + 2, 2);
    const size_t payload = format == 4 ? size : 0;
    if (at + 4 + payload > info.size()) break;
    if (format == 4 && attribute == 0x2f && size == 8) {
      uint32_t symbol = 0, count = 0;
      std::memcpy(&symbol, info.data() + at + 4, 4);
      std::memcpy(&count, info.data() + at + 8, 4);
      auto it = symbols.find(symbol);
      if (it != symbols.end()) {
        auto fn = out.find(it->second);
        if (fn != out.end()) fn->second.registers = count;
      }
    }
    at += 4 + payload;
  }
  return out;
}

size_t countLiveRegisters(const Artifact& sass, std::string_view cubin, SassCosts& costs) {
  return countLiveRegisters(sass, cubinFunctions(cubin), costs);
}

size_t countLiveRegisters(const Artifact& sass, const CubinFunctions& functions, SassCosts& costs) {
  costs.lines.resize(sass.lines().size());
  // One function's counts into its own lines of `costs`: functions share nothing, so two
  // threads count them (the liveness is most of the costs' time, and a whole compile leaves
  // the other core idle here).
  auto countFunction = [&](size_t fi) {
    auto it = functions.find(sass.functions[fi].symbol);
    const CubinFunction fn = it == functions.end() ? CubinFunction{} : it->second;
    const SassFlowGraph graph(sass, fi);
    // Without the count, every register may be one the function keeps.
    const auto counts = liveCounts(sass, graph, fn.code, fn.registers ? fn.registers : 255);
    size_t counted = 0;
    for (size_t i = 0; i < counts.size(); ++i) {
      if (!counts[i]) continue;
      const uint32_t l = graph.instructions()[i].line;
      InstructionCost& c = costs.lines[l];
      c.address = sassAddress(sass.lineText(l)).value_or(0);
      c.hasLive = true;
      c.gpr = counts[i]->gpr;
      c.pred = counts[i]->pred;
      c.ugpr = counts[i]->ugpr;
      ++counted;
    }
    return counted;
  };
  // The functions split where half of the listing's lines lie on each side.
  size_t split = sass.functions.size();
  if (std::thread::hardware_concurrency() > 1 && sass.functions.size() > 1) {
    const uint32_t half = sass.functions.back().lastLine / 2;
    split = 1;
    while (split + 1 < sass.functions.size() && sass.functions[split].firstLine < half) ++split;
  }
  auto second =
      std::async(split < sass.functions.size() ? std::launch::async : std::launch::deferred, [&] {
        size_t n = 0;
        for (size_t fi = split; fi < sass.functions.size(); ++fi) n += countFunction(fi);
        return n;
      });
  size_t counted = 0;
  for (size_t fi = 0; fi < split; ++fi) counted += countFunction(fi);
  counted += second.get();
  costs.liveCounts = counted != 0;
  return counted;
}

size_t readControlCodes(const Artifact& sass, std::string_view cubin, std::string_view arch,
                        SassCosts& costs, std::string* error) {
  return readControlCodes(sass, cubinFunctions(cubin, error), arch, costs, error);
}

size_t readControlCodes(const Artifact& sass, const CubinFunctions& text, std::string_view arch,
                        SassCosts& costs, std::string* error) {
  std::string_view digits = arch.substr(std::min<size_t>(arch.size(), 3));
  uint32_t sm = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') break;
    sm = sm * 10 + uint32_t(c - '0');
  }
  if (!arch.starts_with("sm_") || sm < 70) {
    if (error) *error = "control codes are decoded for sm_70 and later";
    return 0;
  }
  if (text.empty()) return 0;
  costs.lines.resize(sass.lines().size());
  size_t read = 0;
  forEachInstruction(sass, [&](size_t fi, uint32_t l, uint32_t address) {
    auto it = text.find(sass.functions[fi].symbol);
    if (it == text.end() || address % 16 != 0 || size_t(address) + 16 > it->second.code.size())
      return;
    uint64_t high = 0;
    std::memcpy(&high, it->second.code.data() + address + 8, 8);  // little-endian, as ELF says
    InstructionCost& c = costs.lines[l];
    c.address = address;
    c.hasControl = true;
    c.control = decodeControlCode(high);
    ++read;
  });
  costs.controlCodes = read != 0;
  return read;
}

std::string_view memorySpace(std::string_view opcode) {
  std::string_view base = opcode.substr(0, std::min(opcode.size(), opcode.find('.')));
  if (base == "LDG" || base == "STG" || base == "ATOMG" || base == "RED" || base == "REDG")
    return "global";
  if (base == "LDS" || base == "STS" || base == "ATOMS" || base == "LDSM") return "shared";
  if (base == "LDGSTS") return "global→shared";
  if (base == "LDL" || base == "STL") return "local";
  if (base == "LDC") return "constant";
  if (base == "LD" || base == "ST" || base == "ATOM") return "generic";
  if (base == "TEX" || base == "TLD" || base == "TLD4" || base == "SULD" || base == "SUST")
    return "texture";
  return {};
}

uint32_t memoryWidth(std::string_view opcode) {
  uint32_t bits = 32;
  size_t at = opcode.find('.');
  while (at != std::string_view::npos) {
    size_t next = opcode.find('.', at + 1);
    std::string_view mod =
        opcode.substr(at + 1, next == std::string_view::npos ? next : next - at - 1);
    if (mod == "64") bits = 64;
    if (mod == "128") bits = 128;
    if (mod == "U8" || mod == "S8") bits = 8;
    if (mod == "U16" || mod == "S16") bits = 16;
    at = next;
  }
  return bits;
}

namespace {

bool isStoreOp(std::string_view base) { return base.starts_with("ST") || base == "SUST"; }
bool isAtomicOp(std::string_view base) {
  return base.starts_with("ATOM") || base.starts_with("RED");
}

}  // namespace

void classifyLocal(const Artifact& sass, const Artifact& ptx,
                   const std::vector<uint32_t>& ptxLineOfSass,
                   const std::function<std::optional<uint32_t>(const std::string&)>& spillsOf,
                   SassCosts& costs) {
  costs.lines.resize(sass.lines().size());
  // Functions whose PTX keeps a local depot: LLVM put an array in local memory.
  std::unordered_map<std::string, bool> depot;
  for (const auto& f : ptx.functions) {
    bool has = false;
    for (uint32_t l = f.firstLine; !has && l <= f.lastLine && l < ptx.lines().size(); ++l)
      has = ptx.lineText(l).find("__local_depot") != std::string_view::npos;
    depot[f.symbol] = has;
  }
  for (const auto& fn : sass.functions) {
    auto d = depot.find(fn.symbol);
    const bool hasDepot = d != depot.end() && d->second;
    const std::optional<uint32_t> spills = spillsOf ? spillsOf(fn.symbol) : std::nullopt;
    for (uint32_t l = fn.firstLine; l <= fn.lastLine && l < sass.lines().size(); ++l) {
      if (sass.lines()[l].kind != LineKind::Instruction) continue;
      std::string_view op = sassOpcode(sass.lineText(l));
      if (!op.starts_with("LDL") && !op.starts_with("STL")) continue;
      bool array;
      if (!hasDepot || (spills && *spills == 0)) {
        array = hasDepot;
      } else {
        uint32_t p = l < ptxLineOfSass.size() ? ptxLineOfSass[l] : UINT32_MAX;
        std::string_view pt = p < ptx.lines().size() ? text::trim(ptx.lineText(p)) : "";
        array = pt.starts_with("ld.") || pt.starts_with("st.");
      }
      costs.lines[l].local = array ? LocalUse::Array : LocalUse::Spill;
    }
  }
}

std::vector<LocalArray> findLocalArrays(std::string_view irText,
                                        const std::vector<std::string>& functions,
                                        const LineMap& lineMap) {
  std::vector<LocalArray> out;
  if (irText.empty() || functions.empty()) return out;
  llvm::LLVMContext context;
  llvm::SMDiagnostic err;
  auto module =
      llvm::parseAssemblyString(llvm::StringRef(irText.data(), irText.size()), err, context);
  if (!module) return out;
  DebugChains chains;
  auto userLine = [&](const llvm::Instruction& i) -> std::optional<SourceLine> {
    const llvm::DILocation* loc = i.getDebugLoc().get();
    if (!loc) return std::nullopt;
    LineOrigin o = lineMap.attributeChain(chains.of(loc));
    if (o.attribution != Attribution::Direct) return std::nullopt;
    return SourceLine{o.user.file, o.user.line};
  };
  for (const auto& name : functions) {
    const llvm::Function* f = module->getFunction(name);
    if (!f || f->isDeclaration()) continue;
    for (const auto& bb : *f)
      for (const auto& inst : bb) {
        const auto* alloca = llvm::dyn_cast<llvm::AllocaInst>(&inst);
        if (!alloca) continue;
        LocalArray a;
        a.function = name;
        a.name = alloca->getName().str();
        if (auto size = alloca->getAllocationSize(module->getDataLayout()))
          a.bytes = size->getFixedValue();
        // The users through address computations; a GEP with an index not known until run
        // time is why SROA could not split the array into registers.
        std::vector<const llvm::Value*> work{alloca};
        for (size_t w = 0; w < work.size() && w < 4096; ++w)
          for (const llvm::User* u : work[w]->users()) {
            const auto* ui = llvm::dyn_cast<llvm::Instruction>(u);
            if (!ui) continue;
            if (!a.usedAt) a.usedAt = userLine(*ui);
            if (const auto* gep = llvm::dyn_cast<llvm::GetElementPtrInst>(ui)) {
              if (!gep->hasAllConstantIndices())
                if (auto at = userLine(*gep);
                    at &&
                    std::find(a.indexedAt.begin(), a.indexedAt.end(), *at) == a.indexedAt.end())
                  a.indexedAt.push_back(*at);
              work.push_back(gep);
            } else if (llvm::isa<llvm::CastInst>(ui) || llvm::isa<llvm::PHINode>(ui) ||
                       llvm::isa<llvm::SelectInst>(ui)) {
              if (std::find(work.begin(), work.end(), ui) == work.end()) work.push_back(ui);
            }
          }
        out.push_back(std::move(a));
      }
  }
  return out;
}

LineCost costOf(const Artifact& sass, const SassCosts& costs, const std::vector<uint32_t>& lines) {
  LineCost c;
  for (uint32_t l : lines) {
    if (l >= sass.lines().size() || sass.lines()[l].kind != LineKind::Instruction) continue;
    ++c.instructions;
    const InstructionCost* ic = l < costs.lines.size() ? &costs.lines[l] : nullptr;
    if (ic && ic->hasLive) {
      c.hasLive = true;
      c.peakGpr = std::max(c.peakGpr, ic->gpr);
      c.peakPred = std::max(c.peakPred, ic->pred);
      c.peakUgpr = std::max(c.peakUgpr, ic->ugpr);
    }
    if (ic && ic->hasControl) {
      c.hasControl = true;
      c.issueCycles += ic->control.stall;
    }
    std::string_view op = sassOpcode(sass.lineText(l));
    std::string_view space = memorySpace(op);
    if (space.empty()) continue;
    std::string_view base = op.substr(0, std::min(op.size(), op.find('.')));
    if (base == "LDL") ++c.ldl;
    if (base == "STL") ++c.stl;
    if (ic && ic->local == LocalUse::Spill) ++c.spillOps;
    if (ic && ic->local == LocalUse::Array) ++c.arrayOps;
    auto it = std::find_if(c.memory.begin(), c.memory.end(),
                           [&](const MemoryOps& m) { return m.space == space; });
    if (it == c.memory.end()) it = c.memory.insert(c.memory.end(), MemoryOps{std::string(space)});
    if (isAtomicOp(base))
      ++it->atomics;
    else if (isStoreOp(base))
      ++it->stores;
    else
      ++it->loads;
    it->widestBits = std::max(it->widestBits, memoryWidth(op));
  }
  return c;
}

namespace {

/// The IR's predicted accesses and divergent branches written on `src` or inlined through
/// a call on it.
void addAccess(const AccessFacts& facts, const SourceLine& src, LineCost& c) {
  auto on = [&](const auto& fact) {
    return fact.line == src ||
           std::find(fact.callSites.begin(), fact.callSites.end(), src) != fact.callSites.end();
  };
  const bool generic = std::any_of(c.memory.begin(), c.memory.end(),
                                   [](const MemoryOps& m) { return m.space == "generic"; });
  for (const MemoryAccess& a : facts.accesses) {
    if (!on(a)) continue;
    std::string head = a.head(), how = a.how();
    // Reached through a generic pointer, a shared or local access that the SASS does with
    // generic instructions pays for the address conversion on every access.
    const bool costsGeneric = a.throughGeneric && a.space != "global" && generic;
    if (costsGeneric) how += "; done by generic LD/ST, not " + a.space + " instructions";
    auto it = std::find_if(c.access.begin(), c.access.end(), [&](const LineCost::Access& x) {
      return x.head == head && x.how == how;
    });
    if (it == c.access.end())
      it = c.access.insert(c.access.end(), {std::move(head), std::move(how), 0, costsGeneric});
    ++it->count;
    if (a.space == "shared" && a.bankWays > 1)
      c.worstBankWays = std::max(c.worstBankWays, a.bankWays);
    if (a.space == "global" && a.idealSectors && a.sectors > a.idealSectors)
      c.worstSectorFactor = std::max(c.worstSectorFactor, a.sectors / a.idealSectors);
    if (a.space == "global" && a.pattern == AccessPattern::Strided && !a.symbolicStride.empty())
      c.runTimeStride = a.symbolicStride;
  }
  for (const DivergentBranch& b : facts.branches)
    if (on(b)) {
      c.mayDiverge = true;
      c.divergesOnThreadIndex = c.divergesOnThreadIndex || b.onThreadIndex;
    }
}

}  // namespace

LineCost lineCost(const Artifact& sass, const LineMap& map, const SassCosts& costs,
                  const SourceLine& src) {
  const StageLines& sl = map.linesFor(Stage::Sass, src);
  std::vector<uint32_t> lines = sl.direct;
  lines.insert(lines.end(), sl.inlined.begin(), sl.inlined.end());
  std::sort(lines.begin(), lines.end());
  lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
  LineCost c = costOf(sass, costs, lines);
  addAccess(costs.access, src, c);
  return c;
}

namespace {

std::string times(uint32_t n) { return "×" + std::to_string(n); }

}  // namespace

std::string lineCostHint(const LineCost& c) {
  std::string s;
  auto add = [&](const std::string& part) { s += (s.empty() ? "" : " · ") + part; };
  if (c.hasLive) add(std::to_string(c.peakGpr) + " live");
  if (c.ldl) add("LDL " + times(c.ldl));
  if (c.stl) add("STL " + times(c.stl));
  if (c.spillOps && c.spillOps == c.ldl + c.stl)
    s += " (spill)";
  else if (c.spillOps)
    s += " (" + std::to_string(c.spillOps) + " spill)";
  // What the memory access costs, where a warp pays more than once for it.
  if (c.worstBankWays) add(std::to_string(c.worstBankWays) + "-way conflict");
  if (c.worstSectorFactor > 1) add(std::to_string(c.worstSectorFactor) + "× sectors");
  if (!c.worstSectorFactor && !c.runTimeStride.empty()) add("stride " + c.runTimeStride);
  return s;
}

std::vector<std::string> lineAccessTexts(const LineCost& c) {
  std::vector<std::string> out;
  for (const LineCost::Access& a : c.access)
    out.push_back(a.head + " " + times(a.count) + ": " + a.how);
  if (c.mayDiverge)
    out.emplace_back(c.divergesOnThreadIndex ? "branch may diverge (depends on the thread index)"
                                             : "branch may diverge (depends on per-thread data)");
  return out;
}

std::string lineCostText(const LineCost& c) {
  std::string s;
  auto add = [&](const std::string& part) { s += (s.empty() ? "" : "; ") + part; };
  if (c.hasLive) {
    std::string live = "peak " + std::to_string(c.peakGpr) +
                       (c.peakGpr == 1 ? " register live" : " registers live");
    if (c.peakPred)
      live += ", " + std::to_string(c.peakPred) + (c.peakPred == 1 ? " predicate" : " predicates");
    if (c.peakUgpr) live += ", " + std::to_string(c.peakUgpr) + " uniform";
    add(live);
  }
  if (c.ldl || c.stl) {
    std::string local = "local memory: LDL " + times(c.ldl) + ", STL " + times(c.stl);
    if (c.spillOps) local += ", " + std::to_string(c.spillOps) + " spill";
    if (c.arrayOps) local += ", " + std::to_string(c.arrayOps) + " per-thread array";
    add(local);
  }
  for (const auto& m : c.memory) {
    if (m.space == "local" || m.space == "constant") continue;
    std::string part = m.space + ":";
    if (m.loads) part += " " + std::to_string(m.loads) + (m.loads == 1 ? " load" : " loads");
    if (m.stores) part += " " + std::to_string(m.stores) + (m.stores == 1 ? " store" : " stores");
    if (m.atomics)
      part += " " + std::to_string(m.atomics) + (m.atomics == 1 ? " atomic" : " atomics");
    part += " (" + std::to_string(m.widestBits) + "-bit)";
    add(part);
  }
  for (const std::string& a : lineAccessTexts(c)) add(a);
  if (c.hasControl)
    add("issue ≥ " + std::to_string(c.issueCycles) + " cycles (stall counts: a lower bound)");
  return s;
}

namespace {

/// 1 + the highest general register `R<n>` the function's SASS names (R1.64 counts as 2).
uint32_t highestRegisterOf(const Artifact& sass, const ArtifactFunction& fn) {
  uint32_t highest = 0;
  for (uint32_t l = fn.firstLine; l <= fn.lastLine && l < sass.lines().size(); ++l) {
    if (sass.lines()[l].kind != LineKind::Instruction) continue;
    std::string_view t = sass.lineText(l);
    size_t close = t.find("*/");
    if (close != std::string_view::npos) t.remove_prefix(close + 2);
    for (size_t i = 0; i + 1 < t.size(); ++i) {
      if (t[i] != 'R' || (i > 0 && (std::isalnum(uint8_t(t[i - 1])) || t[i - 1] == '_'))) continue;
      size_t j = i + 1;
      uint32_t n = 0;
      while (j < t.size() && std::isdigit(uint8_t(t[j]))) n = n * 10 + uint32_t(t[j++] - '0');
      if (j == i + 1) continue;
      uint32_t width = 1;
      if (t.substr(j).starts_with(".64")) width = 2;
      if (t.substr(j).starts_with(".128")) width = 4;
      highest = std::max(highest, n + width);
    }
  }
  return highest;
}

}  // namespace

// One pass over the kernel's SASS gathers every figure of its cost at once (lines, peaks,
// local memory, stalls); cut into pieces, each would walk the SASS again.
// NOLINTNEXTLINE(readability-function-size)
KernelCost kernelCost(const Artifact& sass, const LineMap& map, const SassCosts& costs,
                      const std::string& symbol, const std::optional<KernelResources>& res,
                      std::string_view arch, uint32_t blockSize) {
  KernelCost k;
  k.symbol = symbol;
  const ArtifactFunction* fn = nullptr;
  for (const auto& f : sass.functions)
    if (f.symbol == symbol) fn = &f;
  if (!fn) return k;
  std::vector<uint32_t> lines;
  for (uint32_t l = fn->firstLine; l <= fn->lastLine && l < sass.lines().size(); ++l)
    if (sass.lines()[l].kind == LineKind::Instruction) lines.push_back(l);
  LineCost whole = costOf(sass, costs, lines);
  k.hasLive = whole.hasLive;
  k.peakGpr = whole.peakGpr;
  k.ldl = whole.ldl;
  k.stl = whole.stl;
  k.spillOps = whole.spillOps;
  k.arrayOps = whole.arrayOps;
  auto addLine = [&](std::vector<SourceLine>& v, uint32_t l) {
    const LineOrigin& o = map.origin(Stage::Sass, l);
    if (o.attribution != Attribution::Direct) return;
    SourceLine s{o.user.file, o.user.line};
    if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
  };
  for (uint32_t l : lines) {
    const InstructionCost& ic = l < costs.lines.size() ? costs.lines[l] : InstructionCost{};
    if (ic.hasLive && ic.gpr == k.peakGpr) addLine(k.peakLines, l);
    if (ic.local == LocalUse::Spill) addLine(k.spillLines, l);
    if (ic.local == LocalUse::Array) addLine(k.arrayLines, l);
  }
  for (auto* v : {&k.peakLines, &k.spillLines, &k.arrayLines}) std::sort(v->begin(), v->end());
  k.highestRegister = highestRegisterOf(sass, *fn);
  if (!res) return k;
  k.allocated = res->registers;
  auto limits = archLimits(arch);
  if (limits && k.allocated) {
    OccupancyInput in;
    in.blockSize = blockSize;
    in.registers = k.allocated;
    in.staticShared = res->sharedMemory;
    in.barriers = res->barriers;
    k.now = computeOccupancy(*limits, in);
    for (uint32_t r = k.allocated; r-- > 1;) {
      in.registers = r;
      Occupancy o = computeOccupancy(*limits, in);
      if (o.warpsPerSm > k.now->warpsPerSm) {
        k.stepRegisters = r;
        k.step = o;
        break;
      }
    }
  }
  if (k.hasLive && k.allocated) {
    std::string note;
    if (k.allocated == k.peakGpr) {
      note = "every allocated register is live at the peak";
    } else {
      note = std::to_string(k.allocated - std::min<uint32_t>(k.allocated, k.peakGpr)) +
             " more allocated than live at the peak";
      std::vector<std::string> why;
      if (k.highestRegister > k.peakGpr)
        why.push_back("registers are named, not packed: the code uses R0..R" +
                      std::to_string(k.highestRegister - 1) + " though at most " +
                      std::to_string(k.peakGpr) + " hold a value at once");
      if (k.allocated > k.highestRegister)
        why.push_back("ptxas reserves " + std::to_string(k.allocated - k.highestRegister) +
                      " beyond the highest it names (two for the ABI's program counter and "
                      "stack, rounded to an even count)");
      if (!why.empty()) {
        note += ": ";
        for (size_t i = 0; i < why.size(); ++i) note += (i ? "; " : "") + why[i];
      }
    }
    k.registerNote = note;
  }
  if (k.allocated && k.now) {
    std::string s = std::to_string(k.allocated) + " registers → " + k.now->percent() + " at " +
                    std::to_string(blockSize) + " threads";
    if (k.hasLive) {
      s += "; the peak is " + std::to_string(k.peakGpr) + " live";
      if (!k.peakLines.empty()) {
        s += " at line";
        s += k.peakLines.size() > 1 ? "s " : " ";
        for (size_t i = 0; i < k.peakLines.size() && i < 4; ++i)
          s += (i ? ", " : "") + std::to_string(k.peakLines[i].line);
        if (k.peakLines.size() > 4) s += ", …";
      }
    }
    if (k.step)
      s += "; at ≤ " + std::to_string(*k.stepRegisters) + " registers: " + k.step->percent();
    else if (!k.now->limitedBy.empty() && k.now->limitText() != "registers")
      s += "; fewer registers would not raise it (limited by " + k.now->limitText() + ")";
    k.summary = std::move(s);
  }
  return k;
}

std::vector<std::pair<uint32_t, LineCost>> fileCosts(const Artifact& sass, const LineMap& map,
                                                     const SassCosts& costs,
                                                     const std::string& file) {
  std::vector<std::pair<uint32_t, LineCost>> out;
  // A call site whose code is all inlined costs what it inlined.
  for (const SourceLine& src : map.sourceLinesWithCode(Stage::Sass, true))
    if (src.file == file) out.emplace_back(src.line, lineCost(sass, map, costs, src));
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

std::vector<LookHere> linesToLookAtFirst(const std::vector<std::pair<uint32_t, LineCost>>& costs,
                                         const std::vector<KernelCost>& kernels,
                                         const std::string& file, size_t limit) {
  std::vector<LookHere> out;
  auto add = [&](uint32_t line, std::string why) {
    if (out.size() >= limit) return;
    for (const auto& l : out)
      if (l.line == line) return;
    out.push_back({line, std::move(why)});
  };
  for (const auto& [line, c] : costs)
    if (c.spillOps)
      add(line, "spills: " + std::to_string(c.spillOps) + " local-memory instruction" +
                    (c.spillOps == 1 ? "" : "s") + " ptxas added");
  for (const auto& [line, c] : costs)
    if (c.arrayOps)
      add(line, "a per-thread array in local memory: " + std::to_string(c.arrayOps) +
                    " local-memory instruction" + (c.arrayOps == 1 ? "" : "s"));
  for (const auto& k : kernels)
    for (const auto& p : k.peakLines)
      if (p.file == file)
        add(p.line, "the register peak of " + k.symbol + ": " + std::to_string(k.peakGpr) +
                        " live of " + std::to_string(k.allocated) + " allocated");
  std::vector<std::pair<uint32_t, uint32_t>> cycles;
  for (const auto& [line, c] : costs)
    if (c.hasControl && c.issueCycles) cycles.emplace_back(c.issueCycles, line);
  std::sort(cycles.begin(), cycles.end(), std::greater<>());
  for (size_t i = 0; i < cycles.size() && i < 2; ++i)
    add(cycles[i].second, "the most issue cycles: ≥ " + std::to_string(cycles[i].first));
  return out;
}

std::vector<std::string> describeWaits(const Artifact& sass, const LineMap& map,
                                       const SassCosts& costs, uint32_t line) {
  std::vector<std::string> out;
  if (line >= costs.lines.size() || !costs.lines[line].hasControl) return out;
  const ControlCode& c = costs.lines[line].control;
  if (!c.waitMask || sass.lines()[line].function < 0) return out;
  const ArtifactFunction& fn = sass.functions[size_t(sass.lines()[line].function)];
  for (uint32_t b = 0; b < 6; ++b) {
    if (!(c.waitMask & (1u << b))) continue;
    // A scoreboard counts the operations still pending on it: the instruction waits for
    // every one set since the last wait on it, in listing order (or, found nowhere before
    // it, on a loop's way back: the last one after it).
    std::vector<std::pair<uint32_t, bool>> setters;  // line, set on read
    auto setterAt = [&](uint32_t l) -> std::optional<bool> {
      if (l >= costs.lines.size() || !costs.lines[l].hasControl) return std::nullopt;
      const ControlCode& x = costs.lines[l].control;
      if (x.writeBarrier == b) return false;
      if (x.readBarrier == b) return true;
      return std::nullopt;
    };
    for (uint32_t l = line; l-- > fn.firstLine;) {
      if (auto onRead = setterAt(l)) setters.emplace_back(l, *onRead);
      if (l < costs.lines.size() && costs.lines[l].hasControl &&
          (costs.lines[l].control.waitMask & (1u << b)) && !setters.empty())
        break;
    }
    for (uint32_t l = fn.lastLine + 1; setters.empty() && l-- > line + 1;)
      if (auto onRead = setterAt(l)) setters.emplace_back(l, *onRead);
    std::string s = "waits on SB" + std::to_string(b);
    for (size_t i = 0; i < setters.size() && i < 3; ++i) {
      const auto [setter, onRead] = setters[i];
      char addr[16];
      std::snprintf(addr, sizeof addr, "0x%04x", costs.lines[setter].address);
      s += i ? ", " : ": ";
      s += onRead ? "the sources of the " : "the ";
      s += std::string(sassOpcode(sass.lineText(setter))) + " at " + addr;
      const LineOrigin& o = map.origin(Stage::Sass, setter);
      if (o.attribution == Attribution::Direct) s += " — line " + std::to_string(o.user.line);
      if (setter > line) s += " (from the loop's previous iteration)";
    }
    if (setters.size() > 3) s += " and " + std::to_string(setters.size() - 3) + " more";
    out.push_back(std::move(s));
  }
  return out;
}

std::string describeControl(const Artifact& sass, const LineMap& map, const SassCosts& costs,
                            uint32_t line) {
  if (line >= costs.lines.size() || !costs.lines[line].hasControl) return {};
  const ControlCode& c = costs.lines[line].control;
  std::string s = controlCodeNotation(c) + ": stall " + std::to_string(c.stall) +
                  (c.stall == 1 ? " cycle" : " cycles");
  if (c.writeBarrier != 7)
    s += "; sets SB" + std::to_string(c.writeBarrier) + " until its result is written";
  if (c.readBarrier != 7)
    s += "; sets SB" + std::to_string(c.readBarrier) + " until its sources are read";
  for (const auto& w : describeWaits(sass, map, costs, line)) s += "; " + w;
  if (c.reuse) {
    s += "; keeps operand";
    s += (c.reuse & (c.reuse - 1)) ? "s " : " ";
    bool first = true;
    for (int b = 0; b < 4; ++b)
      if (c.reuse & (1u << b)) {
        s += (first ? "" : ", ") + std::string(1, char('a' + b));
        first = false;
      }
    s += " in the reuse cache";
  }
  return s;
}

}  // namespace ks
