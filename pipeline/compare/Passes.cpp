// Pass by pass: one rustc run with LLVM's -print-changed and rustc's -Zdump-mir, the
// parsers of both, and the list of passes that changed the kernel. See Passes.h.
#include "Passes.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "Crate.h"
#include "Cuda.h"
#include "Diff.h"
#include "Files.h"
#include "Parsers.h"
#include "TextUtil.h"

namespace ks {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kDumpAfter = "*** IR Dump After ";
constexpr std::string_view kDumpStart = "*** IR Dump At Start ***";
constexpr std::string_view kLoopDeletingPasses =
    "loop-deletion,loop-unroll-full,simple-loop-unswitch";

/// "P on U" (the text between "IR Dump After " and " ***"): the pass and its unit. A pass
/// name can hold template arguments with spaces ("RequireAnalysisPass<llvm::GlobalsAA, ...>"),
/// so the " on " that separates them is the first one outside angle brackets.
std::pair<std::string, std::string> passAndUnit(std::string_view s) {
  int depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<') ++depth;
    if (s[i] == '>' && depth > 0) --depth;
    if (depth == 0 && s.substr(i, 4) == " on ")
      return {std::string(s.substr(0, i)), std::string(s.substr(i + 4))};
  }
  return {std::string(s), {}};
}

/// Whether an IR unit of the dump involves the function `symbol`.
bool unitInvolves(std::string_view unit, std::string_view symbol) {
  if (unit == "[module]" || unit == symbol) return true;
  if (unit.starts_with("(") && unit.ends_with(")")) {  // an SCC: "(a, b)"
    std::string_view names = unit.substr(1, unit.size() - 2);
    while (!names.empty()) {
      size_t comma = names.find(", ");
      if (names.substr(0, comma) == symbol) return true;
      names = comma == std::string_view::npos ? std::string_view{} : names.substr(comma + 2);
    }
    return false;
  }
  return unit.ends_with(" in function " + std::string(symbol));  // a loop
}

/// A function's text as an artifact, classified the way the IR parser classifies lines
/// (LLVM's own parse would need the module's metadata, which a function alone lacks).
Artifact irFunctionArtifact(std::string text, std::string_view symbol) {
  Artifact a(Stage::LlvmIr, std::move(text));
  for (size_t i = 0; i < a.lines().size(); ++i) {
    std::string_view t = text::trim(a.lineText(i));
    LineKind& k = a.lines()[i].kind;
    if (t.starts_with("define "))
      k = LineKind::Header;
    else if (t.empty() || t.starts_with(";") || t == "}")
      k = LineKind::Other;
    else if (std::string_view first = t.substr(0, t.find_first_of(" \t")); first.ends_with(":"))
      k = LineKind::Label;
    else
      k = LineKind::Instruction;
    a.lines()[i].function = 0;
  }
  if (!a.lines().empty()) {
    ArtifactFunction f;
    f.symbol = std::string(symbol);
    f.demangled = demangleSymbol(symbol);
    f.lastLine = static_cast<uint32_t>(a.lines().size() - 1);
    a.functions.push_back(std::move(f));
  }
  return a;
}

/// The diff of one pass, lines as printed: value names and metadata numbers are what
/// passes change (SROA's `%sum.sroa.0`), so nothing is normalized away.
std::string passDiff(const Artifact& before, const Artifact& after, const std::string& pass,
                     int context) {
  DiffOptions opts;
  opts.context = context;
  opts.normalize = false;
  return diffArtifacts(before, after, "before " + pass, "after " + pass, opts).unified;
}

std::string lastSegment(std::string_view path) {
  size_t p = path.rfind("::");
  return std::string(p == std::string_view::npos ? path : path.substr(p + 2));
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

/// With CommonCompileOptions::saveTempsDir: rustc's stderr (the -print-changed dumps), its final
/// IR and the MIR dumps of the bodies named like the kernel, as recorded for the golden tests.
void saveTemps(const ResolvedOptions& opts, const std::string& stderrText,
               const std::string& finalIr, const fs::path& mirDir, const std::string& crate,
               const std::string& mirName) {
  if (opts.saveTempsDir.empty()) return;
  std::error_code ec;
  fs::create_directories(opts.saveTempsDir / "mir", ec);
  std::ofstream(opts.saveTempsDir / "print-changed.txt", std::ios::binary) << stderrText;
  std::ofstream(opts.saveTempsDir / "k.ll", std::ios::binary) << finalIr;
  for (const MirDumpFile& f : listMirDumps(mirDir, crate))
    if (f.item == mirName || f.item.ends_with("-" + mirName))
      fs::copy_file(f.path, opts.saveTempsDir / "mir" / f.path.filename(),
                    fs::copy_options::overwrite_existing, ec);
}

}  // namespace

const StagePasses* PassesResult::stage(Stage s) const {
  for (const auto& st : stages)
    if (st.stage == s) return &st;
  return nullptr;
}

// --- LLVM: -print-changed

std::vector<IrDump> parsePrintChanged(std::string_view text) {
  std::vector<IrDump> dumps;
  IrDump* current = nullptr;
  std::string unprinted;  // a pass that deleted its IR unit and has not been printed since
  for (std::string_view line : splitLines(text)) {
    // -print-after's dumps ("; *** IR Dump After P on U ***"): only the one after a pass
    // that deleted its unit (a fully unrolled loop) counts; -print-changed has the others.
    if (line.starts_with("; *** IR Dump After ")) {
      current = nullptr;
      std::string_view body = line.substr(kDumpAfter.size() + 2);
      if (!body.ends_with(" (invalidated) ***")) continue;
      body.remove_suffix(std::string_view(" (invalidated) ***").size());
      auto [pass, unit] = passAndUnit(body);
      if (pass == unprinted) unprinted.clear();
      current = &dumps.emplace_back(IrDump{std::move(pass), std::move(unit), {}, true, {}});
      continue;
    }
    if (line.starts_with("*** ")) {
      current = nullptr;
      if (line == kDumpStart) {
        current = &dumps.emplace_back();
      } else if (line.starts_with(kDumpAfter) && line.ends_with(" ***")) {
        std::string_view body = line.substr(kDumpAfter.size(), line.size() - kDumpAfter.size() - 4);
        // One-line notes: the pass changed nothing, or ran on a unit the filter left out.
        if (body.ends_with(" omitted because no change") || body.ends_with(" filtered out"))
          continue;
        auto [pass, unit] = passAndUnit(body);
        current = &dumps.emplace_back(
            IrDump{std::move(pass), std::move(unit), {}, false, std::move(unprinted)});
        unprinted.clear();
      } else if (line.starts_with("*** IR Pass ") && line.ends_with(" invalidated ***")) {
        // A pass deleted the unit it ran on; -print-changed prints nothing for it. Unless
        // -print-after printed it (above), its change shows in the next dump.
        std::string_view pass = line.substr(12, line.size() - 12 - 16);
        bool printed = !dumps.empty() && dumps.back().invalidated && dumps.back().pass == pass;
        if (!printed && !pass.starts_with("PassManager<") && unprinted.empty())
          unprinted = std::string(pass);
      }
      continue;  // "*** IR Pass ... ignored ***"
    }
    if (line.starts_with("{\"$message_type\"")) continue;  // rustc's JSON diagnostics, interleaved
    if (!current) continue;
    current->module.append(line);
    current->module += '\n';
  }
  return dumps;
}

size_t countPassesRun(std::string_view text, std::string_view symbol) {
  size_t n = 0;
  for (std::string_view line : splitLines(text)) {
    if (line.starts_with("*** IR Pass ") && line.ends_with(" invalidated ***") &&
        !line.starts_with("*** IR Pass PassManager<")) {
      ++n;  // a pass that deleted its unit (always one of the kernel's loops here)
      continue;
    }
    if (!line.starts_with(kDumpAfter) || !line.ends_with(" ***")) continue;
    std::string_view body = line.substr(kDumpAfter.size(), line.size() - kDumpAfter.size() - 4);
    if (body.ends_with(" filtered out")) continue;
    if (body.ends_with(" omitted because no change"))
      body.remove_suffix(std::string_view(" omitted because no change").size());
    if (unitInvolves(passAndUnit(body).second, symbol)) ++n;
  }
  return n;
}

std::string irFunctionText(std::string_view module, std::string_view symbol) {
  const std::string needle = "@" + std::string(symbol) + "(";
  size_t pos = 0;
  for (std::string_view line : splitLines(module)) {
    size_t start = pos;
    pos += line.size() + 1;
    if (!line.starts_with("define ") || line.find(needle) == std::string_view::npos) continue;
    size_t end = module.find("\n}", start);
    if (end == std::string_view::npos) return {};
    return std::string(module.substr(start, end + 3 - start));  // through "}\n"
  }
  return {};
}

size_t irInstructionCount(std::string_view functionText) {
  return irFunctionArtifact(std::string(functionText), "").instructionCount();
}

StagePasses llvmPassChanges(const std::vector<IrDump>& dumps, std::string_view symbol,
                            int context) {
  StagePasses sp;
  sp.stage = Stage::LlvmIr;
  std::string previous;
  bool haveStart = false;
  for (const IrDump& d : dumps) {
    std::string fn = irFunctionText(d.module, symbol);
    if (fn.empty()) continue;  // a dump of a unit without the kernel
    if (!haveStart) {
      sp.initial = previous = fn;
      haveStart = true;
      if (d.pass.empty()) continue;  // the start itself; a first pass dump is compared below
    }
    if (fn == previous) continue;  // the pass changed another function of its unit
    PassChange c;
    c.stage = Stage::LlvmIr;
    c.pass = d.unprintedBefore.empty() ? d.pass : d.unprintedBefore + " + " + d.pass;
    c.unit = d.unit;
    Artifact before = irFunctionArtifact(previous, symbol), after = irFunctionArtifact(fn, symbol);
    c.before = before.instructionCount();
    c.after = after.instructionCount();
    c.diff = passDiff(before, after, d.pass, context);
    sp.changes.push_back(std::move(c));
    previous = std::move(fn);
  }
  sp.final = previous;
  sp.initialCount = irInstructionCount(sp.initial);
  sp.finalCount = irInstructionCount(sp.final);
  return sp;
}

// --- MIR: -Zdump-mir

std::vector<MirDumpFile> listMirDumps(const fs::path& dir, std::string_view crate) {
  std::vector<MirDumpFile> files;
  std::error_code ec;
  const std::string prefix = std::string(crate) + ".";
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::string name = e.path().filename().string();
    if (!name.starts_with(prefix) || !name.ends_with(".mir")) continue;
    // crate.ITEM.P-S-NNN.PASS.before|after.mir; ITEM may hold dots ("{closure#0}" does not,
    // but a shim's may), so split from the right.
    std::string_view rest(name);
    rest.remove_prefix(prefix.size());
    rest.remove_suffix(4);
    MirDumpFile f;
    if (rest.ends_with(".after")) {
      f.after = true;
      rest.remove_suffix(6);
    } else if (rest.ends_with(".before")) {
      rest.remove_suffix(7);
    } else {
      continue;
    }
    size_t dot = rest.rfind('.');
    if (dot == std::string_view::npos) continue;
    f.pass = std::string(rest.substr(dot + 1));
    rest = rest.substr(0, dot);
    dot = rest.rfind('.');
    if (dot == std::string_view::npos) continue;
    std::string_view number = rest.substr(dot + 1);
    // "3-2-004": numbered passes only ("-------" marks analyses such as borrowck's).
    if (number.size() != 7 || number[1] != '-' || number[3] != '-' ||
        !std::all_of(number.begin(), number.end(), [](char c) {
          return c == '-' || std::isdigit(static_cast<unsigned char>(c));
        }))
      continue;
    f.number = std::string(number);
    f.item = std::string(rest.substr(0, dot));
    f.path = e.path();
    files.push_back(std::move(f));
  }
  std::sort(files.begin(), files.end(), [](const MirDumpFile& a, const MirDumpFile& b) {
    return std::tie(a.item, a.number, a.after) < std::tie(b.item, b.number, b.after);
  });
  return files;
}

std::optional<std::string> mirItemFor(const std::vector<MirDumpFile>& files,
                                      std::string_view name) {
  std::string path(name), last = lastSegment(name);
  // A crate-qualified path names the item without the crate ("k::m::f" is dumped as "m-f").
  std::vector<std::string> candidates;
  for (const auto& f : files) {
    if (!candidates.empty() && candidates.back() == f.item) continue;
    std::string_view item = f.item;
    size_t dash = item.rfind('-');
    if ((dash == std::string_view::npos ? item : item.substr(dash + 1)) == last)
      candidates.push_back(f.item);
  }
  if (candidates.size() == 1) return candidates.front();
  // Several: the longest item that `name` spells out ("c::m::k" is "m-k" rather than "k").
  std::optional<std::string> best;
  for (const auto& c : candidates) {
    std::string asPath = c;
    for (size_t p; (p = asPath.find('-')) != std::string::npos;) asPath.replace(p, 1, "::");
    if ((path == asPath || path.ends_with("::" + asPath)) && (!best || c.size() > best->size()))
      best = c;
  }
  return best;
}

std::string mirBodyText(std::string_view dumped) {
  if (dumped.starts_with("// MIR for ")) {
    size_t nl = dumped.find('\n');
    dumped = nl == std::string_view::npos ? std::string_view{} : dumped.substr(nl + 1);
    if (dumped.starts_with("\n")) dumped.remove_prefix(1);  // the blank line after the header
  }
  return std::string(dumped);
}

StagePasses mirPassChanges(const std::vector<MirDumpFile>& files, std::string_view item,
                           int context) {
  StagePasses sp;
  sp.stage = Stage::Mir;
  std::map<std::string, const MirDumpFile*> before;  // by pass number
  bool haveStart = false;
  std::string last;
  for (const MirDumpFile& f : files) {
    if (f.item != item) continue;
    if (!f.after) {
      before[f.number] = &f;
      continue;
    }
    std::string afterText = readWholeFile(f.path);
    last = afterText;
    if (!haveStart) {  // the first dump (`built`): the body before any pass
      sp.initial = afterText;
      haveStart = true;
    }
    auto b = before.find(f.number);
    if (b == before.end()) continue;  // a phase marker ("analysis", "runtime-optimized")
    ++sp.passesRun;
    std::string beforeText = readWholeFile(b->second->path);
    if (mirBodyText(beforeText) == mirBodyText(afterText)) continue;
    PassChange c;
    c.stage = Stage::Mir;
    c.pass = f.pass;
    c.unit = f.number;
    Artifact ba = parseMir(mirBodyText(beforeText)), aa = parseMir(mirBodyText(afterText));
    c.before = ba.instructionCount();
    c.after = aa.instructionCount();
    c.diff = passDiff(ba, aa, f.pass, context);
    sp.changes.push_back(std::move(c));
  }
  sp.initial = mirBodyText(sp.initial);
  sp.final = mirBodyText(last);
  sp.initialCount = parseMir(sp.initial).instructionCount();
  sp.finalCount = parseMir(sp.final).instructionCount();
  return sp;
}

// --- The run

namespace {

/// Why pass by pass cannot run for this input and these options; empty when it can.
std::string passesUnavailable(const Toolchain& tc, const CompileInput& input,
                              const ResolvedOptions& opts) {
  // The passes are rustc's: a CUDA C++ twin or another profile's compiler has none to show.
  if (isCudaSource(input.path) || opts.profile != ToolchainProfile::RustcNvptx)
    return "pass by pass shows rustc's passes: it needs a Rust kernel compiled with rustc (the "
           "rustc-nvptx profile)";
  if (auto bad = validateArch(opts.arch)) return *bad;
  if (!tc.rustc.found() || !tc.sysroot.found()) {
    const ToolInfo& t = tc.rustc.found() ? tc.sysroot : tc.rustc;
    return t.name + ": " + t.problem + (t.fix.empty() ? "" : " (fix: " + t.fix + ")");
  }
  return {};
}

/// One rustc run that dumps the passes over `symbol` (LLVM) and `mirName` (MIR).
struct PassDumps {
  ProcessResult run;
  fs::path out;     // rustc's outputs: the final IR
  fs::path mirDir;  // the MIR dumps
};

PassDumps dumpPasses(const Toolchain& tc, RustcUnit& unit, const ResolvedOptions& opts,
                     const PassesOptions& popts, const fs::path& work, const std::string& symbol,
                     const std::string& mirName, int attempt, const CancellationToken& cancel) {
  PassDumps d;
  d.out = work / ("out" + std::to_string(attempt));
  d.mirDir = work / ("mir" + std::to_string(attempt));
  fs::create_directories(d.out);
  std::vector<std::string> args;
  if (popts.llvm)
    args.insert(args.end(),
                {"-C", "llvm-args=-print-changed", "-C", "llvm-args=-print-module-scope", "-C",
                 "llvm-args=-filter-print-funcs=" + symbol,
                 // Loop passes that may delete their loop: -print-changed prints
                 // nothing then, -print-after prints the module (see parsePrintChanged).
                 "-C", "llvm-args=-print-after=" + std::string(kLoopDeletingPasses)});
  if (popts.mir) args.push_back("-Zdump-mir=" + mirName);
  // Always: a directory of this run alone, so that cargo (whose fingerprint covers the
  // arguments) never finds the crate fresh and skips the run whose output is the passes.
  args.push_back("-Zdump-mir-dir=" + d.mirDir.string());
  d.run = runRustcUnit(tc, unit, opts, "llvm-ir,dep-info", d.out, work, args, {}, cancel);
  return d;
}

/// The files a run read: rustc's dep-info (the crate's modules), the path dependencies' files
/// and the crate's Cargo.toml; empty when rustc wrote no dep-info (then nothing is known).
std::vector<fs::path> filesRead(const RustcUnit& unit, const PassDumps& dumps) {
  std::vector<fs::path> files = readDepInfo(dumps.out / (unit.crateName + ".d"), unit.remaps);
  if (files.empty()) return files;
  files.insert(files.end(), unit.sourceFiles.begin(), unit.sourceFiles.end());
  if (unit.crate) files.push_back(unit.crate->manifest);
  return files;
}

/// Takes a run's diagnostics into `result`; false, with result.error, when the run was cut
/// or failed and its dumps cannot be read.
bool takeRun(const ProcessResult& r, const RustcUnit& unit, PassesResult& result) {
  result.diagnostics = unit.diagnostics;  // this run's, not also a first attempt's
  for (auto& d : parseRustcDiagnostics(r.err)) result.diagnostics.push_back(std::move(d));
  if (r.truncated) {  // the dumps are cut: no pass list would be complete
    result.error =
        "rustc's pass dumps exceeded " + std::to_string(ProcessSpec{}.outputCap >> 20) + " MiB";
    return false;
  }
  if (!r.ok()) {
    result.error =
        hasError(result.diagnostics)
            ? "the kernel does not compile (see the diagnostics)"
            : "rustc " + r.describe() + (r.err.empty() ? "" : ": " + r.err.substr(0, 2000));
    return false;
  }
  return true;
}

/// Lists the crate's kernels in `result` from rustc's final IR and finds the one `kernel`
/// names; null, with result.error, when none does.
const ArtifactFunction* findKernel(const Artifact& ir, const std::string& kernel,
                                   PassesResult& result) {
  const ArtifactFunction* found = nullptr;
  result.kernels.clear();
  for (const auto& f : ir.functions) {
    if (!f.isKernel) continue;
    result.kernels.push_back(f.demangled);
    if (!found && namesKernel(f.symbol, f.demangled, kernel)) found = &f;
  }
  if (!found)
    result.error = "unknown kernel '" + kernel + "'" +
                   (result.kernels.empty() ? ": the file has no kernels"
                                           : " (kernels: " + joined(result.kernels) + ")");
  return found;
}

/// The pass changes of each stage asked for, from the run's dumps; false, with
/// result.error, when a stage's dumps hold nothing of the kernel.
bool readStages(const Toolchain& tc, const PassDumps& dumps, const std::string& crateName,
                const PassesOptions& popts, const std::string& symbol, PassesResult& result) {
  if (popts.llvm) {
    StagePasses sp = llvmPassChanges(parsePrintChanged(dumps.run.err), symbol, popts.context);
    sp.passesRun = countPassesRun(dumps.run.err, symbol);
    if (sp.initial.empty()) {
      result.error = "LLVM printed no IR for " + symbol + " (rustc " + tc.rustc.version + ")";
      return false;
    }
    result.stages.push_back(std::move(sp));
  }
  if (popts.mir) {
    auto files = listMirDumps(dumps.mirDir, crateName);
    auto item = mirItemFor(files, result.demangled);
    if (!item) {
      result.error = "rustc dumped no MIR for " + result.demangled;
      return false;
    }
    result.stages.push_back(mirPassChanges(files, *item, popts.context));
  }
  return true;
}

}  // namespace

PassesResult computePasses(const Toolchain& tc, const CompileInput& input,
                           const ResolvedOptions& opts, const std::string& kernel,
                           const PassesOptions& popts, const CancellationToken& cancel) {
  PassesResult result;
  if (std::string why = passesUnavailable(tc, input, opts); !why.empty()) {
    result.error = why;
    return result;
  }
  TempDir work("kernelscope-passes");
  RustcUnit unit = prepareRustcUnit(tc, input, opts, work.path(), cancel);
  result.diagnostics = unit.diagnostics;
  if (unit.cancelled) {
    result.cancelled = true;
    result.error = "cancelled";
    return result;
  }
  if (!unit.failure.empty()) {
    result.error = unit.failure;
    return result;
  }

  // LLVM's filter takes a symbol; a #[no_mangle] kernel's is its name. When the name turns
  // out to be another kernel's path (a mangled symbol), the run is repeated with its symbol.
  std::string symbol = lastSegment(kernel), mirName = symbol;
  for (int attempt = 0; attempt < 2; ++attempt) {
    PassDumps dumps =
        dumpPasses(tc, unit, opts, popts, work.path(), symbol, mirName, attempt, cancel);
    if (unit.cargoCouldNotResolve) {  // a workspace cargo cannot resolve offline: rustc alone
      unit = rustcAloneAfterCargo(tc, input, opts, work.path(), cancel, dumps.run.err);
      result.diagnostics = unit.diagnostics;
      if (!unit.failure.empty()) {
        result.error = unit.failure;
        return result;
      }
      dumps = dumpPasses(tc, unit, opts, popts, work.path(), symbol, mirName, attempt, cancel);
    }
    if (dumps.run.cancelled) {
      result.cancelled = true;
      result.error = "cancelled";
      return result;
    }
    if (!takeRun(dumps.run, unit, result)) return result;
    result.finalModuleIr = readWholeFile(dumps.out / (unit.crateName + ".ll"));
    Artifact ir = parseLlvmIr(result.finalModuleIr);
    const ArtifactFunction* found = findKernel(ir, kernel, result);
    if (!found) return result;
    result.kernel = found->symbol;
    result.demangled = found->demangled;
    const bool llvmMissed = popts.llvm && found->symbol != symbol;
    const bool mirMissed = popts.mir && lastSegment(found->demangled) != mirName;
    if ((llvmMissed || mirMissed) && attempt == 0) {  // dumped under the wrong filter: again
      symbol = found->symbol;
      mirName = lastSegment(found->demangled);
      continue;
    }
    saveTemps(opts, dumps.run.err, result.finalModuleIr, dumps.mirDir, unit.crateName, mirName);
    result.sourceFiles = filesRead(unit, dumps);
    readStages(tc, dumps, unit.crateName, popts, symbol, result);
    return result;
  }
  return result;
}

// --- Rendering

std::string passesTitle(const PassesResult& r, const std::string& file, const std::string& arch,
                        int optLevel) {
  std::string stages;
  for (const StagePasses& sp : r.stages)
    stages += (stages.empty() ? " · " : ", ") + std::string(stageTitle(sp.stage));
  return "Passes that changed " + r.demangled + " — " + file + stages + " (" + arch +
         ", opt-level " + std::to_string(optLevel) + ")";
}

std::string renderPasses(const PassesResult& r, const std::string& title) {
  std::string s;
  if (!r.error.empty()) return "kernelscope: " + r.error + "\n";
  s += "# " + title + "\n";
  for (const StagePasses& sp : r.stages) {
    const std::string unitWord = sp.stage == Stage::Mir ? "statements" : "instructions";
    s += "\n## " + std::string(stageTitle(sp.stage)) + ": " + std::to_string(sp.changes.size()) +
         " of " + std::to_string(sp.passesRun) + " passes changed " + r.demangled + " (" +
         std::to_string(sp.initialCount) + " → " + std::to_string(sp.finalCount) + " " + unitWord +
         ")\n";
    for (size_t i = 0; i < sp.changes.size(); ++i) {
      const PassChange& c = sp.changes[i];
      // LLVM names the unit a pass ran on; MIR numbers its passes (phase-step-pass).
      const std::string where = sp.stage == Stage::Mir ? " (" + c.unit + ")" : " on " + c.unit;
      s += "\n### " + std::to_string(i + 1) + ". " + c.pass + where + ": " +
           std::to_string(c.before) + " → " + std::to_string(c.after) + " " + unitWord + "\n";
      s += c.diff;
    }
  }
  return s;
}

}  // namespace ks
