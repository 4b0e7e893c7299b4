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

}  // namespace

namespace {

class ProfileFrontEnd final : public FrontEnd {
 public:
  explicit ProfileFrontEnd(ToolchainProfile profile) : profile_(profile) {}
  std::string_view name() const override { return profileName(profile_); }

  std::optional<FrontEndOutput> compile(const Toolchain& tc, const CompileInput& input,
                                        const CompileOptions& opts, const CancellationToken& cancel,
                                        const fs::path& work, const fs::path& out,
                                        CompileResult& result) override {
    const ToolchainProfile profile = profile_;
    result.optLevel =
        profile == ToolchainProfile::CudaOxide ? 3 : opts.optLevel;  // see cudaOxideCommand
    auto fail = [&](const std::string& why) {
      result.diagnostics.push_back(toolError(why));
      failStages(opts, result, why);
      return std::nullopt;
    };
    // cargo runs the crate's build scripts and proc macros: the workspace's own code.
    if (!opts.workspaceTrusted)
      return fail(
          "the " + std::string(profileName(profile)) +
          " profile runs cargo, which runs the crate's build scripts; not run: " + kTrustHint);
    ProfileTools tools = discoverProfileTools(profile);
    if (!tools.ready()) return fail(tools.missingReport());

    // These backends are driven through cargo (they need -Zbuild-std or their own crates).
    const fs::path file = normalizePath(fs::absolute(input.path).string());
    const fs::path root = packageRoot(file);
    if (root.empty())
      return fail("the " + std::string(profileName(profile)) +
                  " profile compiles Cargo packages: " + file.string() + " is not in one");
    std::string problem;
    auto pkg = findCrate(tc, file, &problem);

    std::map<std::string, std::string> overlays;
    for (const auto& [path, text] : input.overlays)
      overlays[normalizePath(fs::absolute(path).string())] = text;
    if (input.text) overlays[file.string()] = *input.text;
    std::vector<std::pair<fs::path, fs::path>> remaps;
    fs::path view = sourceView(root, overlays, work, remaps);

    ProfileBuild b;
    const fs::path nightly = tools.find("nightly")->path;
    b.cargo = nightly.parent_path() / "cargo";
    b.rustc = nightly;
    b.backend = tools.find("backend")->path;
    b.manifest = view / "Cargo.toml";
    // A package without a library (cuda-oxide's examples are binaries) builds its binaries.
    b.cargoTarget = pkg ? std::vector<std::string>{"--lib"} : std::vector<std::string>{"--bins"};
    // Kept between compiles: -Zbuild-std builds core once, not on every keystroke. Cargo
    // locks the directory itself, so concurrent compiles wait rather than collide.
    b.targetDir = tc.cacheDir / "profile-target" / profileName(profile) /
                  stableDigest({root.string()}).substr(0, 16);
    b.outDir = out;
    b.crateName = pkg ? pkg->crateName : root.filename().string();
    std::replace(b.crateName.begin(), b.crateName.end(), '-', '_');
    b.arch = opts.arch;
    b.optLevel = opts.optLevel;
    for (const auto& [shadow, real] : remaps)
      b.rustcArgs.push_back("--remap-path-prefix=" + shadow.string() + "=" + real.string());
    if (pkg) {
      auto flags = crateRustcFlags(*pkg, opts, result.diagnostics);
      b.rustcArgs.insert(b.rustcArgs.end(), flags.begin(), flags.end());
    }
    b.rustcArgs.insert(b.rustcArgs.end(), opts.extraRustcFlags.begin(), opts.extraRustcFlags.end());
    b.cudaRoot = tools.cudaRoot;
    if (const ToolInfo* llc = tools.find("llc")) b.llc = llc->path;
    ProfileCommand cmd =
        profile == ToolchainProfile::RustCuda ? rustCudaCommand(b) : cudaOxideCommand(b);

    ProcessSpec spec;
    spec.argv = cmd.argv;
    spec.env = cmd.env;
    spec.cwd = cmd.cwd;
    spec.timeout = std::max<std::chrono::milliseconds>(
        opts.toolTimeout, std::chrono::minutes(10));  // first -Zbuild-std
    spec.cancel = cancel;
    ProcessResult r = runProcess(spec);
    result.toolTime += r.elapsed;
    if (r.cancelled) {
      result.cancelled = true;
      failStages(opts, result, "cancelled");
      return std::nullopt;
    }
    for (auto& d : parseRustcDiagnostics(rustcMessagesFromCargo(r.out)))
      result.diagnostics.push_back(std::move(d));
    bool haveError = std::any_of(result.diagnostics.begin(), result.diagnostics.end(),
                                 [](const Diagnostic& d) { return d.severity == Severity::Error; });
    if (!r.ok()) {
      if (haveError) {
        failStages(opts, result, "the kernel does not compile (see the diagnostics)");
        return std::nullopt;
      }
      return fail("cargo (" + std::string(profileName(profile)) + ") " + r.describe() + ":\n" +
                  r.err.substr(0, 4000));
    }

    // What the backend wrote: PTX (cargo names rust-cuda's; cuda-oxide's is in its PTX dir)
    // and the IR it compiled it from; MIR and dep-info from the `cargo rustc` flags.
    fs::path ptxFile, irFile;
    if (profile == ToolchainProfile::RustCuda) {
      auto ptxs = ptxArtifacts(r.out);
      if (!ptxs.empty()) ptxFile = ptxs.back();
      irFile = out / "final-module.ll";
    } else {
      // Named after the crate; else the only module it wrote (a binary's may be named for it).
      ptxFile = newestOutput(out, b.crateName, ".ptx");
      if (ptxFile.empty()) ptxFile = newestOutput(out, "", ".ptx");
      irFile = newestOutput(out, ptxFile.stem().string(), ".ll");
    }
    if (ptxFile.empty() || !fs::exists(ptxFile))
      return fail(std::string(profileName(profile)) +
                  ": the build succeeded but wrote no PTX (is the crate a cdylib?)");
    result.succeeded = true;
    result.sourceFiles = readDepInfo(newestOutput(b.targetDir, b.crateName, ".d", true), remaps);
    std::set<std::string> userFiles = {file.string()};
    for (const auto& f : result.sourceFiles)
      if (f.string().starts_with(root.string() + "/")) userFiles.insert(f.string());
    FrontEndOutput o;
    o.stem = b.crateName;
    o.lineMap =
        std::make_shared<LineMap>(std::vector<std::string>(userFiles.begin(), userFiles.end()));

    if (opts.wants(Stage::Mir)) {
      fs::path mir = newestOutput(b.targetDir, b.crateName, ".mir", true);
      if (mir.empty()) {
        result.markUnavailable(opts, Stage::Mir, "cargo wrote no MIR for " + b.crateName);
      } else {
        result.stages[Stage::Mir].artifact = parseMir(readFile(mir));
        result.stages[Stage::Mir].available = true;
      }
    }
    std::string irError;
    Artifact& ir = o.ir;
    if (irFile.empty() || !fs::exists(irFile)) {
      result.markUnavailable(opts, Stage::LlvmIr,
                             "the backend wrote no IR (" + irFile.string() + ")");
    } else if (ir = parseLlvmIr(readFile(irFile), &irError); !irError.empty()) {
      // rust-cuda's NVVM IR is LLVM 7's dialect (typed pointers): it may not parse here.
      result.markUnavailable(
          opts, Stage::LlvmIr,
          "the backend's IR (" + irFile.string() + ") does not parse: " + irError);
      ir = Artifact{};
    } else if (opts.wants(Stage::LlvmIr)) {
      result.stages[Stage::LlvmIr].artifact = ir;
      result.stages[Stage::LlvmIr].available = true;
    }
    // The backend's `.loc` lines as printed: no chain regeneration for these.
    o.ptx = parsePtx(readFile(ptxFile));
    if (!ir.lines.empty()) recoverInlineChains(o.ptx, ir, *o.lineMap);
    if (opts.wants(Stage::Ptx)) {
      result.stages[Stage::Ptx].artifact = o.ptx;
      result.stages[Stage::Ptx].available = true;
    }
    return o;
  }

  void complete(const CompileInput& input, const CompileOptions&,
                CompileResult& result) const override {
    // Without line info a kernel's definition is found by its name in the source.
    const fs::path file = normalizePath(fs::absolute(input.path).string());
    const std::string source = input.text ? *input.text : readFile(file);
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
