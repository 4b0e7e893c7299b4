// The compile driver: runs rustc, ptxas and nvdisasm on one kernel file and assembles
// the artifacts, diagnostics, resources and line map of one revision.
#include "Compile.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "Crate.h"
#include "Cuda.h"
#include "ExactLocations.h"
#include "GpuArch.h"
#include "ProfileCompile.h"
#include "PtxBackend.h"
#include "Remarks.h"
#include "Parsers.h"
#include "TextUtil.h"

namespace ks {

namespace fs = std::filesystem;
using std::chrono::duration_cast;
using std::chrono::milliseconds;

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

Diagnostic toolError(std::string message, std::string source) {
  Diagnostic d;
  d.source = std::move(source);
  d.severity = Severity::Error;
  d.message = std::move(message);
  return d;
}

namespace {

void saveTemp(const CompileOptions& opts, const std::string& name, const std::string& content) {
  if (opts.saveTempsDir.empty()) return;
  std::error_code ec;
  fs::create_directories(opts.saveTempsDir, ec);
  std::ofstream(opts.saveTempsDir / name, std::ios::binary) << content;
}

}  // namespace

std::optional<std::string> validateArch(std::string_view arch) {
  std::string_view rest = arch;
  if (!text::consume(rest, "sm_")) return "unknown architecture '" + std::string(arch) + "': expected sm_XX, for example sm_90";
  auto n = text::takeUint(rest);
  if (!n || !(rest.empty() || rest == "a" || rest == "f"))
    return "unknown architecture '" + std::string(arch) + "': expected sm_XX, for example sm_90";
  static const std::set<uint32_t> known = {50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90, 100, 101, 103, 110, 120, 121};
  if (!known.count(*n))
    return "unknown architecture '" + std::string(arch) + "': NVIDIA GPUs are sm_50..sm_121 (for example sm_70, sm_80, sm_90)";
  return std::nullopt;
}

bool finishFromPtx(const Toolchain& tc, const CompileOptions& opts, const CancellationToken& cancel,
                   const PtxBackend& in, CompileResult& result) {
  auto wants = [&](Stage s) { return opts.wants(s); };
  auto unavailable = [&](Stage s, const std::string& why) { result.markUnavailable(opts, s, why); };
  bool needPtx = wants(Stage::Ptx) || wants(Stage::Sass);
  const Artifact& ptx = in.ptx;
  const ChainTable& chains = in.chains;
  const Artifact& ir = in.ir;
  LineMap* lineMap = in.lineMap.get();
  const fs::path& out = in.outDir;
  const std::string& crate = in.stem;
  // --- ptxas: resources per kernel, and the cubin for SASS.
  PtxasReport report;
  bool haveCubin = false;
  if (needPtx) {
    if (!tc.ptxas.found()) {
      unavailable(Stage::Sass, "ptxas: " + tc.ptxas.problem + " (fix: " + tc.ptxas.fix + ")");
    } else {
      // ptxas reads rustc's PTX with chain-id `.loc` lines, so that SASS names exact
      // inline chains (see ExactLocations.h); its code is rustc's, instruction for instruction.
      fs::path ptxFile = out / (crate + ".lineids.ptx"), cubin = out / (crate + ".cubin");
      std::vector<uint32_t> ptxLineOf;
      std::ofstream(ptxFile, std::ios::binary) << (in.ptxasText ? *in.ptxasText : ptxWithChainIds(ptx, chains, &ptxLineOf));
      auto runPtxas = [&](bool relocatable) {
        ProcessSpec p;
        p.argv = {tc.ptxas.path.string(), "-arch=" + opts.arch, "-v", "-lineinfo"};
        if (relocatable) p.argv.push_back("-c");
        p.argv.insert(p.argv.end(), {ptxFile.string(), "-o", cubin.string()});
        p.timeout = opts.toolTimeout;
        p.cancel = cancel;
        ProcessResult pr = runProcess(p);
        result.toolTime += pr.elapsed;
        return pr;
      };
      ProcessResult pr = runPtxas(false);
      // Calls into `core` that were not inlined (panics) stay unresolved in an rlib's
      // PTX; relocatable mode still compiles the kernels and reports their resources.
      if (!pr.ok() && pr.err.find("Unresolved extern function") != std::string::npos) pr = runPtxas(true);
      if (pr.cancelled) {
        return false;
      }
      saveTemp(opts, "ptxas.stderr", pr.err + pr.out);
      report = parsePtxasReport(pr.err + pr.out);
      for (auto& d : report.diagnostics)  // name rustc's PTX lines, not our rewrite's
        if (d.ptxLine && *d.ptxLine >= 1 && *d.ptxLine <= ptxLineOf.size()) d.ptxLine = ptxLineOf[*d.ptxLine - 1] + 1;
      if (pr.ok()) {
        haveCubin = true;
      } else {
        std::string why = "ptxas " + pr.describe();
        if (pr.err.find("is not defined for option 'gpu-name'") != std::string::npos ||
            pr.err.find("not defined for option") != std::string::npos)
          why = archNeedsCudaMessage("ptxas", tc.cudaRelease, tc.ptxas.path.string(), opts.arch);
        else if (pr.err.find("Unsupported .version") != std::string::npos)
          why = "ptxas " + tc.cudaRelease + " is older than the PTX ISA version rustc emitted: use a newer CUDA toolkit (set CUDA_HOME)";
        unavailable(Stage::Sass, why);
        if (report.diagnostics.empty()) report.diagnostics.push_back(toolError(why, "ptxas"));
      }
      for (auto& d : report.diagnostics) result.diagnostics.push_back(d);
    }
  }

  // --- nvdisasm: SASS with line info.
  if (wants(Stage::Sass) && haveCubin) {
    if (!tc.nvdisasm.found()) {
      unavailable(Stage::Sass, "nvdisasm: " + tc.nvdisasm.problem + " (fix: " + tc.nvdisasm.fix + ")");
    } else {
      ProcessSpec p;
      p.argv = {tc.nvdisasm.path.string(), "-c", "-g", "-gi", (out / (crate + ".cubin")).string()};
      p.timeout = opts.toolTimeout;
      p.cancel = cancel;
      ProcessResult dr = runProcess(p);
      result.toolTime += dr.elapsed;
      if (dr.cancelled) {
        return false;
      }
      if (dr.ok()) {
        saveTemp(opts, "k.sass", dr.out);
        auto& st = result.stages[Stage::Sass];
        st.artifact = parseSass(std::move(dr.out));
        decodeSassChainIds(st.artifact, chains);
        recoverInlineChains(st.artifact, ir, *lineMap);
        st.available = true;
      } else {
        unavailable(Stage::Sass, "nvdisasm " + dr.describe() + ": " + dr.err.substr(0, 500));
      }
    }
  }

  for (auto& [stage, st] : result.stages)
    if (st.available) lineMap->addArtifact(st.artifact);
  result.lineMap = in.lineMap;

  // --- Kernels: entry points of the PTX, with their resources and sizes.
  auto countIn = [](const Artifact& a, const std::string& symbol) -> size_t {
    for (size_t f = 0; f < a.functions.size(); ++f) {
      if (a.functions[f].symbol != symbol) continue;
      size_t n = 0;
      for (uint32_t l = a.functions[f].firstLine; l <= a.functions[f].lastLine; ++l)
        n += a.lines[l].kind == LineKind::Instruction;
      return n;
    }
    return 0;
  };
  for (const auto& f : ptx.functions) {
    if (!f.isKernel) continue;
    KernelInfo k;
    k.symbol = f.symbol;
    k.demangled = f.demangled;
    for (const auto& irf : ir.functions)
      if (irf.symbol == f.symbol) k.definition = irf.definition;
    for (uint32_t l = f.firstLine; k.definition.line == 0 && l <= f.lastLine; ++l)  // no IR (nvcc): the first user line
      for (const auto& fr : ptx.lines[l].location)
        if (fr.line != 0 && lineMap->isUserFile(fr.file)) {
          k.definition = fr;
          break;
        }
    for (const auto& res : report.functions)
      if (res.name == f.symbol) k.resources = res;
    if (k.resources) k.occupancy = kernelOccupancy(opts.arch, *k.resources, opts.occupancyBlockSize);
    k.ptxInstructions = countIn(ptx, f.symbol);
    if (const auto* sass = result.stage(Stage::Sass); sass && sass->available)
      k.sassInstructions = countIn(sass->artifact, f.symbol);
    result.kernels.push_back(std::move(k));
  }
  return true;
}

ProcessSpec rustcCommand(const Toolchain& tc, const RustcUnit& unit, const CompileOptions& opts,
                         const std::string& emit, const fs::path& outDir, const fs::path& workDir,
                         const std::vector<std::string>& extraArgs, const CancellationToken& cancel) {
  ProcessSpec rustc;
  rustc.argv = rustcTargetArgs(tc, opts);
  rustc.argv.insert(rustc.argv.begin(), tc.rustc.path.string());
  rustc.argv.insert(rustc.argv.end(), {"--edition", unit.edition, "--crate-type", "rlib", "--crate-name", unit.crateName,
                                       "-Zmir-include-spans=on", "--error-format=json", "--emit=" + emit,
                                       "--out-dir", outDir.string()});
  rustc.argv.insert(rustc.argv.end(), unit.args.begin(), unit.args.end());
  rustc.argv.insert(rustc.argv.end(), opts.extraRustcFlags.begin(), opts.extraRustcFlags.end());
  rustc.argv.insert(rustc.argv.end(), extraArgs.begin(), extraArgs.end());
  rustc.argv.push_back(unit.source.string());
  rustc.env = {{"RUSTC_BOOTSTRAP", "1"}};  // `#![feature(abi_ptx)]` kernels and the -Z flags
  rustc.cwd = workDir;
  rustc.timeout = opts.toolTimeout;
  rustc.cancel = cancel;
  return rustc;
}

void CompileResult::markUnavailable(const CompileOptions& opts, Stage s, const std::string& why) {
  if (!opts.wants(s)) return;
  auto& st = stages[s];
  st.available = false;
  st.unavailableReason = why;
}

const StageOutcome* CompileResult::stage(Stage s) const {
  auto it = stages.find(s);
  return it == stages.end() ? nullptr : &it->second;
}

CompileResult compileKernel(const Toolchain& tc, const CompileInput& input, const CompileOptions& opts,
                            const CancellationToken& cancel) {
  if (isCudaSource(input.path)) return compileCuda(tc, input, opts, cancel);  // the CUDA C++ twin
  if (opts.profile && *opts.profile != ToolchainProfile::RustcNvptx)  // rust-cuda, cuda-oxide
    return compileWithProfile(tc, input, opts, *opts.profile, cancel);
  auto started = std::chrono::steady_clock::now();
  CompileResult result;
  result.arch = opts.arch;
  result.optLevel = opts.optLevel;
  auto wants = [&](Stage s) { return opts.wants(s); };
  auto unavailable = [&](Stage s, const std::string& why) { result.markUnavailable(opts, s, why); };
  auto finish = [&]() -> CompileResult& {
    result.totalTime = duration_cast<milliseconds>(std::chrono::steady_clock::now() - started);
    return result;
  };
  auto failAll = [&](const std::string& why) {
    for (Stage s : kAllStages) unavailable(s, why);
  };

  const fs::path file = fs::path(normalizePath(fs::absolute(input.path).string()));
  if (auto bad = validateArch(opts.arch)) {
    result.diagnostics.push_back(toolError(*bad));
    failAll(*bad);
    return finish();
  }
  if (!tc.rustc.found() || !tc.sysroot.found()) {
    const ToolInfo& t = tc.rustc.found() ? tc.sysroot : tc.rustc;
    std::string why = t.name + ": " + t.problem + (t.fix.empty() ? "" : " (fix: " + t.fix + ")");
    result.diagnostics.push_back(toolError(why));
    failAll(why);
    return finish();
  }
  std::error_code ec;
  if (!input.text && !fs::is_regular_file(file, ec)) {
    std::string why = "cannot read " + file.string() + ": no such file";
    result.diagnostics.push_back(toolError(why));
    failAll(why);
    return finish();
  }

  TempDir work("kernelscope-build");
  fs::path out = work.path() / "out";
  fs::create_directories(out);
  // The file's crate (its path dependencies built) or the file alone; see Crate.h.
  RustcUnit unit = prepareRustcUnit(tc, input, opts, work.path(), cancel);
  result.toolTime += unit.toolTime;
  result.diagnostics = unit.diagnostics;
  if (unit.crate) result.crateManifest = unit.crate->manifest;
  if (unit.cancelled) {
    result.cancelled = true;
    failAll("cancelled");
    return finish();
  }
  if (!unit.failure.empty()) {
    failAll(unit.failure);
    return finish();
  }

  // --- rustc: MIR, LLVM IR, PTX, diagnostics and remarks in one call.
  bool needPtx = wants(Stage::Ptx) || wants(Stage::Sass);
  std::vector<std::string> emit;
  if (wants(Stage::Mir)) emit.push_back("mir");
  emit.push_back("llvm-ir");  // always: it completes the inline chains of PTX and SASS
  if (needPtx) emit.push_back("asm");
  emit.push_back("dep-info");  // the crate's files, for the server to watch
  std::string emitList;
  for (const auto& e : emit) emitList += (emitList.empty() ? "" : ",") + e;

  const std::string& crate = unit.crateName;
  std::vector<std::string> remarkArgs;
  if (opts.remarks) remarkArgs = {"-C", "remark=all", "-Zremark-dir=" + (work.path() / "remarks").string()};
  ProcessSpec rustc = rustcCommand(tc, unit, opts, emitList, out, work.path(), remarkArgs, cancel);
  ProcessResult r = runProcess(rustc);
  result.toolTime += r.elapsed;
  if (r.cancelled) {
    result.cancelled = true;
    failAll("cancelled");
    return finish();
  }
  saveTemp(opts, "rustc.stderr", r.err);
  for (auto& d : parseRustcDiagnostics(r.err)) result.diagnostics.push_back(std::move(d));
  if (!r.ok()) {
    std::string why = "rustc " + r.describe();
    bool haveError = std::any_of(result.diagnostics.begin(), result.diagnostics.end(),
                                 [](const Diagnostic& d) { return d.severity == Severity::Error; });
    if (!haveError) {  // crashed, killed or timed out: say so, with what it printed
      Diagnostic d = toolError(why + (r.err.empty() ? "" : ":\n" + r.err.substr(0, 4000)), "rustc");
      result.diagnostics.push_back(std::move(d));
    }
    failAll(haveError ? "the kernel does not compile (see the diagnostics)" : why);
    return finish();
  }
  result.succeeded = true;

  // --- Parse what rustc wrote.
  for (const auto& [ext, name] : {std::pair{".mir", "k.mir"}, {".ll", "k.ll"}, {".s", "k.ptx"}})
    if (fs::exists(out / (crate + ext))) saveTemp(opts, name, readFile(out / (crate + ext)));
  const std::string llvmIrText = readFile(out / (crate + ".ll"));
  Artifact ir = parseLlvmIr(llvmIrText);
  result.sourceFiles = readDepInfo(out / (crate + ".d"), unit.remaps);
  result.sourceFiles.insert(result.sourceFiles.end(), unit.sourceFiles.begin(), unit.sourceFiles.end());
  std::set<std::string> userFileSet = {file.string()};
  // The crate's files and its path dependencies' (or the modules next to a standalone
  // kernel) are the user's too.
  for (const auto& f : result.sourceFiles) userFileSet.insert(f.string());
  for (const auto& l : ir.lines)
    for (const auto& f : l.location)
      for (const auto& dir : unit.userDirs)
        if (f.file.starts_with(dir)) userFileSet.insert(f.file);
  auto lineMap = std::make_shared<LineMap>(std::vector<std::string>(userFileSet.begin(), userFileSet.end()));

  if (wants(Stage::Mir)) {
    auto& st = result.stages[Stage::Mir];
    st.artifact = parseMir(readFile(out / (crate + ".mir")));
    st.available = true;
  }
  if (wants(Stage::LlvmIr)) {
    auto& st = result.stages[Stage::LlvmIr];
    st.artifact = ir;
    st.available = true;
  }
  Artifact ptx;
  ChainTable chains;
  if (needPtx) {
    ptx = parsePtx(readFile(out / (crate + ".s")));
    chains = assignExactChains(ptx, llvmIrText, opts.arch, opts.optLevel);
    recoverInlineChains(ptx, ir, *lineMap);  // only what regeneration could not align
    if (wants(Stage::Ptx)) {
      auto& st = result.stages[Stage::Ptx];
      st.artifact = ptx;
      st.available = true;
    }
  }
  if (opts.remarks) {
    for (const auto& e : fs::directory_iterator(work.path() / "remarks", ec)) {
      std::string yaml = readFile(e.path());
      saveTemp(opts, "remarks." + e.path().filename().string(), yaml);
      for (auto& rem : parseRemarksYaml(yaml))
        if (!isBookkeepingRemark(rem)) result.remarks.push_back(std::move(rem));
    }
    result.remarks = attributeRemarks(std::move(result.remarks), ir, *lineMap);
  }

  PtxBackend backend{ptx, chains, ir, lineMap, out, crate, std::nullopt};
  if (!finishFromPtx(tc, opts, cancel, backend, result)) result.cancelled = true;
  return finish();
}

}  // namespace ks
