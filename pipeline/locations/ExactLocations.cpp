// Exact inline chains by following the NVPTX backend as it prints: see ExactLocations.h.
#include "ExactLocations.h"

#include <llvm/AsmParser/Parser.h>
#include <llvm/CodeGen/AsmPrinter.h>
#include <llvm/CodeGen/AsmPrinterHandler.h>
#include <llvm/CodeGen/MachineInstr.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LLVMRemarkStreamer.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Support/xxhash.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>

#include <algorithm>
#include <cctype>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>

#include "EditScript.h"
#include "Parsers.h"
#include "TextUtil.h"

namespace ks {

namespace {

void initNvptxOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

llvm::CodeGenOptLevel codegenLevel(int optLevel) {
  // rustc maps -C opt-level to LLVM's codegen level the same way.
  switch (optLevel) {
    case 0:
      return llvm::CodeGenOptLevel::None;
    case 1:
      return llvm::CodeGenOptLevel::Less;
    case 2:
      return llvm::CodeGenOptLevel::Default;
    default:
      return llvm::CodeGenOptLevel::Aggressive;
  }
}

/// An instruction's shape for comparing two printings of the same code: white space
/// folded and virtual register numbers dropped (another LLVM release, or IR without
/// rustc's use order, numbers them differently), so `add.s64 %rd8, %rd20, %rd41;` reads
/// `add.s64 %rd, %rd, %rd;`.
std::string normalized(std::string_view line) {
  std::string out;
  line = text::trim(line);
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i] == '\t' ? ' ' : line[i];
    if (c == ' ' && !out.empty() && out.back() == ' ') continue;
    out += c;
    if (c == '%') {
      while (i + 1 < line.size() && std::isalpha(static_cast<unsigned char>(line[i + 1])))
        out += line[++i];
      while (i + 1 < line.size() && std::isdigit(static_cast<unsigned char>(line[i + 1]))) ++i;
    }
  }
  return out;
}

/// The instruction lines of each function, by symbol.
std::map<std::string, std::vector<uint32_t>> instructionsByFunction(const Artifact& a) {
  std::map<std::string, std::vector<uint32_t>> out;
  for (uint32_t i = 0; i < a.lines().size(); ++i)
    if (a.lines()[i].kind == LineKind::Instruction && a.lines()[i].function >= 0)
      out[a.functions[a.lines()[i].function].symbol].push_back(i);
  return out;
}

/// Pairs the elements of `a` and `b`: those of a longest common subsequence (exact), then
/// equal elements left over between two consecutive common ones (reordered, inexact).
/// Returns false when the sequences differ in too many places to align cheaply.
bool alignSequences(const std::vector<std::string>& a, const std::vector<std::string>& b,
                    std::vector<std::pair<size_t, size_t>>& pairs, std::vector<bool>& exact) {
  // A few reordered instructions are a few edits; beyond this the streams are unrelated.
  constexpr int kMaxEdits = 4000;
  EditScript script = shortestEdit(a, b, kMaxEdits);
  if (!script.complete) return false;
  std::vector<size_t> gapA, gapB;
  auto flushGap = [&] {
    // Within a gap, pair equal shapes in order: reordered instructions.
    std::unordered_map<std::string_view, std::vector<size_t>> unused;  // shape -> gapB, reversed
    for (size_t k = gapB.size(); k-- > 0;) unused[b[gapB[k]]].push_back(gapB[k]);
    for (size_t x : gapA)
      if (auto it = unused.find(a[x]); it != unused.end() && !it->second.empty()) {
        pairs.emplace_back(x, it->second.back());
        it->second.pop_back();
        exact.push_back(false);
      }
    gapA.clear();
    gapB.clear();
  };
  for (const Edit& e : script.edits) {
    if (e.op == EditOp::Equal) {
      flushGap();
      pairs.emplace_back(e.a, e.b);
      exact.push_back(true);
    } else if (e.op == EditOp::Delete) {
      gapA.push_back(e.a);
    } else {
      gapB.push_back(e.b);
    }
  }
  flushGap();
  return true;
}

}  // namespace

std::optional<Diagnostic> chainRegenerationWarning(const ChainTable& table) {
  if (table.error.empty()) return std::nullopt;
  Diagnostic d;
  d.severity = Severity::Warning;
  d.source = "kernelscope";
  d.code = "exact-map";
  d.message = "the exact inline chains of the PTX could not be regenerated (" + table.error +
              "): PTX and SASS lines are placed by rustc's .loc lines, and inlined code by "
              "guessed chains";
  return d;
}

ChainTable assignExactChains(Artifact& ptx, const std::string& llvmIrText, const std::string& arch,
                             int optLevel) {
  llvm::LLVMContext ctx;
  llvm::SMDiagnostic diag;
  auto buffer = llvm::MemoryBuffer::getMemBuffer(llvmIrText, "rustc.ll", false);
  std::unique_ptr<llvm::Module> module = llvm::parseAssembly(*buffer, diag, ctx);
  if (!module) {
    ChainTable table;
    table.error = "cannot read rustc's LLVM IR: " + diag.getMessage().str();
    return table;
  }
  return assignExactChains(ptx, *module, arch, optLevel);
}

namespace {

/// Where each machine instruction's text begins in the AsmPrinter's output, and its exact
/// chain: the AsmPrinter calls the handlers it is given before it prints an instruction
/// (before its `.loc` too), and it writes straight into `out` (an unbuffered stream).
class ChainRecorder final : public llvm::AsmPrinterHandler {
 public:
  struct Mark {
    size_t offset = 0;
    Chain chain;  // empty: no debug location (compiler-generated)
    // Printed under the function's opening `.loc`: LLVM gives no line-0 `.loc` to the
    // instructions without a location before the function's first located one, nor to its
    // frame set-up.
    bool underOpening = false;
  };
  ChainRecorder(const llvm::SmallString<0>& out, std::vector<Mark>& marks)
      : out_(out), marks_(marks) {}

  void beginInstruction(const llvm::MachineInstr* mi) override {
    if (mi->isMetaInstruction()) return;  // prints nothing
    Mark m{out_.size(), {}, false};
    const llvm::DILocation* loc = mi->getDebugLoc().get();
    if (loc && loc->getLine() != 0) {
      m.chain = chains_.of(loc);
      located_ = true;
    } else {
      m.underOpening = !located_ || mi->getFlag(llvm::MachineInstr::FrameSetup);
    }
    marks_.push_back(std::move(m));
  }
  // The function's closing text belongs to no instruction.
  void endFunction(const llvm::MachineFunction*) override {
    marks_.push_back({out_.size(), {}, false});
  }
  void beginFunction(const llvm::MachineFunction*) override { located_ = false; }
  void endModule() override {}

 private:
  const llvm::SmallString<0>& out_;
  std::vector<Mark>& marks_;  // outlives the printer, which may drop its handlers first
  DebugChains chains_;
  bool located_ = false;  // an instruction of this function with a location printed
};

/// The legacy pass manager the NVPTX pipeline is built into, which hands `recorder` to the
/// AsmPrinter as it is added (the pipeline makes the printer itself and keeps no other
/// handle on it). Matched by name: LLVM is built without RTTI.
class RecordingPassManager final : public llvm::legacy::PassManager {
 public:
  explicit RecordingPassManager(std::unique_ptr<ChainRecorder> recorder)
      : recorder_(std::move(recorder)) {}
  void add(llvm::Pass* p) override {
    if (recorder_ && p->getPassName() == "NVPTX Assembly Printer")
      static_cast<llvm::AsmPrinter*>(p)->addAsmPrinterHandler(std::move(recorder_));
    llvm::legacy::PassManager::add(p);
  }
  bool attached() const { return !recorder_; }

 private:
  std::unique_ptr<ChainRecorder> recorder_;
};

/// Gives each instruction line of `ptx` (parsed from the recorded output) the chain of the
/// machine instruction it was printed for: the last mark at or before the line's start.
/// One printed under the function's opening `.loc` keeps that line, as a debugger reads it.
void assignRecordedChains(Artifact& ptx, const std::vector<ChainRecorder::Mark>& marks) {
  size_t next = 0;  // the first mark after the line
  const ChainRecorder::Mark* current = nullptr;
  for (uint32_t i = 0; i < ptx.lines().size(); ++i) {
    const size_t start = ptx.lineStart(i);
    while (next < marks.size() && marks[next].offset <= start) current = &marks[next++];
    ArtifactLine& line = ptx.lines()[i];
    if (line.kind != LineKind::Instruction) continue;
    line.source = LocationSource::Regenerated;
    if (current && current->underOpening && !line.location.empty() && line.function >= 0) {
      std::vector<Frame> loc = line.location;
      loc.front().function = ptx.functions[line.function].demangled;
      line.location = Chain(std::move(loc));
    } else {
      line.location = current ? current->chain : Chain{};
    }
  }
}

}  // namespace

std::unique_ptr<llvm::TargetMachine> nvptxTargetMachine(const llvm::Module& module,
                                                        const std::string& arch, int optLevel,
                                                        std::string& error) {
  initNvptxOnce();
  std::string err;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(module.getTargetTriple(), err);
  if (!target) {
    error = "NVPTX backend unavailable: " + err;
    return nullptr;
  }
  llvm::TargetOptions options;
  // As rustc sets its own up: `unreachable` traps, except after a call that does not return
  // (there the back end's lowering puts an `exit` in front of it instead).
  options.TrapUnreachable = true;
  options.NoTrapAfterNoreturn = true;
  std::unique_ptr<llvm::TargetMachine> tm(
      target->createTargetMachine(module.getTargetTriple(), arch, "", options, std::nullopt,
                                  std::nullopt, codegenLevel(optLevel)));
  if (!tm) error = "cannot create an NVPTX target machine for " + arch;
  return tm;
}

namespace {

/// The PTX the NVPTX backend makes of `module`, each instruction with its exact chain;
/// nullopt (and `error`) when it cannot. With rustc's LLVM, the text is rustc's own.
std::optional<Artifact> emitPtx(llvm::Module& module, const std::string& arch, int optLevel,
                                std::string& error) {
  std::unique_ptr<llvm::TargetMachine> tm = nvptxTargetMachine(module, arch, optLevel, error);
  if (!tm) return std::nullopt;
  module.setDataLayout(tm->createDataLayout());
  llvm::SmallString<0> out;
  llvm::raw_svector_ostream os(out);
  std::vector<ChainRecorder::Mark> marks;
  RecordingPassManager pm(std::make_unique<ChainRecorder>(out, marks));
  if (tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::AssemblyFile)) {
    error = "the NVPTX backend cannot emit assembly";
    return std::nullopt;
  }
  if (!pm.attached()) {
    error = "the NVPTX backend has no assembly printer to follow";
    return std::nullopt;
  }
  pm.run(module);
  Artifact ptx = parsePtx(std::string(out.str()));
  assignRecordedChains(ptx, marks);
  return ptx;
}

/// Regenerates the PTX of the functions in `needed` (rustc's PTX instruction lines by
/// symbol) from `module` with exact chains and aligns it with rustc's PTX, giving their
/// instructions their exact chains. When `keep` is given, the bodies of the other functions
/// are dropped first (each becomes one `unreachable`, keeping its linkage and attributes,
/// which is all a caller's code depends on), so that the backend compiles no more than it
/// must.
void regenerate(Artifact& ptx, llvm::Module& module, const std::string& arch, int optLevel,
                const std::map<std::string, std::vector<uint32_t>>& needed,
                const std::set<const llvm::Function*>* keep, ChainTable& table) {
  for (llvm::Function& f : module) {
    if (f.isDeclaration() || !keep || keep->count(&f)) continue;
    const auto linkage = f.getLinkage();
    f.deleteBody();
    new llvm::UnreachableInst(f.getContext(), llvm::BasicBlock::Create(f.getContext(), "", &f));
    f.setLinkage(linkage);
  }
  std::optional<Artifact> regenerated = emitPtx(module, arch, optLevel, table.error);
  if (!regenerated) return;

  // Align instruction for instruction, per function. The streams are usually identical;
  // when they are not (rustc's LLVM is another release, which may schedule a few
  // instructions differently), the shortest edit script still pairs almost all of them,
  // and the rest pair up by shape within their gap.
  auto ours = instructionsByFunction(*regenerated);
  for (const auto& [symbol, lines] : needed) {
    auto it = ours.find(symbol);
    if (it == ours.end()) {
      ++table.functionsMisaligned;
      continue;
    }
    std::vector<std::string> a, b;
    for (uint32_t l : lines) a.push_back(normalized(ptx.lineText(l)));
    for (uint32_t l : it->second) b.push_back(normalized(regenerated->lineText(l)));
    std::vector<std::pair<size_t, size_t>> pairs;  // (index in a, index in b, exact)
    std::vector<bool> exact;
    if (a == b) {
      for (size_t k = 0; k < a.size(); ++k) pairs.emplace_back(k, k), exact.push_back(true);
    } else if (!alignSequences(a, b, pairs, exact)) {
      ++table.functionsMisaligned;
      continue;
    } else {
      ++table.functionsMisaligned;
    }
    for (size_t p = 0; p < pairs.size(); ++p) {
      uint32_t ptxLine = lines[pairs[p].first];
      table.instructionsMatched += exact[p];
      ArtifactLine& target = ptx.lines()[ptxLine];
      target.location = regenerated->lines()[it->second[pairs[p].second]].location;
      target.source = exact[p] ? LocationSource::Regenerated : LocationSource::Guessed;
    }
  }
}

/// The exact chains of functions regenerated before, by what they were regenerated from
/// (functionKey), for the compiles of this process. Bounded by the instructions it holds; the
/// least recently used go first.
class RegeneratedChains {
 public:
  using Entry = std::vector<std::pair<Chain, LocationSource>>;  // per instruction of the PTX

  std::optional<Entry> find(const std::string& key) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = index_.find(key);
    if (it == index_.end()) return std::nullopt;
    used_.splice(used_.begin(), used_, it->second);
    return it->second->second;
  }
  void add(const std::string& key, Entry entry) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (index_.count(key) || entry.size() > kMaxInstructions) return;
    instructions_ += entry.size();
    used_.emplace_front(key, std::move(entry));
    index_[key] = used_.begin();
    while (instructions_ > kMaxInstructions) {
      instructions_ -= used_.back().second.size();
      index_.erase(used_.back().first);
      used_.pop_back();
    }
  }
  void clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    used_.clear();
    index_.clear();
    instructions_ = 0;
  }

 private:
  // About eight files of 80 kernels (some 30,000 instructions each): a few MiB.
  static constexpr size_t kMaxInstructions = 250000;
  std::mutex mutex_;
  std::list<std::pair<std::string, Entry>> used_;  // most recently used first
  std::unordered_map<std::string, std::list<std::pair<std::string, Entry>>::iterator> index_;
  size_t instructions_ = 0;
};

RegeneratedChains& regeneratedChains() {
  static RegeneratedChains chains;
  return chains;
}

/// What one function's regenerated chains follow from: the arch and opt level, its PTX as
/// rustc printed it (with its `.loc` lines), and its IR with every instruction's chain
/// (metadata numbers, which shift with unrelated code, left out).
std::string functionKey(const Artifact& ptx, const ArtifactFunction& inPtx, const Artifact& ir,
                        const ArtifactFunction& inIr, const std::string& arch, int optLevel) {
  std::string key = "v1\n" + arch + "\n" + std::to_string(optLevel) + "\n";
  for (uint32_t l = inPtx.firstLine; l <= inPtx.lastLine && l < ptx.lines().size(); ++l)
    key.append(ptx.lineText(l)).push_back('\n');
  for (uint32_t l = inIr.firstLine; l <= inIr.lastLine && l < ir.lines().size(); ++l) {
    std::string_view t = ir.lineText(l);
    for (size_t i = 0; i < t.size(); ++i) {
      key.push_back(t[i]);
      if (t[i] == '!')
        while (i + 1 < t.size() && std::isdigit(static_cast<unsigned char>(t[i + 1]))) ++i;
    }
    for (const Frame& f : ir.lines()[l].location)
      key += "\t" + f.file + ":" + std::to_string(f.line) + ":" + std::to_string(f.column) + " " +
             f.function;
    key.push_back('\n');
  }
  const llvm::XXH128_hash_t h = llvm::xxh3_128bits(
      llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t*>(key.data()), key.size()));
  return std::to_string(h.high64) + "-" + std::to_string(h.low64);
}

}  // namespace

void forgetRegeneratedChains() { regeneratedChains().clear(); }

std::string backEndLlvmRelease() { return LLVM_VERSION_STRING; }

std::optional<Artifact> compilePtx(llvm::Module& module, const std::string& arch, int optLevel,
                                   std::string& error, const std::string& remarksFile) {
  if (remarksFile.empty()) return emitPtx(module, arch, optLevel, error);
  // The back end's remarks, as rustc writes them when it runs the back end itself.
  auto remarks =
      llvm::setupLLVMOptimizationRemarks(module.getContext(), remarksFile, "", "yaml", false);
  if (!remarks) {
    error = "cannot write the back end's remarks: " + llvm::toString(remarks.takeError());
    return std::nullopt;
  }
  std::optional<Artifact> ptx = emitPtx(module, arch, optLevel, error);
  (*remarks).get()->keep();
  return ptx;  // the handle finishes the file as it goes
}

ChainTable assignExactChains(Artifact& ptx, llvm::Module& module, const std::string& arch,
                             int optLevel, const Artifact* ir) {
  ChainTable table;
  std::map<std::string, std::vector<uint32_t>> needed = instructionsByFunction(ptx);
  if (!ir) {
    regenerate(ptx, module, arch, optLevel, needed, nullptr, table);
    return table;
  }
  // Functions regenerated before with the same code take those chains.
  std::map<std::string, const ArtifactFunction*> inIr, inPtx;
  for (const auto& f : ir->functions) inIr[f.symbol] = &f;
  for (const auto& f : ptx.functions) inPtx[f.symbol] = &f;
  std::map<std::string, std::string> keys;  // of the functions to regenerate
  std::set<const llvm::Function*> keep;
  bool everyBody = false;  // a function not found in the IR: the backend compiles them all
  for (auto it = needed.begin(); it != needed.end();) {
    auto irf = inIr.find(it->first);
    const llvm::Function* f = module.getFunction(it->first);
    if (irf == inIr.end() || !f || !inPtx.count(it->first)) {
      everyBody = true;
      ++it;
      continue;
    }
    std::string key = functionKey(ptx, *inPtx[it->first], *ir, *irf->second, arch, optLevel);
    auto known = regeneratedChains().find(key);
    if (!known || known->size() != it->second.size()) {
      keys[it->first] = std::move(key);
      keep.insert(f);
      ++it;
      continue;
    }
    for (size_t k = 0; k < it->second.size(); ++k) {
      ArtifactLine& line = ptx.lines()[it->second[k]];
      std::tie(line.location, line.source) = (*known)[k];
      table.instructionsMatched += line.source == LocationSource::Regenerated;
    }
    ++table.functionsReused;
    it = needed.erase(it);
  }
  if (needed.empty()) return table;
  regenerate(ptx, module, arch, optLevel, needed, everyBody ? nullptr : &keep, table);
  if (!table.error.empty()) return table;
  for (const auto& [symbol, key] : keys) {
    RegeneratedChains::Entry entry;
    for (uint32_t l : needed[symbol])
      entry.emplace_back(ptx.lines()[l].location, ptx.lines()[l].source);
    regeneratedChains().add(key, std::move(entry));
  }
  return table;
}

namespace {

/// The number of the first `.file` the PTX declares (any declared file will do for the id
/// lines); empty when it declares none.
std::string firstFileId(const Artifact& ptx) {
  for (size_t i = 0; i < ptx.lines().size(); ++i) {
    std::string_view t = text::trim(ptx.lineText(i));
    if (text::consume(t, ".file")) {
      text::skipBlanks(t);
      if (auto n = text::takeUint(t)) return std::to_string(*n);
    }
  }
  return {};
}

/// The chain a SASS instruction from PTX line `l` takes: none for compiler-generated code.
Chain chainOfPtxLine(const ArtifactLine& l) {
  return l.location.empty() || l.location.front().line == 0 ? Chain{} : l.location;
}

/// Whether two chains are written as the same place comment: the files and lines alike.
bool samePlaceComment(const Chain& a, const Chain& b) {
  if (a.id() == b.id()) return true;
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k)
    if (a[k].file != b[k].file || a[k].line != b[k].line) return false;
  return true;
}

/// Drops the lines of `a` that `keep` says no to, fixing up the function ranges.
void keepLines(Artifact& a, std::string text, const std::vector<bool>& keep) {
  std::vector<uint32_t> newIndex(a.lines().size() + 1, 0);
  std::vector<ArtifactLine> lines;
  lines.reserve(a.lines().size());
  for (uint32_t i = 0; i < a.lines().size(); ++i) {
    newIndex[i] = static_cast<uint32_t>(lines.size());
    if (keep[i]) lines.push_back(std::move(a.lines()[i]));
  }
  newIndex[a.lines().size()] = static_cast<uint32_t>(lines.size());
  for (auto& f : a.functions) {
    f.firstLine = newIndex[std::min<size_t>(f.firstLine, a.lines().size())];
    // The last kept line at or before the old last line.
    const uint32_t end = newIndex[std::min<size_t>(f.lastLine + 1, a.lines().size())];
    f.lastLine = end > f.firstLine ? end - 1 : f.firstLine;
  }
  // The lines were reserved for all (the text comes at its size, textWith): what is kept
  // holds only what it uses (a 40-kernel file's SASS is several megabytes, kept with each
  // result).
  lines.shrink_to_fit();
  a = Artifact(a.stage, std::move(text), std::move(lines), std::move(a.functions));
}

/// The text of the lines `keep` keeps, each rewritten one as `rewrites` has it (in line
/// order), built in one buffer of its known `size`.
std::string textWith(const Artifact& a, const std::vector<bool>& keep,
                     const std::vector<std::pair<uint32_t, std::string>>& rewrites, size_t size) {
  std::string text;
  text.reserve(size);
  auto next = rewrites.begin();
  for (uint32_t i = 0; i < a.lines().size(); ++i) {
    if (!keep[i]) continue;
    if (next != rewrites.end() && next->first == i)
      text += (next++)->second;
    else
      text.append(a.lineText(i));
    text += '\n';
  }
  return text;
}

}  // namespace

LineIdPtx ptxWithLineIds(const Artifact& ptx) {
  std::vector<uint32_t> all(ptx.lines().size());
  for (uint32_t i = 0; i < all.size(); ++i) all[i] = i;
  return ptxWithLineIds(ptx, all);
}

LineIdPtx ptxWithLineIds(const Artifact& ptx, const std::vector<uint32_t>& lines) {
  LineIdPtx out;
  const std::string fileId = firstFileId(ptx);
  out.hasIds = !fileId.empty();
  size_t bytes = 0;
  for (uint32_t i : lines) bytes += ptx.lineText(i).size() + 1;
  out.text.reserve(out.hasIds ? bytes * 2 : bytes);
  out.newToOld.reserve(out.hasIds ? lines.size() * 2 : lines.size());
  for (uint32_t at = 0; at < lines.size(); ++at) {
    const uint32_t i = lines[at];
    std::string_view line = ptx.lineText(i);
    const ArtifactLine& l = ptx.lines()[i];
    const bool inFunction = out.hasIds && l.function >= 0;
    if (inFunction && l.kind == LineKind::Directive && isPtxLocDirective(text::trim(line)))
      continue;
    if (inFunction && l.kind == LineKind::Instruction) {
      out.text += "\t.loc\t" + fileId + " " + std::to_string(kLineIdBase + at) + " 0\n";
      out.newToOld.push_back(i);
    }
    out.text.append(line);
    out.text += '\n';
    out.newToOld.push_back(i);
  }
  return out;
}

size_t decodeSassLineIds(Artifact& sass, const Artifact& ptx) {
  // The PTX line a located SASS line came from, if its line is an id.
  auto ptxLineOf = [&](uint32_t printed) -> std::optional<uint32_t> {
    if (printed < kLineIdBase || printed - kLineIdBase >= ptx.lines().size()) return std::nullopt;
    return printed - kLineIdBase;
  };
  // The PTX's chains (equal ones made one), which the decoded lines share; a line left as
  // nvdisasm printed it shares an equal one too. Each chain object of the PTX is interned
  // once: most SASS lines find theirs by its address, without hashing its frames.
  ChainInterner chains;
  std::unordered_map<const void*, Chain> internedPtxChain;
  auto chainOf = [&](const ArtifactLine& ptxLine) {
    Chain chain = chainOfPtxLine(ptxLine);
    auto [it, added] = internedPtxChain.try_emplace(chain.id());
    if (added) it->second = chains.intern(chain);
    return it->second;
  };
  size_t decoded = 0;
  std::vector<bool> keep(sass.lines().size(), true);
  // Each rewritten comment at its line: the text is built once its size is known (built by
  // appending, it was moved into fresh pages again and again, most of this function's time).
  std::vector<std::pair<uint32_t, std::string>> rewrites;
  int32_t commentFunction = -2;  // the function of the last comment kept (rewrites.back())
  Chain commentChain;            // and its chain
  size_t size = 0;
  for (uint32_t i = 0; i < sass.lines().size(); ++i) {
    ArtifactLine& l = sass.lines()[i];
    std::string_view line = sass.lineText(i);
    std::optional<uint32_t> from =
        l.location.empty() ? std::nullopt : ptxLineOf(l.location.front().line);
    if (from && l.kind == LineKind::Instruction) {
      l.location = chainOf(ptx.lines()[*from]);
      l.source = ptx.lines()[*from].source;
      ++decoded;
    } else {
      l.location = chains.intern(l.location);
    }
    // `//## File "...", line <id>` becomes the real place: its chain, on the line, with the
    // comment kept as its marker (kSassPlaceMarker says why), or compiler-generated.
    size_t at = line.find("//## File ");
    if (l.kind == LineKind::Directive && at != std::string_view::npos) {
      size_t comma = line.find("\", line ");
      std::string_view num =
          comma == std::string_view::npos ? std::string_view{} : line.substr(comma + 8);
      auto n = text::takeUint(num);
      if (auto id = n ? ptxLineOf(static_cast<uint32_t>(*n)) : std::nullopt) {
        l.location = chainOf(ptx.lines()[*id]);
        if (l.function == commentFunction && samePlaceComment(l.location, commentChain)) {
          keep[i] = false;  // nvdisasm prints a comment only where the place changes
          continue;
        }
        commentFunction = l.function;
        commentChain = l.location;
        std::string rewritten(line.substr(0, at));
        if (l.location.empty())
          rewritten += sassPlaceComment(l.location);  // compiler-generated: short already
        else
          rewritten += kSassPlaceMarker;
        size += rewritten.size() + 1;
        rewrites.emplace_back(i, std::move(rewritten));
        continue;
      }
    }
    size += line.size() + 1;
  }
  keepLines(sass, textWith(sass, keep, rewrites, size), keep);
  return decoded;
}

}  // namespace ks
