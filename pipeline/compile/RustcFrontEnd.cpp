// The rustc front end: one rustc call for MIR, LLVM IR, PTX, diagnostics and remarks, the
// exact inline chains of the PTX regenerated from the IR (ExactLocations.h).
#include <future>
#include <set>

#include "Access.h"
#include "Crate.h"
#include "ExactLocations.h"
#include "Files.h"
#include "FrontEnd.h"
#include "Parsers.h"
#include "PtxBackend.h"
#include "Remarks.h"
#include "Trust.h"
#include "llvm/IR/Module.h"

namespace ks {

namespace fs = std::filesystem;

ProcessSpec rustcCommand(const Toolchain& tc, const RustcUnit& unit, const ResolvedOptions& opts,
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
                                        const ResolvedOptions& opts,
                                        const CancellationToken& cancel, const fs::path& work,
                                        const fs::path& out, CompileResult& result) override {
    if (std::string why = inputProblem(tc, input); !why.empty())
      return failCompile(opts, result, why);

    // The file's crate (its path dependencies built) or the file alone; see Crate.h.
    RustcUnit unit = prepareRustcUnit(tc, input, opts, work, cancel);
    if (!takeUnit(unit, opts, result))
      return unit.cancelled ? cancelCompile(opts, result) : std::nullopt;

    // --- rustc: MIR, LLVM IR, PTX, diagnostics and remarks in one call.
    remarkDir_ = opts.remarks ? work / "remarks" : fs::path();
    ProcessResult r = runUnit(tc, unit, opts, out, work, cancel, result);
    if (unit.cargoCouldNotResolve) {  // a workspace cargo cannot resolve offline: rustc alone
      unit = rustcAloneAfterCargo(tc, input, opts, work, cancel, r.err);
      if (!takeUnit(unit, opts, result))
        return unit.cancelled ? cancelCompile(opts, result) : std::nullopt;
      r = runUnit(tc, unit, opts, out, work, cancel, result);
    }
    if (r.cancelled) return cancelCompile(opts, result);
    const bool needPtx = opts.wants(Stage::Ptx) || opts.wants(Stage::Sass);
    if (!takeRun(r, unit, opts, out, result)) return std::nullopt;
    result.succeeded = true;
    FrontEndOutput o = readOutputs(tc, input, unit, opts, out, result);
    if (needPtx && ptxFrom_ == PtxFrom::Nowhere) {  // our back end failed: MIR and IR only
      kernelTable(o, opts, result);
      return std::nullopt;
    }
    return o;
  }

  void afterFirstView(FrontEndOutput& o, const ResolvedOptions& opts,
                      CompileResult& result) override {
    // The remarks are read on a thread of their own while the backend regenerates the PTX:
    // both only read the IR and the line map of the first view.
    std::future<std::vector<Remark>> remarks;
    if (!remarkDir_.empty())
      remarks = std::async(std::launch::async, [&] { return readRemarks(o, opts); });
    if (ptxFrom_ == PtxFrom::Rustc) completeChains(o, opts, result);
    module_.reset();
    if (remarks.valid()) result.remarks = remarks.get();
  }

 private:
  /// Where the PTX comes from. rustc's LLVM is often the one kernelscope links (Debian's
  /// rustc and kernelscope share the system's): its NVPTX back end then makes, from rustc's
  /// IR, the PTX rustc would (byte for byte), with every instruction's exact chain as it
  /// prints it, in about the time rustc's own back end takes. Otherwise rustc makes it and
  /// its chains are regenerated after the first view (ExactLocations.h).
  enum class PtxFrom { Nowhere, Rustc, OurBackEnd };

  /// Whether rustc's back end would do what ours does: the same LLVM release, and nothing
  /// in rustc's arguments that sets the back end up otherwise (cargo builds may add flags
  /// of their own, so they keep rustc's back end).
  static bool backEndIsRustcs(const Toolchain& tc, const RustcUnit& unit,
                              const ResolvedOptions& opts) {
    if (unit.cargo || tc.rustcLlvm != backEndLlvmRelease()) return false;
    std::vector<std::string> args = unit.args;
    args.insert(args.end(), opts.extraRustcFlags.begin(), opts.extraRustcFlags.end());
    return leavesBackEndAlone(args);
  }
  /// rustc's remarks from its remark files, on the user's lines.
  std::vector<Remark> readRemarks(const FrontEndOutput& o, const ResolvedOptions& opts) const {
    std::vector<Remark> remarks;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(remarkDir_, ec)) {
      std::string yaml = readWholeFile(e.path());
      saveTemp(opts, "remarks." + e.path().filename().string(), yaml);
      for (auto& rem : parseRemarksYaml(yaml, /*withBookkeeping=*/false))
        remarks.push_back(std::move(rem));
    }
    return attributeRemarks(std::move(remarks), o.ir, *o.lineMap);
  }

  /// The PTX's exact chains, regenerated from rustc's IR (ExactLocations.h), as the PTX
  /// stage in a new line map.
  void completeChains(FrontEndOutput& o, const ResolvedOptions& opts, CompileResult& result) {
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

  /// Why rustc cannot compile the input at all (no rustc, no core, an unreadable file).
  static std::string inputProblem(const Toolchain& tc, const CompileInput& input) {
    if (!tc.rustc.found() || !tc.sysroot.found()) {
      const ToolInfo& t = tc.rustc.found() ? tc.sysroot : tc.rustc;
      return t.name + ": " + t.problem + (t.fix.empty() ? "" : " (fix: " + t.fix + ")");
    }
    const fs::path file = fs::path(normalizePath(fs::absolute(input.path).string()));
    std::error_code ec;
    if (!input.text && (!fs::exists(file, ec) || unreadableFileProblem(file)))
      return "cannot read " + file.string() + ": " +
             unreadableFileProblem(file).value_or("no such file");
    return {};
  }

  /// rustc's --emit for the stages asked for.
  static std::string emitFor(const ResolvedOptions& opts, const RustcUnit& unit, bool needPtx) {
    // Cargo's fingerprint covers the kernel crate's arguments: through cargo it gets the same
    // ones on every compile, whatever the stages, so that an unchanged crate is not rebuilt.
    if (unit.cargo) return "mir,llvm-ir,asm,dep-info";
    std::string emit = opts.wants(Stage::Mir) ? "mir," : "";
    emit += "llvm-ir";  // always: it completes the inline chains of PTX and SASS
    if (needPtx) emit += ",asm";
    emit += ",dep-info";  // the crate's files, for the server to watch
    return emit;
  }

  /// Takes rustc's diagnostics and the crate's files from its run; false when it failed
  /// (every wanted stage then says why).
  /// Takes a prepared unit's diagnostics and tool time into `result`; false when nothing
  /// can be compiled (failed or cancelled).
  static bool takeUnit(const RustcUnit& unit, const ResolvedOptions& opts, CompileResult& result) {
    result.toolTime += unit.toolTime;
    result.diagnostics = unit.diagnostics;
    if (unit.crate) result.crateManifest = unit.crate->manifest;
    if (unit.cancelled) return false;
    if (!unit.failure.empty()) {
      failStages(opts, result, unit.failure);
      result.failure = unit.failure;
      return false;
    }
    return true;
  }

  /// Chooses where the PTX comes from for `unit` and runs rustc (or cargo) on it.
  ProcessResult runUnit(const Toolchain& tc, RustcUnit& unit, const ResolvedOptions& opts,
                        const fs::path& out, const fs::path& work, const CancellationToken& cancel,
                        CompileResult& result) {
    const bool needPtx = opts.wants(Stage::Ptx) || opts.wants(Stage::Sass);
    ptxFrom_ = !needPtx                          ? PtxFrom::Nowhere
               : backEndIsRustcs(tc, unit, opts) ? PtxFrom::OurBackEnd
                                                 : PtxFrom::Rustc;
    // The IR keeps the order of each value's uses, which the back end's choices follow (a
    // reparsed module would have its own), so our back end sees what rustc's did.
    const std::vector<std::string> keepUseOrder = {"-C", "llvm-args=-preserve-ll-uselistorder"};
    const size_t said = unit.diagnostics.size();
    ProcessResult r = runRustcUnit(tc, unit, opts, emitFor(opts, unit, ptxFrom_ == PtxFrom::Rustc),
                                   out, work, keepUseOrder, remarkDir_, cancel);
    // What the run said about the crate besides rustc (the user's rustflags it overrode).
    result.diagnostics.insert(result.diagnostics.end(), unit.diagnostics.begin() + said,
                              unit.diagnostics.end());
    result.toolTime += r.elapsed;
    return r;
  }

  static bool takeRun(const ProcessResult& r, const RustcUnit& unit, const ResolvedOptions& opts,
                      const fs::path& out, CompileResult& result) {
    saveTemp(opts, "rustc.stderr", r.err);
    for (auto& d : parseRustcDiagnostics(r.err)) result.diagnostics.push_back(std::move(d));
    // rustc writes dep-info once the crate's modules are read, before type checking, so a
    // compile with errors still lists its files: an edit elsewhere does not recompile it.
    result.sourceFiles = readDepInfo(out / (unit.crateName + ".d"), unit.remaps);
    result.sourceFiles.insert(result.sourceFiles.end(), unit.sourceFiles.begin(),
                              unit.sourceFiles.end());
    if (r.ok() && !fs::exists(out / (unit.crateName + ".ll"))) {
      // It succeeded without the IR asked for: a flag of the build's stopped code generation
      // or sent the IR elsewhere. Said, not shown as a crate without kernels.
      const std::string why =
          "rustc made no LLVM IR of the crate where kernelscope reads it: a flag of the build "
          "(the crate's rustc-flags or rustflags: -Zno-codegen, --emit=llvm-ir=PATH) stops or "
          "moves it";
      result.diagnostics.push_back(toolError(why, "rustc"));
      result.failure = why;
      failStages(opts, result, why);
      return false;
    }
    if (r.ok()) return true;
    std::string why = (unit.cargo ? "cargo " : "rustc ") + r.describe();
    bool haveError = hasError(result.diagnostics);
    if (!haveError) {  // crashed, killed or timed out: say so, with what it printed
      result.diagnostics.push_back(
          toolError(why + (r.err.empty() ? "" : ":\n" + r.err.substr(0, 4000)), "rustc"));
      result.failure = why;
    }
    failStages(opts, result, haveError ? "the kernel does not compile (see the diagnostics)" : why);
    return false;
  }

  /// Parses what rustc wrote into the stages asked for and what the back end needs.
  FrontEndOutput readOutputs(const Toolchain& tc, const CompileInput& input, const RustcUnit& unit,
                             const ResolvedOptions& opts, const fs::path& out,
                             CompileResult& result) {
    const std::string& crate = unit.crateName;
    for (const auto& [ext, name] : {std::pair{".mir", "k.mir"}, {".ll", "k.ll"}, {".s", "k.ptx"}})
      if (fs::exists(out / (crate + ext))) saveTemp(opts, name, readWholeFile(out / (crate + ext)));
    FrontEndOutput o;
    o.stem = crate;
    // The MIR is read on a thread of its own while the IR and PTX are (the first view waits
    // for all three). The IR is parsed once: read into the artifact, then compiled to PTX or
    // used to regenerate rustc's PTX's chains (afterFirstView).
    std::future<Artifact> mir;
    if (opts.wants(Stage::Mir))
      mir = std::async(std::launch::async,
                       [path = out / (crate + ".mir")] { return parseMir(readWholeFile(path)); });
    if (ptxFrom_ == PtxFrom::Rustc) o.ptx = parsePtx(readWholeFile(out / (crate + ".s")));
    o.ir = parseLlvmIr(readWholeFile(out / (crate + ".ll")), &irError_,
                       ptxFrom_ != PtxFrom::Nowhere ? &module_ : nullptr);
    o.lineMap = userLineMap(input, unit, result, o.ir);
    // The costs' access classes read the module as rustc made it, before a back end lowers
    // it: on a thread of their own, over a copy, while the back end runs; with a line map of
    // their own too, as the stages are added to this one meanwhile (kernelTable).
    if (module_.module && opts.costs && opts.wants(Stage::Sass))
      o.access = analyzeAccessesAside(*module_.module, std::make_shared<const LineMap>(*o.lineMap),
                                      opts.arch);
    if (ptxFrom_ == PtxFrom::OurBackEnd) compileIr(tc, unit, opts, o, result);
    if (ptxFrom_ == PtxFrom::Rustc && module_.module) linkedImage(tc, unit, opts, o, result);

    if (mir.valid()) {
      auto& st = result.stages[Stage::Mir];
      st.setArtifact(mir.get());
      st.available = true;
    }
    if (opts.wants(Stage::LlvmIr)) {
      auto& st = result.stages[Stage::LlvmIr];
      st.setArtifact(o.ir);
      st.available = true;
    }
    if (opts.wants(Stage::Ptx) && ptxFrom_ != PtxFrom::Nowhere) {
      // rustc's is first shown with guessed chains (afterFirstView); ours has its own.
      auto& st = result.stages[Stage::Ptx];
      Artifact ptx = o.ptx;
      recoverInlineChains(ptx, o.ir, *o.lineMap);
      st.setArtifact(std::move(ptx));
      st.available = true;
    }
    return o;
  }

  /// Makes the PTX of rustc's IR with our back end (see PtxFrom), with the back end's
  /// remarks where rustc would have written them. When it cannot, the PTX and SASS say why
  /// and there is no PTX (PtxFrom::Nowhere).
  void compileIr(const Toolchain& tc, const RustcUnit& unit, const ResolvedOptions& opts,
                 FrontEndOutput& o, CompileResult& result) {
    const std::string& crate = unit.crateName;
    std::string why = irError_.empty() ? "" : "cannot read rustc's LLVM IR: " + irError_;
    if (module_.module) {
      // The PTX shown is the launched image's: the kernels' own code as rustc would make it,
      // then what they call from their dependencies and `core` (CoreLink.h).
      takeLink(linkForLaunch(*module_.module, tc.sysroot.path, unit.dependencyRlibs, opts.arch,
                             opts.optLevel),
               o, result);
      const std::string remarks =
          remarkDir_.empty() ? "" : (remarkDir_ / (crate + ".codegen.opt.yaml")).string();
      if (std::optional<Artifact> ptx =
              compilePtx(*module_.module, opts.arch, opts.optLevel, why, remarks)) {
        markLinkedFunctions(*ptx, result.linkedFunctions);
        saveTemp(opts, "k.ptx", ptx->text());
        o.ptx = std::move(*ptx);
      }
    }
    module_.reset();
    if (why.empty()) return;
    why = "the NVPTX back end could not compile rustc's IR: " + why;
    result.diagnostics.push_back(toolError(why));
    for (Stage s : {Stage::Ptx, Stage::Sass}) result.markUnavailable(opts, s, why);
    ptxFrom_ = PtxFrom::Nowhere;
  }

  /// Where the PTX is rustc's and calls into `core`: the launched image made apart
  /// (compileLinkedCopy), for ptxas; without it ptxas assembles rustc's PTX as before.
  void linkedImage(const Toolchain& tc, const RustcUnit& unit, const ResolvedOptions& opts,
                   FrontEndOutput& o, CompileResult& result) {
    if (!callsDeclaredFunctions(*module_.module)) return;
    CoreLink link;
    std::string why;
    o.linked = compileLinkedCopy(*module_.module, tc.sysroot.path, unit.dependencyRlibs, opts.arch,
                                 opts.optLevel, link, why);
    if (!o.linked) {
      result.diagnostics.push_back(
          toolError("cannot make the launched image: the NVPTX back end failed: " + why));
      return;
    }
    saveTemp(opts, "linked.ptx", o.linked->text());
    takeLink(std::move(link), o, result);
  }

  /// Records a link's outcome: its functions on the result, what it left undefined for
  /// ptxas's turn, and a warning when the sysroot could not be read.
  static void takeLink(CoreLink link, FrontEndOutput& o, CompileResult& result) {
    o.linkedForLaunch = true;
    if (!link.error.empty()) {
      Diagnostic d = toolError("cannot link what the kernel calls from core: " + link.error);
      d.severity = Severity::Warning;
      result.diagnostics.push_back(std::move(d));
    }
    result.linkedFunctions = std::move(link.linked);
    o.unresolved = std::move(link.unresolved);
  }

  /// The line map over the user's files: the crate's files and its path dependencies' (or
  /// the modules next to a standalone kernel).
  static std::shared_ptr<LineMap> userLineMap(const CompileInput& input, const RustcUnit& unit,
                                              const CompileResult& result, const Artifact& ir) {
    std::set<std::string> userFiles = {normalizePath(fs::absolute(input.path).string())};
    for (const auto& f : result.sourceFiles) userFiles.insert(f.string());
    for (const auto& l : ir.lines())
      for (const auto& f : l.location)
        for (const auto& dir : unit.userDirs)
          if (f.file.starts_with(dir)) userFiles.insert(f.file);
    return std::make_shared<LineMap>(std::vector<std::string>(userFiles.begin(), userFiles.end()));
  }

  fs::path remarkDir_;  // where rustc wrote its remarks; empty: none wanted
  PtxFrom ptxFrom_ = PtxFrom::Nowhere;
  LlvmModule module_;  // rustc's IR, kept from parsing to compileIr or afterFirstView
  std::string irError_;
};

}  // namespace

std::unique_ptr<FrontEnd> rustcFrontEnd() { return std::make_unique<RustcFrontEnd>(); }

}  // namespace ks
