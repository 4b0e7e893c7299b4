// The rustc front end: one rustc call for MIR, LLVM IR, PTX, diagnostics and remarks, the
// exact inline chains of the PTX regenerated from the IR (ExactLocations.h).
#include <set>

#include "Crate.h"
#include "Files.h"
#include "FrontEnd.h"
#include "Parsers.h"
#include "PtxBackend.h"
#include "Remarks.h"

namespace ks {

namespace fs = std::filesystem;

ProcessSpec rustcCommand(const Toolchain& tc, const RustcUnit& unit, const CompileOptions& opts,
                         const std::string& emit, const fs::path& outDir, const fs::path& workDir,
                         const std::vector<std::string>& extraArgs,
                         const CancellationToken& cancel) {
  ProcessSpec rustc;
  rustc.argv = rustcTargetArgs(tc, opts);
  rustc.argv.insert(rustc.argv.begin(), tc.rustc.path.string());
  rustc.argv.insert(rustc.argv.end(),
                    {"--edition", unit.edition, "--crate-type", "rlib", "--crate-name",
                     unit.crateName, "-Zmir-include-spans=on", "--error-format=json",
                     "--emit=" + emit, "--out-dir", outDir.string()});
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

namespace {

class RustcFrontEnd final : public FrontEnd {
 public:
  std::string_view name() const override { return "build"; }

  std::optional<FrontEndOutput> compile(const Toolchain& tc, const CompileInput& input,
                                        const CompileOptions& opts, const CancellationToken& cancel,
                                        const fs::path& work, const fs::path& out,
                                        CompileResult& result) override {
    if (!tc.rustc.found() || !tc.sysroot.found()) {
      const ToolInfo& t = tc.rustc.found() ? tc.sysroot : tc.rustc;
      return fail(opts, result,
                  t.name + ": " + t.problem + (t.fix.empty() ? "" : " (fix: " + t.fix + ")"));
    }
    const fs::path file = fs::path(normalizePath(fs::absolute(input.path).string()));
    std::error_code ec;
    if (!input.text && (!fs::exists(file, ec) || unreadableFileProblem(file)))
      return fail(opts, result,
                  "cannot read " + file.string() + ": " +
                      unreadableFileProblem(file).value_or("no such file"));

    // The file's crate (its path dependencies built) or the file alone; see Crate.h.
    RustcUnit unit = prepareRustcUnit(tc, input, opts, work, cancel);
    result.toolTime += unit.toolTime;
    result.diagnostics = unit.diagnostics;
    if (unit.crate) result.crateManifest = unit.crate->manifest;
    if (unit.cancelled) return cancelled(opts, result);
    if (!unit.failure.empty()) {
      failStages(opts, result, unit.failure);
      result.failure = unit.failure;
      return std::nullopt;
    }

    // --- rustc: MIR, LLVM IR, PTX, diagnostics and remarks in one call.
    bool needPtx = opts.wants(Stage::Ptx) || opts.wants(Stage::Sass);
    std::string emit = opts.wants(Stage::Mir) ? "mir," : "";
    emit += "llvm-ir";  // always: it completes the inline chains of PTX and SASS
    if (needPtx) emit += ",asm";
    emit += ",dep-info";  // the crate's files, for the server to watch
    // Cargo's fingerprint covers the kernel crate's arguments: through cargo it gets the same
    // ones on every compile, whatever the stages, so that an unchanged crate is not rebuilt.
    if (unit.cargo) emit = "mir,llvm-ir,asm,dep-info";
    const std::string& crate = unit.crateName;
    remarkDir_ = opts.remarks ? work / "remarks" : fs::path();
    ProcessResult r = runRustcUnit(tc, unit, opts, emit, out, work, {}, remarkDir_, cancel);
    result.toolTime += r.elapsed;
    if (r.cancelled) return cancelled(opts, result);
    saveTemp(opts, "rustc.stderr", r.err);
    for (auto& d : parseRustcDiagnostics(r.err)) result.diagnostics.push_back(std::move(d));
    // rustc writes dep-info once the crate's modules are read, before type checking, so a
    // compile with errors still lists its files: an edit elsewhere does not recompile it.
    result.sourceFiles = readDepInfo(out / (crate + ".d"), unit.remaps);
    result.sourceFiles.insert(result.sourceFiles.end(), unit.sourceFiles.begin(),
                              unit.sourceFiles.end());
    if (!r.ok()) {
      std::string why = (unit.cargo ? "cargo " : "rustc ") + r.describe();
      bool haveError =
          std::any_of(result.diagnostics.begin(), result.diagnostics.end(),
                      [](const Diagnostic& d) { return d.severity == Severity::Error; });
      if (!haveError) {  // crashed, killed or timed out: say so, with what it printed
        result.diagnostics.push_back(
            toolError(why + (r.err.empty() ? "" : ":\n" + r.err.substr(0, 4000)), "rustc"));
        result.failure = why;
      }
      failStages(opts, result,
                 haveError ? "the kernel does not compile (see the diagnostics)" : why);
      return std::nullopt;
    }
    result.succeeded = true;

    // --- Parse what rustc wrote.
    for (const auto& [ext, name] : {std::pair{".mir", "k.mir"}, {".ll", "k.ll"}, {".s", "k.ptx"}})
      if (fs::exists(out / (crate + ext))) saveTemp(opts, name, readFile(out / (crate + ext)));
    FrontEndOutput o;
    o.stem = crate;
    // The IR is parsed once: read into the artifact, then given chain ids for the PTX
    // (afterFirstView).
    completes_ = needPtx;
    if (needPtx) o.ptx = parsePtx(readFile(out / (crate + ".s")));
    o.ir = parseLlvmIr(readFile(out / (crate + ".ll")), &irError_, needPtx ? &module_ : nullptr);
    // The crate's files and its path dependencies' (or the modules next to a standalone
    // kernel) are the user's too.
    std::set<std::string> userFiles = {file.string()};
    for (const auto& f : result.sourceFiles) userFiles.insert(f.string());
    for (const auto& l : o.ir.lines)
      for (const auto& f : l.location)
        for (const auto& dir : unit.userDirs)
          if (f.file.starts_with(dir)) userFiles.insert(f.file);
    o.lineMap =
        std::make_shared<LineMap>(std::vector<std::string>(userFiles.begin(), userFiles.end()));

    if (opts.wants(Stage::Mir)) {
      auto& st = result.stages[Stage::Mir];
      st.artifact = parseMir(readFile(out / (crate + ".mir")));
      st.available = true;
    }
    if (opts.wants(Stage::LlvmIr)) {
      auto& st = result.stages[Stage::LlvmIr];
      st.artifact = o.ir;
      st.available = true;
    }
    if (opts.wants(Stage::Ptx)) {  // first shown with guessed chains: see afterFirstView
      auto& st = result.stages[Stage::Ptx];
      st.artifact = o.ptx;
      recoverInlineChains(st.artifact, o.ir, *o.lineMap);
      st.available = true;
    }
    return o;
  }

  void afterFirstView(FrontEndOutput& o, const CompileOptions& opts,
                      CompileResult& result) override {
    if (!remarkDir_.empty()) {
      std::error_code ec;
      for (const auto& e : fs::directory_iterator(remarkDir_, ec)) {
        std::string yaml = readFile(e.path());
        saveTemp(opts, "remarks." + e.path().filename().string(), yaml);
        for (auto& rem : parseRemarksYaml(yaml))
          if (!isBookkeepingRemark(rem)) result.remarks.push_back(std::move(rem));
      }
      result.remarks = attributeRemarks(std::move(result.remarks), o.ir, *o.lineMap);
    }
    if (!completes_) return;  // no PTX asked for
    ChainTable regenerated;
    if (module_.module)
      regenerated = assignExactChains(o.ptx, *module_.module, opts.arch, opts.optLevel, &o.ir);
    else
      regenerated.error = "cannot read rustc's LLVM IR" + (irError_.empty() ? "" : ": " + irError_);
    module_.reset();
    if (auto warning = chainRegenerationWarning(regenerated))
      result.diagnostics.push_back(std::move(*warning));
    recoverInlineChains(o.ptx, o.ir, *o.lineMap);  // only what regeneration could not align
    replacePtx(o, opts, result);
  }

 private:
  fs::path remarkDir_;      // where rustc wrote its remarks; empty: none wanted
  bool completes_ = false;  // the PTX's chains are completed after the first view
  LlvmModule module_;       // rustc's IR, kept from parsing to afterFirstView
  std::string irError_;

  static std::nullopt_t fail(const CompileOptions& opts, CompileResult& result,
                             const std::string& why) {
    result.diagnostics.push_back(toolError(why));
    failStages(opts, result, why);
    return std::nullopt;
  }
  static std::nullopt_t cancelled(const CompileOptions& opts, CompileResult& result) {
    result.cancelled = true;
    failStages(opts, result, "cancelled");
    return std::nullopt;
  }
};

}  // namespace

std::unique_ptr<FrontEnd> rustcFrontEnd() { return std::make_unique<RustcFrontEnd>(); }

}  // namespace ks
