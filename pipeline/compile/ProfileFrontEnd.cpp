// The rust-cuda and cuda-oxide front end (FrontEnd.h): runs the profile's cargo command
// (Profile.h) on the file's package and hands the backend's PTX to the shared back end.
// When the profile's tools are missing, every stage says what is missing and how to get it.
#include "FrontEnd.h"

#include <algorithm>
#include <set>

#include "Crate.h"
#include "KernelScan.h"
#include "Parsers.h"
#include "PtxBackend.h"
#include "StableHash.h"
#include "Trust.h"

namespace ks {

namespace fs = std::filesystem;

namespace {

/// The newest file in `dir` (recursively) named `<stem>-<hash><ext>` (rustc's outputs in
/// cargo's deps/) or, unless `hashedOnly`, `<stem><ext>`; any `*<ext>` for an empty stem.
fs::path newestOutput(const fs::path& dir, const std::string& stem, const std::string& ext,
                      bool hashedOnly = false) {
  fs::path best;
  fs::file_time_type bestTime{};
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::string name = it->path().filename().string();
    bool named =
        stem.empty() || (!hashedOnly && name == stem + ext) || name.starts_with(stem + "-");
    if (!name.ends_with(ext) || !named) continue;
    auto t = fs::last_write_time(it->path(), ec);
    if (best.empty() || t > bestTime) best = it->path(), bestTime = t;
  }
  return best;
}

/// The nearest directory upward from `file` that has a Cargo.toml.
fs::path packageRoot(const fs::path& file) {
  std::error_code ec;
  for (fs::path dir = file.parent_path(); !dir.empty(); dir = dir.parent_path()) {
    if (fs::is_regular_file(dir / "Cargo.toml", ec)) return dir;
    if (dir == dir.root_path()) break;
  }
  return {};
}

/// One compile through a profile's cargo command, step by step: the checks, the build of
/// the package as the editor has it, then the stages from what the backend wrote.
class ProfileCompile {
 public:
  ProfileCompile(ToolchainProfile profile, const Toolchain& tc, const CompileInput& input,
                 const ResolvedOptions& opts, const fs::path& work, const fs::path& out,
                 CompileResult& result)
      : profile_(profile),
        name_(profileName(profile)),
        tc_(tc),
        input_(input),
        opts_(opts),
        work_(work),
        out_(out),
        result_(result) {}

  std::optional<FrontEndOutput> run(const CancellationToken& cancel) {
    result_.optLevel =
        profile_ == ToolchainProfile::CudaOxide ? 3 : opts_.optLevel;  // see cudaOxideCommand
    // cargo runs the crate's build scripts and proc macros: the workspace's own code.
    if (!opts_.workspaceTrusted)
      return fail(
          "the " + name_ +
          " profile runs cargo, which runs the crate's build scripts; not run: " + kTrustHint);
    ProfileTools tools = discoverProfileTools(profile_);
    if (!tools.ready()) return fail(tools.missingReport());

    // These backends are driven through cargo (they need -Zbuild-std or their own crates).
    file_ = normalizePath(fs::absolute(input_.path).string());
    root_ = packageRoot(file_);
    if (root_.empty())
      return fail("the " + name_ + " profile compiles Cargo packages: " + file_.string() +
                  " is not in one");
    std::string problem;
    pkg_ = findCrate(tc_, file_, &problem);
    ProfileBuild b = describeBuild(tools);
    std::optional<ProcessResult> r = build(b, cancel);
    if (!r) return std::nullopt;
    return readOutputs(b, *r);
  }

 private:
  std::nullopt_t fail(const std::string& why) { return failCompile(opts_, result_, why); }

  /// The build of the package as the editor has it (a view of it with the unsaved files,
  /// remaps_ mapping it back), with the profile's tools and kernelscope's flags.
  ProfileBuild describeBuild(const ProfileTools& tools) {
    fs::path view = sourceView(root_, unsavedTexts(input_), work_, remaps_);

    ProfileBuild b;
    const fs::path nightly = tools.find("nightly")->path;
    b.cargo = nightly.parent_path() / "cargo";
    b.rustc = nightly;
    b.backend = tools.find("backend")->path;
    b.manifest = view / "Cargo.toml";
    // A package without a library (cuda-oxide's examples are binaries) builds its binaries.
    b.cargoTarget = pkg_ ? std::vector<std::string>{"--lib"} : std::vector<std::string>{"--bins"};
    // Kept between compiles: -Zbuild-std builds core once, not on every keystroke. Cargo
    // locks the directory itself, so concurrent compiles wait rather than collide.
    b.targetDir =
        tc_.cacheDir / "profile-target" / name_ / stableDigest({root_.string()}).substr(0, 16);
    b.outDir = out_;
    b.crateName = pkg_ ? pkg_->crateName : root_.filename().string();
    std::replace(b.crateName.begin(), b.crateName.end(), '-', '_');
    b.arch = opts_.arch;
    b.optLevel = opts_.optLevel;
    for (const auto& [shadow, real] : remaps_)
      b.rustcArgs.push_back("--remap-path-prefix=" + shadow.string() + "=" + real.string());
    if (pkg_) {
      auto flags = crateRustcFlags(*pkg_, opts_, result_.diagnostics);
      b.rustcArgs.insert(b.rustcArgs.end(), flags.begin(), flags.end());
    }
    b.rustcArgs.insert(b.rustcArgs.end(), opts_.extraRustcFlags.begin(),
                       opts_.extraRustcFlags.end());
    b.cudaRoot = tools.cudaRoot;
    if (const ToolInfo* llc = tools.find("llc")) b.llc = llc->path;
    return b;
  }

  /// Runs the profile's command and takes rustc's diagnostics; nullopt when the build was
  /// cancelled or failed (the stages say why).
  std::optional<ProcessResult> build(const ProfileBuild& b, const CancellationToken& cancel) {
    ProfileCommand cmd =
        profile_ == ToolchainProfile::RustCuda ? rustCudaCommand(b) : cudaOxideCommand(b);
    ProcessSpec spec;
    spec.argv = cmd.argv;
    spec.env = cmd.env;
    spec.cwd = cmd.cwd;
    spec.timeout = std::max<std::chrono::milliseconds>(
        opts_.toolTimeout, std::chrono::minutes(10));  // first -Zbuild-std
    spec.cancel = cancel;
    ProcessResult r = tc_.run(spec);
    result_.toolTime += r.elapsed;
    if (r.cancelled) return cancelCompile(opts_, result_);
    for (auto& d : parseRustcDiagnostics(rustcMessagesFromCargo(r.out)))
      result_.diagnostics.push_back(std::move(d));
    if (!r.ok()) {
      if (hasError(result_.diagnostics)) {
        failStages(opts_, result_, "the kernel does not compile (see the diagnostics)");
        return std::nullopt;
      }
      return fail("cargo (" + name_ + ") " + r.describe() + ":\n" + r.err.substr(0, 4000));
    }
    return r;
  }

  /// What the backend wrote: PTX (cargo names rust-cuda's; cuda-oxide's is in its PTX dir)
  /// and the IR it compiled it from; MIR and dep-info from the `cargo rustc` flags.
  std::optional<FrontEndOutput> readOutputs(const ProfileBuild& b, const ProcessResult& r) {
    fs::path ptxFile, irFile;
    if (profile_ == ToolchainProfile::RustCuda) {
      auto ptxs = ptxArtifacts(r.out);
      if (!ptxs.empty()) ptxFile = ptxs.back();
      irFile = out_ / "final-module.ll";
    } else {
      // Named after the crate; else the only module it wrote (a binary's may be named for it).
      ptxFile = newestOutput(out_, b.crateName, ".ptx");
      if (ptxFile.empty()) ptxFile = newestOutput(out_, "", ".ptx");
      irFile = newestOutput(out_, ptxFile.stem().string(), ".ll");
    }
    if (ptxFile.empty() || !fs::exists(ptxFile))
      return fail(name_ + ": the build succeeded but wrote no PTX (is the crate a cdylib?)");
    result_.succeeded = true;
    result_.sourceFiles = readDepInfo(newestOutput(b.targetDir, b.crateName, ".d", true), remaps_);
    std::set<std::string> userFiles = {file_.string()};
    for (const auto& f : result_.sourceFiles)
      if (f.string().starts_with(root_.string() + "/")) userFiles.insert(f.string());
    FrontEndOutput o;
    o.stem = b.crateName;
    o.lineMap =
        std::make_shared<LineMap>(std::vector<std::string>(userFiles.begin(), userFiles.end()));
    if (opts_.wants(Stage::Mir)) readMir(b);
    o.ir = readIr(irFile);
    // The backend's `.loc` lines as printed: no chain regeneration for these.
    o.ptx = parsePtx(readWholeFile(ptxFile));
    if (!o.ir.lines().empty()) recoverInlineChains(o.ptx, o.ir, *o.lineMap);
    if (opts_.wants(Stage::Ptx)) {
      result_.stages[Stage::Ptx].setArtifact(o.ptx);
      result_.stages[Stage::Ptx].available = true;
    }
    return o;
  }

  void readMir(const ProfileBuild& b) {
    fs::path mir = newestOutput(b.targetDir, b.crateName, ".mir", true);
    if (mir.empty()) {
      result_.markUnavailable(opts_, Stage::Mir, "cargo wrote no MIR for " + b.crateName);
      return;
    }
    result_.stages[Stage::Mir].setArtifact(parseMir(readWholeFile(mir)));
    result_.stages[Stage::Mir].available = true;
  }

  /// The backend's IR (the stage when asked for); empty when it wrote none or it does not
  /// parse here.
  Artifact readIr(const fs::path& irFile) {
    if (irFile.empty() || !fs::exists(irFile)) {
      result_.markUnavailable(opts_, Stage::LlvmIr,
                              "the backend wrote no IR (" + irFile.string() + ")");
      return {};
    }
    std::string irError;
    Artifact ir = parseLlvmIr(readWholeFile(irFile), &irError);
    if (!irError.empty()) {
      // rust-cuda's NVVM IR is LLVM 7's dialect (typed pointers): it may not parse here.
      result_.markUnavailable(
          opts_, Stage::LlvmIr,
          "the backend's IR (" + irFile.string() + ") does not parse: " + irError);
      return {};
    }
    if (opts_.wants(Stage::LlvmIr)) {
      result_.stages[Stage::LlvmIr].setArtifact(ir);
      result_.stages[Stage::LlvmIr].available = true;
    }
    return ir;
  }

  const ToolchainProfile profile_;
  const std::string name_;
  const Toolchain& tc_;
  const CompileInput& input_;
  const ResolvedOptions& opts_;
  const fs::path& work_;
  const fs::path& out_;
  CompileResult& result_;
  fs::path file_;  // the compiled file, absolute
  fs::path root_;  // its package
  std::optional<CratePackage> pkg_;
  std::vector<std::pair<fs::path, fs::path>> remaps_;  // view path -> real path
};

class ProfileFrontEnd final : public FrontEnd {
 public:
  explicit ProfileFrontEnd(ToolchainProfile profile) : profile_(profile) {}
  std::string_view name() const override { return profileName(profile_); }

  std::optional<FrontEndOutput> compile(const Toolchain& tc, const CompileInput& input,
                                        const ResolvedOptions& opts,
                                        const CancellationToken& cancel, const fs::path& work,
                                        const fs::path& out, CompileResult& result) override {
    return ProfileCompile(profile_, tc, input, opts, work, out, result).run(cancel);
  }

  void complete(const CompileInput& input, const ResolvedOptions&,
                CompileResult& result) const override {
    // Without line info a kernel's definition is found by its name in the source.
    const fs::path file = normalizePath(fs::absolute(input.path).string());
    const std::string source = input.text ? *input.text : readRegularFile(file).text;
    for (auto& k : result.kernels)
      if (k.definition.line == 0)
        if (auto entry = kernelEntryFor(source, k.symbol))
          k.definition = Frame{file.string(), entry->line, entry->column, entry->name};
  }

 private:
  ToolchainProfile profile_;
};

}  // namespace

std::unique_ptr<FrontEnd> profileFrontEnd(ToolchainProfile profile) {
  return std::make_unique<ProfileFrontEnd>(profile);
}

}  // namespace ks
