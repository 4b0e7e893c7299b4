// The map checked against the compiler's own debug info, instruction by instruction.
//
// Each kernel is compiled again with full DWARF (`-C debuginfo=2`) and LLVM's
// `-use-unknown-locations=Enable`, so that every PTX instruction without a debug location
// gets a line-0 `.loc` instead of inheriting its neighbour's. The truth for a PTX
// instruction is then its `.loc` (the innermost frame) plus the call sites of the DWARF
// inlined subroutines whose address ranges hold it (read with LLVM's own DWARF parser; the
// ranges are the `$L__tmp` labels between instructions). The truth for SASS comes from
// ptxas itself: the same PTX, each truth chain encoded as a `.loc` line, through
// `ptxas -lineinfo` and `nvdisasm -g`. kernelscope's map must give every instruction the
// same chain (file, line, column of every frame), or none where the truth has none.
#include <doctest/doctest.h>
#include <llvm/ADT/StringMap.h>
#include <llvm/DebugInfo/DWARF/DWARFContext.h>
#include <llvm/DebugInfo/DWARF/DWARFDie.h>
#include <llvm/DebugInfo/DWARF/DWARFUnit.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>

#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <set>

#include "../bench/GeneratedKernels.h"
#include "Compile.h"
#include "CoreLink.h"
#include "Crate.h"
#include "ExactLocations.h"
#include "Parsers.h"
#include "TestSupport.h"
#include "TextUtil.h"

using namespace ks;
namespace fs = std::filesystem;

namespace {

using Chain = std::vector<Frame>;  // empty: no debug location (compiler-generated)

/// The truth of code linked in from `core` (CoreLink.h), which rustc's own output for the
/// crate does not have: it is not checked (it has no line of the user's).
const Chain kLinkedCode = {Frame{"<linked from core>", 0, 0, ""}};

/// One function's instructions as the truth sees them, in order.
struct TruthFunction {
  std::vector<std::string> opcodes;
  std::vector<Chain> chains;
};
using Truth = std::map<std::string, TruthFunction>;  // by symbol

std::string opcodeOf(Stage stage, std::string_view line) {
  std::string_view t = text::trim(line);
  if (stage == Stage::Sass && t.starts_with("/*")) t = text::trim(t.substr(t.find("*/") + 2));
  if (t.starts_with("@")) t = text::trim(t.substr(t.find_first_of(" \t")));
  return std::string(t.substr(0, t.find_first_of(" \t;")));
}

/// One PTX DWARF section: `.b8`/`.b16`/`.b32`/`.b64` data whose values may name code labels
/// (an address: the index of the instruction after the label), labels of a section (an
/// offset in it) or a section itself (its start).
struct PtxSection {
  std::vector<std::pair<size_t, std::string>> data;  // (width in bytes, operand list) in order
};

/// Reads the DWARF sections and code labels of `-C debuginfo=2` PTX and gives each
/// instruction (by its index in the file) the inlined subroutines whose spans cover it: the
/// file its function is written in, and its call sites, innermost first.
using Candidates =
    std::map<uint32_t, std::vector<std::pair<std::string, Chain>>>;  // (callee file, call sites)
Candidates inlinedCallSites(const Artifact& ptx, const std::map<uint32_t, std::string>& files,
                            std::string& error) {
  Candidates candidates;
  std::map<std::string, uint64_t> codeLabels;
  std::map<std::string, PtxSection> sections;
  uint32_t instruction = 0;
  PtxSection* current = nullptr;  // the section being read, if it is one we need
  bool inSection = false;
  uint64_t offset = 0;                            // in the section being read
  std::map<std::string, uint64_t> sectionLabels;  // label -> offset in its section
  for (size_t i = 0; i < ptx.lines().size(); ++i) {
    std::string_view t = text::trim(ptx.lineText(i));
    if (t.starts_with(".section")) {
      std::string_view name = text::trim(t.substr(8));
      name = name.substr(0, name.find_first_of(" \t{"));
      // The sections the inline tree needs (not .debug_aranges, .debug_loc: their label
      // arithmetic is of no use here).
      static const std::set<std::string_view> needed = {".debug_info", ".debug_abbrev",
                                                        ".debug_ranges", ".debug_str"};
      bool wanted = needed.count(name) && t.find('}') == std::string_view::npos;
      current = wanted ? &sections[std::string(name.substr(1))] : nullptr;
      inSection = t.find('}') == std::string_view::npos;
      offset = 0;
      continue;
    }
    if (inSection) {
      if (t == "}") {
        inSection = false, current = nullptr;
      } else if (t.ends_with(":")) {
        sectionLabels[std::string(t.substr(0, t.size() - 1))] = offset;
      } else if (size_t blank = t.find_first_of(" \t");
                 t.starts_with(".b") && blank != std::string_view::npos) {
        size_t width = std::stoul(std::string(t.substr(2, blank - 2))) / 8;
        std::string_view ops = text::trim(t.substr(blank));
        offset += width * (1 + std::count(ops.begin(), ops.end(), ','));
        if (current) current->data.emplace_back(width, std::string(ops));
      }
      continue;
    }
    if (ptx.lines()[i].kind == LineKind::Instruction) ++instruction;
    std::string_view code = text::trim(t.substr(0, t.find("//")));
    if (code.ends_with(":") && code.starts_with("$"))
      codeLabels[std::string(code.substr(0, code.size() - 1))] = instruction;
  }
  std::map<std::string, std::string> bytes;
  auto valueOf = [&](std::string_view v) -> std::optional<uint64_t> {
    v = text::trim(v);
    uint64_t add = 0;
    if (size_t plus = v.find('+'); plus != std::string_view::npos) {
      add = std::stoull(std::string(v.substr(plus + 1)));
      v = text::trim(v.substr(0, plus));
    }
    if (!v.empty() && std::isdigit(static_cast<unsigned char>(v.front())))
      return std::stoull(std::string(v)) + add;
    if (v.starts_with(".debug_")) return add;  // the start of another section
    if (auto it = codeLabels.find(std::string(v)); it != codeLabels.end()) return it->second + add;
    if (auto it = sectionLabels.find(std::string(v)); it != sectionLabels.end())
      return it->second + add;
    if (!v.starts_with("$L__"))
      return add;  // a variable's address (`__local_depot0`): not needed here
    return std::nullopt;
  };
  llvm::StringMap<std::unique_ptr<llvm::MemoryBuffer>> buffers;
  for (auto& [name, s] : sections) {
    std::string& out = bytes[name];
    for (auto& [width, ops] : s.data) {
      std::string_view rest = ops;
      while (!rest.empty()) {
        size_t comma = rest.find(',');
        auto value = valueOf(rest.substr(0, comma));
        if (!value) {
          error = "cannot resolve '" + std::string(rest.substr(0, comma)) + "' in ." + name;
          return {};
        }
        for (size_t b = 0; b < width; ++b)
          out.push_back(static_cast<char>((*value >> (8 * b)) & 0xff));
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
      }
    }
    buffers[name] = llvm::MemoryBuffer::getMemBuffer(out, name, false);
  }
  if (!buffers.count("debug_info")) {
    error = "no .debug_info section";
    return {};
  }
  auto ctx = llvm::DWARFContext::create(buffers, /*AddrSize=*/8);
  auto fileOf = [&](uint64_t index) {
    auto it = files.find(static_cast<uint32_t>(index));
    return it == files.end() ? std::string{} : it->second;
  };
  // For NVPTX, LLVM writes each inlined subroutine's ranges as one low..high span (it uses
  // no .debug_ranges there), so a span may also cover code of its caller. Every inlined
  // subroutine covering an instruction is a candidate; the deepest whose function is
  // written in the file of the instruction's `.loc` is the one that holds it.
  std::function<void(const llvm::DWARFDie&, Chain&)> visit = [&](const llvm::DWARFDie& die,
                                                                 Chain& outer) {
    for (const llvm::DWARFDie& child : die.children()) {
      if (child.getTag() != llvm::dwarf::DW_TAG_inlined_subroutine) {
        visit(child, outer);
        continue;
      }
      Frame site{fileOf(llvm::dwarf::toUnsigned(child.find(llvm::dwarf::DW_AT_call_file), 0)),
                 static_cast<uint32_t>(
                     llvm::dwarf::toUnsigned(child.find(llvm::dwarf::DW_AT_call_line), 0)),
                 static_cast<uint32_t>(
                     llvm::dwarf::toUnsigned(child.find(llvm::dwarf::DW_AT_call_column), 0)),
                 {}};
      llvm::DWARFDie origin =
          child.getAttributeValueAsReferencedDie(llvm::dwarf::DW_AT_abstract_origin);
      std::string calleeFile =
          origin ? fileOf(llvm::dwarf::toUnsigned(origin.find(llvm::dwarf::DW_AT_decl_file), 0))
                 : "";
      outer.insert(outer.begin(), site);
      if (auto ranges = child.getAddressRanges()) {
        for (const auto& r : *ranges)
          for (uint64_t a = r.LowPC; a < r.HighPC; ++a)
            candidates[static_cast<uint32_t>(a)].push_back({calleeFile, outer});
      } else {
        llvm::consumeError(ranges.takeError());
      }
      visit(child, outer);
      outer.erase(outer.begin());
    }
  };
  for (const auto& unit : ctx->compile_units()) {
    Chain outer;
    visit(unit->getUnitDIE(false), outer);
  }
  return candidates;
}

/// `.file N "path"` of the PTX, by number.
std::map<uint32_t, std::string> fileTable(const Artifact& ptx) {
  std::map<uint32_t, std::string> files;
  for (size_t i = 0; i < ptx.lines().size(); ++i) {
    std::string_view t = text::trim(ptx.lineText(i));
    if (!text::consume(t, ".file")) continue;
    text::skipBlanks(t);
    auto n = text::takeUint(t);
    size_t q1 = t.find('"'), q2 = t.rfind('"');
    if (n && q1 != q2) files[*n] = normalizePath(t.substr(q1 + 1, q2 - q1 - 1));
  }
  return files;
}

/// The truth PTX with its DWARF sections dropped and every `.loc` replaced by one naming a
/// truth chain (kTruthIdBase + index into `chains`), for ptxas.
constexpr uint32_t kTruthIdBase = 2000000;
std::string ptxWithTruthIds(const Artifact& ptx, const std::vector<Chain>& perInstruction,
                            std::vector<Chain>& chains) {
  std::map<Chain, uint32_t> ids;
  std::string out;
  uint32_t instruction = 0;
  int64_t last = -1;
  for (size_t i = 0; i < ptx.lines().size(); ++i) {
    std::string line(ptx.lineText(i));
    std::string_view t = text::trim(line);
    if (t.starts_with(".section") && t.find(".debug_") != std::string_view::npos)
      break;  // DWARF after the code
    if (t.starts_with(".target") && t.find(", debug") != std::string_view::npos)
      line = line.substr(0, line.find(", debug"));
    if (ptx.lines()[i].function >= 0 && isPtxLocDirective(t)) continue;
    if (ptx.lines()[i].kind == LineKind::Instruction) {
      const Chain& c = perInstruction[instruction++];
      auto [it, inserted] = ids.emplace(c, static_cast<uint32_t>(chains.size()));
      if (inserted) chains.push_back(c);
      if (it->second != last)
        out += "\t.loc\t1 " + std::to_string(kTruthIdBase + it->second) + " 0\n";
      last = it->second;
    }
    if (ptx.lines()[i].kind == LineKind::Label || ptx.lines()[i].kind == LineKind::Header)
      last = -1;
    out += line + "\n";
  }
  return out;
}

struct TruthResult {
  Truth ptx, sass;
  std::string error;
};

/// Compiles `file` with full debug info and reads the compiler's own answer for every PTX
/// and SASS instruction.
TruthResult compilerTruth(const fs::path& file, const ResolvedOptions& opts) {
  TruthResult result;
  const Toolchain& tc = test::toolchain();
  TempDir work("kernelscope-truth");
  ProcessSpec rustc;
  rustc.argv = {tc.rustc.path.string()};
  for (auto& a : rustcTargetArgs(tc, opts)) rustc.argv.push_back(a);
  for (const char* a :
       {"--edition", "2021", "--crate-type", "rlib", "--emit=asm,llvm-bc", "-C", "debuginfo=2",
        "-C", "llvm-args=-use-unknown-locations=Enable -preserve-bc-uselistorder", "--out-dir"})
    rustc.argv.push_back(a);
  // The crate's name as the pipeline gives it: it is in the mangled symbols.
  rustc.argv.insert(rustc.argv.end(),
                    {work.path().string(), "--crate-name", file.stem().string(), file.string()});
  rustc.env = {{"RUSTC_BOOTSTRAP", "1"}};
  ProcessResult r = runProcess(rustc);
  if (!r.ok()) {
    result.error = "rustc " + r.describe() + ": " + r.err.substr(0, 2000);
    return result;
  }
  Artifact ptx = parsePtx(readWholeFile(work.path() / (file.stem().string() + ".s")));
  auto files = fileTable(ptx);
  auto callSites = inlinedCallSites(ptx, files, result.error);
  if (!result.error.empty()) return result;

  std::vector<Chain> perInstruction;
  for (size_t i = 0; i < ptx.lines().size(); ++i) {
    const ArtifactLine& l = ptx.lines()[i];
    if (l.kind != LineKind::Instruction) continue;
    Chain chain;
    if (!l.location.empty() && l.location.front().line != 0) {
      chain = {l.location.front()};
      chain.front().function = {};
      const Chain* sites = nullptr;
      if (auto c = callSites.find(static_cast<uint32_t>(perInstruction.size()));
          c != callSites.end())
        for (const auto& [calleeFile, outer] : c->second)
          if (calleeFile == chain.front().file && (!sites || outer.size() > sites->size()))
            sites = &outer;
      if (sites) chain.insert(chain.end(), sites->begin(), sites->end());
    }
    perInstruction.push_back(chain);
    TruthFunction& f = result.ptx[ptx.functions[l.function].symbol];
    f.opcodes.push_back(opcodeOf(Stage::Ptx, ptx.lineText(i)));
    f.chains.push_back(chain);
  }

  // SASS: ptxas maps each SASS instruction to the PTX line it came from. Its input is the
  // launched image, as in the pipeline: the crate's code with what it calls from `core`
  // linked in, whose functions of the crate are rustc's (their truth is the above) and
  // whose linked functions get kLinkedCode.
  llvm::LLVMContext context;
  llvm::SMDiagnostic bcError;
  std::unique_ptr<llvm::Module> module =
      llvm::parseIRFile((work.path() / (file.stem().string() + ".bc")).string(), bcError, context);
  if (!module) {
    result.error = "cannot read the truth's bitcode: " + bcError.getMessage().str();
    return result;
  }
  const CoreLink link = linkForLaunch(*module, tc.sysroot.path, {}, opts.arch, opts.optLevel);
  std::string why;
  // Nothing to link: the image is rustc's PTX itself.
  std::optional<Artifact> image =
      link.attempted ? compilePtx(*module, opts.arch, opts.optLevel, why) : ptx;
  if (!image) {
    result.error = "cannot compile the linked truth: " + why;
    return result;
  }
  std::set<std::string> linked;
  for (const LinkedFunction& f : link.linked) linked.insert(f.symbol);
  std::vector<Chain> imageChains;
  std::map<std::string, size_t> nextOf;  // the next instruction of each function of rustc's
  for (size_t i = 0; i < image->lines().size(); ++i) {
    const ArtifactLine& l = image->lines()[i];
    if (l.kind != LineKind::Instruction) continue;
    const std::string& symbol = image->functions[l.function].symbol;
    if (linked.count(symbol)) {
      imageChains.push_back(kLinkedCode);
      result.ptx[symbol].opcodes.push_back(opcodeOf(Stage::Ptx, image->lineText(i)));
      result.ptx[symbol].chains.push_back(kLinkedCode);
      continue;
    }
    const TruthFunction& f = result.ptx[symbol];
    size_t& k = nextOf[symbol];
    if (k >= f.opcodes.size() || f.opcodes[k] != opcodeOf(Stage::Ptx, image->lineText(i))) {
      result.error = "the linked truth's " + symbol + " is not rustc's code";
      return result;
    }
    imageChains.push_back(f.chains[k++]);
  }
  std::vector<Chain> chains;
  fs::path truthPtx = work.path() / "truth-ids.ptx", cubin = work.path() / "truth.cubin";
  std::ofstream(truthPtx) << ptxWithTruthIds(*image, imageChains, chains);
  auto ptxas = [&](bool relocatable) {
    ProcessSpec p;
    p.argv = {tc.ptxas.path.string(), "-arch=" + opts.arch, "-lineinfo"};
    if (relocatable) p.argv.push_back("-c");
    p.argv.insert(p.argv.end(), {truthPtx.string(), "-o", cubin.string()});
    return runProcess(p);
  };
  // As the pipeline does: a loadable cubin, else relocatable when functions are missing.
  ProcessResult pr = ptxas(false);
  if (!pr.ok() && pr.err.find("Unresolved extern function") != std::string::npos) pr = ptxas(true);
  if (!pr.ok()) {
    result.error = "ptxas " + pr.describe() + ": " + pr.err.substr(0, 2000);
    return result;
  }
  ProcessSpec nvdisasm;
  nvdisasm.argv = {tc.nvdisasm.path.string(), "-c", "-g", "-gi", cubin.string()};
  ProcessResult dr = runProcess(nvdisasm);
  if (!dr.ok()) {
    result.error = "nvdisasm " + dr.describe();
    return result;
  }
  Artifact sass = parseSass(dr.out);
  for (size_t i = 0; i < sass.lines().size(); ++i) {
    const ArtifactLine& l = sass.lines()[i];
    if (l.kind != LineKind::Instruction || l.function < 0) continue;
    Chain chain;  // ptxas's padding after the code (line 0 here) came from no PTX instruction
    if (!l.location.empty() && l.location.front().line >= kTruthIdBase &&
        l.location.front().line - kTruthIdBase < chains.size())
      chain = chains[l.location.front().line - kTruthIdBase];
    TruthFunction& f = result.sass[sass.functions[l.function].symbol];
    f.opcodes.push_back(opcodeOf(Stage::Sass, sass.lineText(i)));
    f.chains.push_back(chain);
  }
  return result;
}

struct Figures {
  size_t checked = 0, wrong = 0, pinned = 0, compilerGenerated = 0, lost = 0, unaligned = 0;
  size_t linked = 0;  // instructions of code linked from core: no truth of the user's lines
};

bool sameFrames(const Chain& a, const Chain& b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k)
    if (a[k].file != b[k].file || a[k].line != b[k].line || a[k].column != b[k].column)
      return false;
  return true;
}

std::string chainText(const Chain& c) {
  if (c.empty()) return "(compiler-generated)";
  std::string s;
  for (const auto& f : c)
    s += (s.empty() ? "" : " < ") + fs::path(f.file.str()).filename().string() + ":" +
         std::to_string(f.line) + ":" + std::to_string(f.column);
  return s;
}

/// Compares kernelscope's map of one stage with the truth, function by function.
Figures compare(Stage stage, const Artifact& a, const Truth& truth) {
  Figures fig;
  std::map<std::string, std::vector<uint32_t>> lines;
  for (uint32_t i = 0; i < a.lines().size(); ++i)
    if (a.lines()[i].kind == LineKind::Instruction && a.lines()[i].function >= 0)
      lines[a.functions[a.lines()[i].function].symbol].push_back(i);
  for (const auto& entry : lines) {  // not a structured binding: CAPTURE needs a variable
    const std::string& symbol = entry.first;
    const std::vector<uint32_t>& ours = entry.second;
    CAPTURE(symbol);
    auto it = truth.find(symbol);
    bool aligned = it != truth.end() && it->second.opcodes.size() == ours.size();
    for (size_t k = 0; aligned && k < ours.size(); ++k)
      aligned = opcodeOf(stage, a.lineText(ours[k])) == it->second.opcodes[k];
    if (!aligned) {
      fig.unaligned += ours.size();
      continue;
    }
    for (size_t k = 0; k < ours.size(); ++k) {
      const Chain& want = it->second.chains[k];
      if (want == kLinkedCode) {
        ++fig.linked;
        continue;
      }
      Chain got = a.lines()[ours[k]].location;
      if (!got.empty() && got.front().line == 0) got.clear();
      ++fig.checked;
      if (want.empty()) {
        fig.compilerGenerated += got.empty();
        fig.pinned += !got.empty();
      } else if (!sameFrames(want, got)) {
        ++fig.wrong;
        fig.lost += got.empty();
      }
      if (!sameFrames(want, got))
        MESSAGE(stageName(stage), " line ", ours[k] + 1, " '", text::trim(a.lineText(ours[k])),
                "': truth ", chainText(want), ", map ", chainText(got));
    }
  }
  return fig;
}

}  // namespace

TEST_CASE("the map equals the compiler's own debug info on every instruction (DWARF truth)") {
  test::requireToolchain();
  const Toolchain& tc = test::toolchain();
  if (!tc.ptxas.found() || !tc.nvdisasm.found()) {
    MESSAGE("skipped: the DWARF-truth check needs ptxas and nvdisasm");
    return;
  }
  const std::vector<std::string>& kernels = test::compilingKernels();
  Figures total[2];
  for (const auto& k : kernels) {
    CAPTURE(k);
    fs::path file = test::sourceDir() / k;
    CompileOptions opts;
    const CompileResult& r = test::compiled(file, opts);
    REQUIRE(r.succeeded);
    TruthResult truth = compilerTruth(file, resolveOptions(opts));
    REQUIRE_MESSAGE(truth.error.empty(), truth.error);
    for (Stage s : {Stage::Ptx, Stage::Sass}) {
      CAPTURE(stageName(s));
      const StageOutcome* st = r.stage(s);
      REQUIRE(st);
      REQUIRE_MESSAGE(st->available, st->unavailableReason);
      Figures f = compare(s, *st->artifact, s == Stage::Ptx ? truth.ptx : truth.sass);
      CHECK(f.unaligned == 0);
      CHECK(f.wrong == 0);
      CHECK(f.pinned == 0);
      CHECK(f.checked + f.linked == st->artifact->instructionCount());
      Figures& t = total[s == Stage::Ptx ? 0 : 1];
      t.checked += f.checked, t.wrong += f.wrong, t.pinned += f.pinned, t.lost += f.lost;
      t.compilerGenerated += f.compilerGenerated, t.unaligned += f.unaligned, t.linked += f.linked;
      std::cout << "DWARF truth, " << k << " " << stageName(s) << ": " << f.checked << " checked, "
                << f.wrong << " wrong, " << f.pinned << " pinned, " << f.compilerGenerated
                << " compiler-generated\n";
    }
  }
  for (int s = 0; s < 2; ++s)
    std::cout << "DWARF truth, " << (s ? "SASS" : "PTX") << ": " << total[s].checked
              << " instructions checked, " << total[s].wrong << " wrong (" << total[s].lost
              << " of them called compiler-generated), " << total[s].pinned
              << " pinned to a neighbour, " << total[s].compilerGenerated << " compiler-generated, "
              << total[s].unaligned << " unaligned, " << total[s].linked
              << " linked from core (not checked)\n";
}

namespace {

// Two kernels that inline `core`'s `min` twice each, so that their chains are ambiguous from
// rustc's `.loc` lines alone.
constexpr const char* kTwoKernels = R"(#![no_std]
#![feature(abi_ptx)]

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}

#[no_mangle]
pub unsafe extern "ptx-kernel" fn first(x: *mut f32, n: usize) {
    let xs = core::slice::from_raw_parts_mut(x, n);
    let i = n.min(7);
    let j = (n / 2).min(3);
    xs[i % n] = xs[j % n] * 0.5;
}

#[no_mangle]
pub unsafe extern "ptx-kernel" fn second(x: *mut f32, n: usize) {
    let xs = core::slice::from_raw_parts_mut(x, n);
    let i = (n + 1).min(5);
    let j = (n / 3).min(2);
    xs[j % n] = xs[i % n] + 1.5;
}
)";

}  // namespace

TEST_CASE("after an edit, only the edited kernel is regenerated, and the map stays exact") {
  test::requireToolchain();
  const Toolchain& tc = test::toolchain();
  forgetRegeneratedChains();
  TempDir dir("kernelscope-truth-edit");
  const fs::path file = dir.path() / "two.rs";
  std::string text = kTwoKernels;
  ResolvedOptions opts;
  auto compileSaving = [&](const std::string& name) {
    std::ofstream(file, std::ios::trunc) << text;
    opts.saveTempsDir = dir.path() / name;
    CompileResult r = compileKernel(tc, {file, std::nullopt, {}}, opts);
    REQUIRE(r.succeeded);
    return r;
  };
  compileSaving("before");
  text.replace(text.find("* 0.5"), 5, "* 0.25");  // `first` only
  CompileResult after = compileSaving("after");

  // In the pipeline: the edited file's map equals the compiler's debug info.
  if (tc.ptxas.found() && tc.nvdisasm.found()) {
    TruthResult truth = compilerTruth(file, opts);
    REQUIRE_MESSAGE(truth.error.empty(), truth.error);
    for (Stage s : {Stage::Ptx, Stage::Sass}) {
      CAPTURE(stageName(s));
      Figures f = compare(s, *after.stage(s)->artifact, s == Stage::Ptx ? truth.ptx : truth.sass);
      CHECK(f.checked > 0);
      CHECK(f.unaligned == 0);
      CHECK(f.wrong == 0);
      CHECK(f.pinned == 0);
    }
  }

  // The same step by step: the unchanged kernel's chains are reused, the edited one's
  // regenerated with the other bodies dropped, and all equal a regeneration of everything.
  forgetRegeneratedChains();
  auto exact = [&](const std::string& name) {
    const std::string ll = readWholeFile(dir.path() / name / "k.ll");
    LlvmModule module;
    Artifact ir = parseLlvmIr(ll, nullptr, &module);
    REQUIRE(module.module);
    Artifact ptx = parsePtx(readWholeFile(dir.path() / name / "k.ptx"));
    ChainTable table = assignExactChains(ptx, *module.module, opts.arch, opts.optLevel, &ir);
    CHECK(table.error.empty());
    Artifact whole = parsePtx(readWholeFile(dir.path() / name / "k.ptx"));
    assignExactChains(whole, ll, opts.arch, opts.optLevel);
    REQUIRE(whole.lines().size() == ptx.lines().size());
    std::set<int32_t> functions;  // of the crate: what core's are linked from is not in the IR
    std::set<std::string> inIr;
    for (const ArtifactFunction& f : ir.functions) inIr.insert(f.symbol);
    for (size_t i = 0; i < ptx.lines().size(); ++i) {
      CAPTURE(ptx.lineText(i));
      CHECK(ptx.lines()[i].location == whole.lines()[i].location);
      CHECK(ptx.lines()[i].source == whole.lines()[i].source);
      if (ptx.lines()[i].kind == LineKind::Instruction &&
          inIr.count(ptx.functions[ptx.lines()[i].function].symbol))
        functions.insert(ptx.lines()[i].function);
    }
    return std::pair{table.functionsReused, functions.size()};
  };
  CHECK(exact("before").first == 0);
  auto [reused, functions] = exact("after");
  CHECK(functions >= 2);
  CHECK(reused == functions - 1);  // all but `first`
  CHECK(exact("after").first == functions);
}

TEST_CASE("kernelscope's back end makes rustc's own PTX from rustc's IR, byte for byte") {
  const Toolchain& tc = test::toolchain();
  if (tc.rustcLlvm != backEndLlvmRelease()) {
    MESSAGE("skipped: rustc's LLVM (" << tc.rustcLlvm << ") is not kernelscope's ("
                                      << backEndLlvmRelease() << "), so rustc makes the PTX");
    return;
  }
  TempDir work("kernelscope-backend");
  std::vector<std::string> kernels = test::compilingKernels();
  kernels.push_back((work.path() / "k20.rs").string());  // 20 kernels, 927 lines
  std::ofstream(kernels.back()) << bench::generatedKernels(20);
  kernels.push_back((work.path() / "two.rs").string());  // calls that do not return
  std::ofstream(kernels.back()) << kTwoKernels;
  for (int opt : {0, 1, 2, 3})
    for (const auto& name : kernels) {
      CAPTURE(name);
      CAPTURE(opt);
      ResolvedOptions opts;
      opts.optLevel = opt;
      ProcessSpec rustc;
      rustc.argv = {tc.rustc.path.string()};
      for (auto& a : rustcTargetArgs(tc, opts)) rustc.argv.push_back(a);
      const fs::path file = test::sourceDir() / name;
      rustc.argv.insert(rustc.argv.end(),
                        {"--edition", "2021", "--crate-type", "rlib", "--emit=llvm-ir,asm", "-C",
                         "llvm-args=-preserve-ll-uselistorder", "--crate-name", "k", "--out-dir",
                         work.path().string(), file.string()});
      rustc.env = {{"RUSTC_BOOTSTRAP", "1"}};
      ProcessResult r = runProcess(rustc);
      REQUIRE_MESSAGE(r.ok(), r.err.substr(0, 2000));
      LlvmModule module;
      parseLlvmIr(readWholeFile(work.path() / "k.ll"), nullptr, &module);
      REQUIRE(module.module);
      std::string error;
      std::optional<Artifact> ours = compilePtx(*module.module, opts.arch, opts.optLevel, error);
      REQUIRE_MESSAGE(ours, error);
      CHECK(ours->text() == readWholeFile(work.path() / "k.s"));
      size_t located = 0;
      for (const ArtifactLine& l : ours->lines())
        if (l.kind == LineKind::Instruction) {
          CHECK(l.source == LocationSource::Regenerated);
          located += !l.location.empty();
        }
      CHECK(located > 0);
    }
}

TEST_CASE("flags that set rustc's back end up otherwise leave the PTX to rustc") {
  const fs::path file = test::sourceDir() / "examples" / "saxpy.rs";
  CompileOptions opts;
  opts.extraRustcFlags = {"-C", "target-feature=+ptx80"};
  const CompileResult r = compileWithDefaults(test::toolchain(), {file, std::nullopt}, opts);
  REQUIRE(r.succeeded);
  const StageOutcome* ptx = r.stage(Stage::Ptx);
  REQUIRE(ptx);
  REQUIRE(ptx->available);
  // rustc's back end took the feature: our default would be another PTX ISA version.
  CHECK(ptx->artifact->text().find(".version 8.0") != std::string::npos);
  size_t exact = 0;
  for (const ArtifactLine& l : ptx->artifact->lines())
    exact += l.kind == LineKind::Instruction && l.source == LocationSource::Regenerated;
  CHECK(exact > 0);  // and its chains were regenerated
}
