// Toolchain discovery, the `core` sysroot cache and the doctor report.
#include "Toolchain.h"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <llvm/Object/Archive.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Program.h>

#include "Artifact.h"
#include "Files.h"
#include "Process.h"
#include "StableHash.h"
#include "TextUtil.h"
#include "ToolchainCache.h"

namespace ks {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kTarget = "nvptx64-nvidia-cuda";

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

/// Runs a probe from `/`: a rustup proxy chooses its toolchain by the `rust-toolchain.toml`
/// of its working directory and the directories above, and the language server's working
/// directory is often the workspace, whose file could name any program as a "toolchain".
ProcessResult quickRun(std::vector<std::string> argv) {
  ProcessSpec spec;
  spec.argv = std::move(argv);
  spec.cwd = "/";
  spec.timeout = std::chrono::seconds(20);
  spec.outputCap = 1 << 20;
  return runProcess(spec);
}

/// The value of `key: value` in `rustc -vV` output.
std::string field(std::string_view text, std::string_view key) {
  for (auto line : splitLines(text)) {
    if (line.substr(0, key.size()) == key && line.size() > key.size() && line[key.size()] == ':') {
      auto v = line.substr(key.size() + 1);
      while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
      return std::string(v);
    }
  }
  return {};
}

/// Why an rlib is not a whole archive (truncated, overwritten), or empty when it is:
/// LLVM's archive reader walks every member header against the file's size.
std::string archiveProblem(const fs::path& rlib) {
  auto buffer = llvm::MemoryBuffer::getFile(rlib.string(), /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer) return buffer.getError().message();
  auto archive = llvm::object::Archive::create((*buffer)->getMemBufferRef());
  if (!archive) return llvm::toString(archive.takeError());
  llvm::Error err = llvm::Error::success();
  size_t members = 0;
  for (const auto& child : (*archive)->children(err)) {
    (void)child;
    ++members;
  }
  if (err) return llvm::toString(std::move(err));
  return members ? "" : "the archive has no members";
}

/// Empty when `sysroot` holds an intact nvptx64 `core` (and compiler_builtins, when built
/// here); otherwise what is missing or damaged.
/// `seen`, when given, collects the paths looked at (the cached discovery's witnesses).
std::string coreProblem(const fs::path& sysroot, DiscoveryWitnesses* seen = nullptr) {
  std::error_code ec;
  fs::path lib = sysroot / "lib/rustlib" / kTarget / "lib";
  if (seen) seen->add(lib);
  if (!fs::is_directory(lib, ec)) return "no " + lib.string();
  bool haveCore = false;
  for (const auto& e : fs::directory_iterator(lib, ec)) {
    auto name = e.path().filename().string();
    if (!name.ends_with(".rlib") ||
        !(name.starts_with("libcore-") || name.starts_with("libcompiler_builtins-")))
      continue;
    if (seen) seen->add(e.path());
    if (auto why = archiveProblem(e.path()); !why.empty())
      return e.path().string() + " is damaged: " + why;
    haveCore |= name.starts_with("libcore-");
  }
  return haveCore ? "" : "no libcore-*.rlib in " + lib.string();
}

bool hasCoreFor(const fs::path& sysroot, DiscoveryWitnesses* seen = nullptr) {
  return coreProblem(sysroot, seen).empty();
}

/// What one rustc candidate can do for nvptx64.
struct RustcProbe {
  fs::path path;
  std::string verbose;  // rustc -vV
  fs::path sysroot;
  bool hasTarget = false;
  fs::path rustSrc;
};

/// Whether `path` is one of rustup's proxies: rustup itself under another name, by a
/// symbolic link to `rustup` or a hard link to the `rustup` beside it.
bool isRustupProxy(const fs::path& path) {
  std::error_code ec;
  const fs::path target = fs::canonical(path, ec);
  if (!ec && target.filename() == "rustup") return true;
  const fs::path beside = path.parent_path() / "rustup";
  return fs::exists(beside, ec) && fs::equivalent(beside, path, ec);
}

std::optional<RustcProbe> probeRustc(const fs::path& path, DiscoveryWitnesses& seen) {
  seen.add(path);
  auto vv = quickRun({path.string(), "-vV"});
  if (!vv.ok()) return std::nullopt;
  RustcProbe p;
  p.path = path;
  p.verbose = vv.out;
  auto sr = quickRun({path.string(), "--print", "sysroot"});
  if (sr.ok()) {
    std::string s = sr.out;
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    p.sysroot = s;
  }
  // Its libraries (an upgrade replaces them), its targets, its library sources.
  if (!p.sysroot.empty())
    for (const char* dir : {"lib", "lib/rustlib", "lib/rustlib/src/rust/library/core"})
      seen.add(p.sysroot / dir);
  // A rustup proxy (~/.cargo/bin/rustc) would choose its toolchain again on every run, by
  // the working directory: use the toolchain's own rustc, which never does, from here on.
  // (Any other program, such as a wrapper the user chose, is run as it is.)
  std::error_code ec;
  if (fs::path own = p.sysroot / "bin/rustc"; isRustupProxy(path) && !p.sysroot.empty() &&
                                              fs::exists(own, ec) &&
                                              !fs::equivalent(own, path, ec)) {
    seen.add(own);
    if (auto ownVersion = quickRun({own.string(), "-vV"}); ownVersion.ok()) {
      p.path = own;
      p.verbose = ownVersion.out;
    }
  }
  p.hasTarget = !p.sysroot.empty() && hasCoreFor(p.sysroot, &seen);
  fs::path src = p.sysroot / "lib/rustlib/src/rust/library";
  if (fs::is_directory(src / "core", ec)) p.rustSrc = src;
  return p;
}

std::string firstVersionLine(const std::string& text) {
  // CUDA tools print a banner; the release line is the one that names it.
  for (auto line : splitLines(text))
    if (line.find("release") != std::string_view::npos) return std::string(line);
  auto lines = splitLines(text);
  return lines.empty() ? "" : std::string(lines.front());
}

/// "Cuda compilation tools, release 11.8, V11.8.89" -> "11.8"
std::string cudaReleaseOf(const std::string& versionLine) {
  auto pos = versionLine.find("release ");
  if (pos == std::string::npos) return {};
  auto rest = versionLine.substr(pos + 8);
  return rest.substr(0, rest.find(','));
}

ToolInfo probeCudaTool(const std::string& name, const fs::path& path, DiscoveryWitnesses& seen) {
  seen.add(path);
  ToolInfo t;
  t.name = name;
  t.path = path;
  auto v = quickRun({path.string(), "--version"});
  if (!v.ok())
    t.problem = "does not run (" + v.describe() + ")";
  else
    t.version = firstVersionLine(v.out);
  return t;
}

/// Without HOME, a directory only this user can write: tools are run from the cache
/// (cuda-tools/ptxas), so a shared one would let another user plant them.
fs::path privateCacheDir() {
  const uid_t uid = ::getuid();
  if (const passwd* pw = ::getpwuid(uid);
      pw && pw->pw_dir && *pw->pw_dir && std::string(pw->pw_dir) != "/") {
    std::error_code ec;
    if (fs::is_directory(pw->pw_dir, ec) && ::access(pw->pw_dir, W_OK) == 0)
      return fs::path(pw->pw_dir) / ".cache/kernelscope";
  }
  fs::path dir = "/tmp/kernelscope-cache-" + std::to_string(uid);
  ::mkdir(dir.c_str(), 0700);  // fails harmlessly when it exists; then it is checked
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != uid ||
      (st.st_mode & 077) != 0)
    throw std::runtime_error("HOME is not set and " + dir.string() +
                             " is not a private directory of this user (it must be owned by uid " +
                             std::to_string(uid) +
                             " with mode 0700); set HOME or KERNELSCOPE_CACHE_DIR");
  return dir;
}

/// The variable's value when it names an absolute directory. A relative one is ignored, as the
/// XDG base directory specification says: it would name another directory in every tool's
/// working directory.
std::string absoluteDirFromEnv(const char* name) {
  std::string v = env(name);
  return !v.empty() && v.front() == '/' ? v : std::string();
}

fs::path defaultCacheDir(const ToolchainSettings& s) {
  if (!s.cacheDir.empty()) return s.cacheDir;
  if (auto v = absoluteDirFromEnv("KERNELSCOPE_CACHE_DIR"); !v.empty()) return v;
  if (auto v = absoluteDirFromEnv("XDG_CACHE_HOME"); !v.empty()) return fs::path(v) / "kernelscope";
  if (auto v = env("HOME"); !v.empty()) return fs::path(v) / ".cache/kernelscope";
  return privateCacheDir();
}

constexpr const char* kSetupFix = "run scripts/setup.sh (or: kernelscope setup)";

}  // namespace

fs::path Toolchain::sysrootCacheDir() const {
  return cacheDir / "sysroot" /
         (rustcRelease + "-" + stableDigest({rustc.version, rustc.path.string()}));
}

ProcessResult Toolchain::run(const ProcessSpec& spec) const {
  return runner ? runner->run(spec) : runProcess(spec);
}

std::string Toolchain::fingerprint() const {
  return stableDigest({rustc.path.string(), rustc.version, sysroot.path.string(),
                       ptxas.path.string(), ptxas.version, nvdisasm.path.string(), nvdisasm.version,
                       nvcc.path.string(), nvcc.version});
}

std::string compileEnvironment() {
  // Every variable discovery (here and Profile.cpp) or a build (CargoBuild.cpp) reads.
  static constexpr const char* kNames[] = {"KERNELSCOPE_RUSTC",
                                           "RUSTUP_HOME",
                                           "RUSTUP_TOOLCHAIN",
                                           "HOME",
                                           "PATH",
                                           "LD_LIBRARY_PATH",
                                           "CUDA_HOME",
                                           "CUDA_PATH",
                                           "CUDA_ROOT",
                                           "CUDA_TOOLKIT_ROOT_DIR",
                                           "CARGO_HOME",
                                           "RUSTFLAGS",
                                           "CARGO_ENCODED_RUSTFLAGS",
                                           "RUST_CUDA_ROOT",
                                           "CUDA_OXIDE_ROOT",
                                           "CUDA_OXIDE_LLC",
                                           "KERNELSCOPE_RUST_CUDA_TOOLCHAIN",
                                           "KERNELSCOPE_RUST_CUDA_BACKEND",
                                           "KERNELSCOPE_CUDA_OXIDE_TOOLCHAIN",
                                           "KERNELSCOPE_CUDA_OXIDE_BACKEND"};
  std::vector<std::string> values;
  for (const char* name : kNames) {
    const char* v = std::getenv(name);
    values.push_back(v ? std::string("=") + v : std::string());  // unset differs from empty
  }
  return stableDigest(std::vector<std::string_view>(values.begin(), values.end()));
}

namespace {

/// Directories a PATH lookup walks: a program added to any of them changes its directory.
void addPathDirectories(DiscoveryWitnesses& seen) {
  const std::string path = env("PATH");
  std::string_view rest = path;
  while (!rest.empty()) {
    size_t colon = rest.find(':');
    if (colon != 0) seen.add(std::string(rest.substr(0, colon)));
    rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
  }
}

/// rustc: an explicit choice wins; otherwise the first candidate that can build for
/// nvptx64 (has the target's `core`, or the library sources to build it). Then its sysroot.
void discoverRustc(const ToolchainSettings& settings, Toolchain& tc, DiscoveryWitnesses& seen) {
  std::vector<fs::path> candidates;
  std::string chosen = settings.rustc.empty() ? env("KERNELSCOPE_RUSTC") : settings.rustc;
  if (!chosen.empty()) {
    candidates.push_back(chosen);
  } else {
    std::error_code ec;
    fs::path rustupHome = env("RUSTUP_HOME").empty() ? fs::path(env("HOME")) / ".rustup"
                                                     : fs::path(env("RUSTUP_HOME"));
    seen.add(rustupHome / "toolchains");
    if (fs::is_directory(rustupHome / "toolchains", ec))
      for (const auto& e : fs::directory_iterator(rustupHome / "toolchains", ec))
        if (e.path().filename().string().starts_with("nightly"))
          candidates.push_back(e.path() / "bin/rustc");
    candidates.push_back("/usr/bin/rustc");
    if (auto p = findOnPath("rustc")) candidates.push_back(*p);
  }
  std::optional<RustcProbe> best;
  for (const auto& c : candidates) {
    std::error_code ec;
    seen.add(c);
    if (!fs::exists(c, ec)) continue;
    auto probe = probeRustc(c, seen);
    if (!probe) continue;
    bool usable = probe->hasTarget || !probe->rustSrc.empty();
    if (!chosen.empty() || usable) {
      best = probe;
      break;
    }
    if (!best) best = probe;  // keep the first runnable one for the report
  }
  if (!best) {
    tc.rustc.problem = chosen.empty() ? "no rustc found" : "cannot run " + chosen;
    tc.rustc.fix =
        "install Debian's rustc-web (" + std::string(kSetupFix) + ") or set kernelscope.rustc";
    return;
  }
  tc.rustc.path = best->path;
  tc.rustcRelease = field(best->verbose, "release");
  tc.rustcLlvm = field(best->verbose, "LLVM version");
  tc.rustc.version = tc.rustcRelease + " (LLVM " + tc.rustcLlvm + ")";
  tc.rustSrc = best->rustSrc;
  seen.add(tc.sysrootCacheDir().parent_path());  // a core built (renamed into place) there
  seen.add(tc.sysrootCacheDir());
  if (best->hasTarget) {
    tc.sysroot.path = best->sysroot;
    tc.sysroot.version = "rustup target " + std::string(kTarget);
  } else if (best->rustSrc.empty()) {
    tc.rustc.problem = "has neither the nvptx64-nvidia-cuda target nor rust-src";
    tc.rustc.fix =
        "rustup +nightly component add rust-src (or target add nvptx64-nvidia-cuda), or install "
        "rustc-web rust-web-src";
  } else if (std::string why = coreProblem(tc.sysrootCacheDir(), &seen); why.empty()) {
    tc.sysroot.path = tc.sysrootCacheDir();
    tc.sysroot.version = "core built by kernelscope for rustc " + tc.rustcRelease;
  } else {
    std::error_code ec;
    // A damaged one (a truncated libcore) is rebuilt like a missing one.
    tc.sysroot.problem = fs::exists(tc.sysrootCacheDir(), ec) ? why : "nvptx64 core not built yet";
    tc.sysroot.fix = kSetupFix;
  }
}

bool executable(const fs::path& p) { return ::access(p.c_str(), X_OK) == 0; }

/// ptxas + nvdisasm, paired by CUDA release: a cubin from a newer ptxas is unreadable to an
/// older nvdisasm. Prefer a directory that has both.
void discoverCudaPair(const std::string& cudaHome, Toolchain& tc, DiscoveryWitnesses& seen) {
  std::vector<fs::path> dirs;
  dirs.push_back(fs::path(cudaHome) / "bin");
  if (auto p = findOnPath("ptxas")) dirs.push_back(p->parent_path());
  dirs.push_back(tc.cacheDir / "cuda-tools");
  std::optional<fs::path> pairDir, lonePtxas;
  for (const auto& d : dirs) {
    seen.add(d / "ptxas");
    seen.add(d / "nvdisasm");
    if (executable(d / "ptxas") && executable(d / "nvdisasm")) {
      pairDir = d;
      break;
    }
    if (!lonePtxas && executable(d / "ptxas")) lonePtxas = d / "ptxas";
  }
  if (pairDir) {
    tc.ptxas = probeCudaTool("ptxas", *pairDir / "ptxas", seen);
    tc.nvdisasm = probeCudaTool("nvdisasm", *pairDir / "nvdisasm", seen);
  } else {
    tc.nvdisasm.name = "nvdisasm";
    tc.nvdisasm.problem = "not found next to any ptxas (CUDA_HOME, PATH, " +
                          (tc.cacheDir / "cuda-tools").string() + ")";
    tc.nvdisasm.fix = std::string(kSetupFix) + " fetches a matched ptxas + nvdisasm (CUDA 11.8)";
    if (lonePtxas) {
      tc.ptxas = probeCudaTool("ptxas", *lonePtxas, seen);
    } else {
      tc.ptxas.name = "ptxas";
      tc.ptxas.problem = "not found";
      tc.ptxas.fix = tc.nvdisasm.fix;
    }
  }
  tc.cudaRelease = cudaReleaseOf(tc.ptxas.version);
  if (tc.nvdisasm.found() && cudaReleaseOf(tc.nvdisasm.version) != tc.cudaRelease) {
    tc.nvdisasm.problem =
        "release " + cudaReleaseOf(tc.nvdisasm.version) + " does not match ptxas " + tc.cudaRelease;
    tc.nvdisasm.fix = "use ptxas and nvdisasm from one CUDA release";
  }
}

void discoverNvcc(const std::string& cudaHome, Toolchain& tc, DiscoveryWitnesses& seen) {
  tc.nvcc.name = "nvcc";
  fs::path nvcc = fs::path(cudaHome) / "bin/nvcc";
  seen.add(nvcc);
  if (!executable(nvcc)) {
    if (auto p = findOnPath("nvcc"))
      nvcc = *p;
    else
      nvcc.clear();
  }
  if (nvcc.empty()) {
    tc.nvcc.problem = "not found";
    tc.nvcc.fix = "install the CUDA Toolkit (needed only for CUDA C++ twins)";
  } else {
    tc.nvcc = probeCudaTool("nvcc", nvcc, seen);
  }
}

Toolchain discoverAfresh(const ToolchainSettings& settings, const fs::path& cacheDir,
                         DiscoveryWitnesses& seen) {
  Toolchain tc;
  tc.cacheDir = cacheDir;
  tc.rustc.name = "rustc";
  tc.sysroot.name = "sysroot";
  addPathDirectories(seen);
  discoverRustc(settings, tc, seen);
  std::string cudaHome = !settings.cudaHome.empty() ? settings.cudaHome : env("CUDA_HOME");
  if (cudaHome.empty()) cudaHome = "/usr/local/cuda";
  discoverCudaPair(cudaHome, tc, seen);
  discoverNvcc(cudaHome, tc, seen);
  return tc;
}

}  // namespace

std::optional<fs::path> findCargo(const Toolchain& tc, std::string* problem) {
  // The cargo of the rustc in use first: one elsewhere on PATH may be of another release.
  if (!tc.rustc.path.empty()) {
    const std::string rustcDir = tc.rustc.path.parent_path().string();
    const llvm::StringRef dirs[] = {rustcDir};
    if (auto cargo = llvm::sys::findProgramByName("cargo", dirs)) return fs::path(*cargo);
  }
  if (auto cargo = findOnPath("cargo")) return cargo;
  if (problem)
    *problem =
        "cargo not found next to " + tc.rustc.path.string() + " or on PATH (install cargo-web)";
  return std::nullopt;
}

fs::path kernelscopeWorkingDirectory(const Toolchain& tc) {
  fs::path dir = tc.cacheDir / "cwd";
  std::error_code ec;
  if (tc.cacheDir.empty() || (!fs::create_directories(dir, ec) && !fs::is_directory(dir, ec)))
    return "/";
  return dir;
}

Toolchain discoverToolchain(const ToolchainSettings& settings) {
  const fs::path cacheDir = defaultCacheDir(settings);
  // Everything besides the file system that discovery reads names the cache file.
  const fs::path cached =
      cacheDir / "toolchain" /
      stableDigest({settings.rustc, settings.cudaHome, cacheDir.string(), compileEnvironment()});
  if (auto tc = loadCachedToolchain(cached)) return *tc;
  DiscoveryWitnesses seen;
  Toolchain tc = discoverAfresh(settings, cacheDir, seen);
  storeCachedToolchain(cached, tc, seen);
  return tc;
}

namespace {

/// A no_std crate in `shim` whose dependencies are the Rust sources' core and
/// compiler_builtins: building it for nvptx64 builds the two libraries the sysroot needs.
void writeCoreShim(const fs::path& shim, const fs::path& rustSrc) {
  fs::create_directories(shim / "src");
  std::ofstream toml(shim / "Cargo.toml");
  toml << "[package]\nname = \"kernelscope-core-shim\"\nversion = \"0.0.0\"\nedition = \"2021\"\n"
       << "[dependencies]\n"
       << "core = { path = \"" << (rustSrc / "core").string() << "\" }\n"
       << "compiler_builtins = { path = \""
       << (rustSrc / "compiler-builtins/compiler-builtins").string()
       << "\", features = [\"compiler-builtins\", \"mem\"] }\n"
       << "[profile.release]\ncodegen-units = 1\n";
  std::ofstream(shim / "src/lib.rs") << "#![no_std]\n";
}

/// Builds the shim with cargo (findCargo) into `targetDir`; an error message, or empty.
std::string buildCoreShim(const Toolchain& tc, const fs::path& shim, const fs::path& targetDir) {
  std::string noCargo;
  auto cargo = findCargo(tc, &noCargo);
  if (!cargo) return noCargo;
  ProcessSpec spec;
  spec.argv = {cargo->string(), "build",    "--offline",         "--release",
               "--quiet",       "--target", std::string(kTarget)};
  spec.cwd = shim;
  spec.timeout = std::chrono::minutes(15);
  spec.env = {{"RUSTC", tc.rustc.path.string()},
              {"RUSTC_BOOTSTRAP", "1"},
              {"RUSTFLAGS", "-Zforce-unstable-if-unmarked -Cembed-bitcode=yes"},
              {"CARGO_TARGET_DIR", targetDir.string()},
              {"PATH", tc.rustc.path.parent_path().string() + ":" + env("PATH")}};
  auto r = tc.run(spec);
  if (!r.ok()) return "building core failed (" + r.describe() + "):\n" + r.err;
  return {};
}

/// The file in a core's folder that names the rustc it was built for (removeSupersededCores).
constexpr std::string_view kBuiltForFile = "kernelscope-rustc";

/// Copies the built libcore and compiler_builtins from `deps` into a sysroot at `finalDir`,
/// with the path of the `rustc` they were built for (kBuiltForFile). They are staged next
/// to the final place, then renamed: a concurrent build never sees half a sysroot, and the
/// staging goes on every path out (a full disk, a signal: RemovedOnExit). An error message,
/// or empty.
std::string placeCore(const fs::path& deps, const fs::path& finalDir, const fs::path& rustc) {
  fs::path libDir = fs::path("lib/rustlib") / kTarget / "lib";
  std::error_code ec;
  RemovedOnExit staging(stagingName(finalDir.string()));
  fs::remove_all(staging.path(), ec);
  fs::create_directories(staging.path() / libDir, ec);
  for (const auto& e : fs::directory_iterator(deps, ec)) {
    auto name = e.path().filename().string();
    if (name.starts_with("libcore-") || name.starts_with("libcompiler_builtins-"))
      if (!fs::copy_file(e.path(), staging.path() / libDir / name,
                         fs::copy_options::overwrite_existing, ec))
        break;
  }
  if (!ec) {
    std::ofstream builtFor(staging.path() / kBuiltForFile);
    builtFor << rustc.string() << "\n";
    builtFor.close();
    if (!builtFor || !coreProblem(staging.path()).empty())
      ec = std::make_error_code(std::errc::io_error);
  }
  if (ec) {
    std::string why = "could not write the nvptx64 core into " + finalDir.parent_path().string() +
                      ": " + ec.message() + " (is the disk full?)";
    // Nothing of ours stays on a full disk: the staging goes now, then the folder made for
    // it if nothing else is in it (fs::remove leaves a non-empty folder alone).
    std::error_code ignored;
    fs::remove_all(staging.path(), ignored);
    fs::remove(finalDir.parent_path(), ignored);
    return why;
  }
  // A damaged core from before (a truncated libcore) makes way for the new one.
  if (!coreProblem(finalDir).empty()) fs::remove_all(finalDir, ec);
  fs::rename(staging.path(), finalDir, ec);
  if (ec && !hasCoreFor(finalDir))
    return "could not place the sysroot at " + finalDir.string() + ": " + ec.message();
  return {};
}

/// Whether `dir` is one of the cache's nvptx64 cores that nothing uses any more, once the
/// core of `rustc` is in place: one built for the same rustc path when it was another
/// release (an upgrade), one whose rustc is gone, and one of an earlier kernelscope
/// (named otherwise, without kBuiltForFile) that has been left alone for a day, so that an
/// older kernelscope still at work keeps its own. Only the cache's own core folders count
/// (lib/rustlib/nvptx64-nvidia-cuda inside; never a link, never a staging folder).
bool supersededCore(const fs::directory_entry& dir, const fs::path& rustc) {
  std::error_code ec;
  if (dir.symlink_status(ec).type() != fs::file_type::directory ||
      dir.path().filename().string().find(".tmp-") != std::string::npos ||
      !fs::is_directory(dir.path() / "lib/rustlib" / kTarget, ec))
    return false;
  const FileText builtFor = readRegularFile(dir.path() / kBuiltForFile, 4096);
  if (builtFor.ok()) {
    const fs::path itsRustc(text::firstLine(builtFor.text));
    return itsRustc == rustc || !fs::exists(itsRustc, ec);
  }
  if (!builtFor.missing) return false;
  const auto changed = fs::last_write_time(dir.path(), ec);
  return !ec && changed < fs::file_time_type::clock::now() - std::chrono::hours(24);
}

/// Removes the cores next to `finalDir` that supersededCore names (a rustc upgrade would
/// otherwise leave every earlier core behind for good); the folders removed.
std::vector<fs::path> removeSupersededCores(const fs::path& finalDir, const fs::path& rustc) {
  std::vector<fs::path> superseded, removed;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(finalDir.parent_path(), ec))
    if (e.path() != finalDir && supersededCore(e, rustc)) superseded.push_back(e.path());
  for (const auto& dir : superseded)
    if (fs::remove_all(dir, ec) > 0 && !ec) removed.push_back(dir);
  return removed;
}

}  // namespace

std::string ensureSysroot(Toolchain& tc, const std::function<void(const std::string&)>& progress) {
  if (tc.sysroot.found()) return {};
  if (!tc.rustc.found()) return "rustc unusable: " + tc.rustc.problem;
  if (tc.rustSrc.empty()) return "no Rust library sources to build nvptx64 core from";

  fs::path finalDir = tc.sysrootCacheDir();
  std::error_code ec;
  fs::create_directories(finalDir.parent_path(), ec);
  // Checked before the ~40 s build: a cache that cannot be written fails now, and clearly.
  if (ec || ::access(finalDir.parent_path().c_str(), W_OK) != 0)
    return "cannot build the nvptx64 core: the cache directory " + finalDir.parent_path().string() +
           " is not writable" + (ec ? " (" + ec.message() + ")" : "") +
           "; make it writable or set KERNELSCOPE_CACHE_DIR to a directory that is";
  progress("Building nvptx64 core for rustc " + tc.rustcRelease + " into " + finalDir.string() +
           " (once, ~40 s)");

  TempDir work("kernelscope-core");
  fs::path shim = work.path() / "shim";
  writeCoreShim(shim, tc.rustSrc);
  if (std::string why = buildCoreShim(tc, shim, work.path() / "target"); !why.empty()) return why;
  if (std::string why =
          placeCore(work.path() / "target" / kTarget / "release/deps", finalDir, tc.rustc.path);
      !why.empty())
    return why;
  for (const fs::path& old : removeSupersededCores(finalDir, tc.rustc.path))
    progress("Removed " + old.string() + ", a core no rustc here uses any more");
  tc.sysroot.path = finalDir;
  tc.sysroot.problem.clear();
  tc.sysroot.fix.clear();
  tc.sysroot.version = "core built by kernelscope for rustc " + tc.rustcRelease;
  progress("nvptx64 core ready");
  return {};
}

std::string doctorReport(const Toolchain& tc) {
  std::ostringstream out;
  auto row = [&](std::string_view stage, const ToolInfo& t) {
    out << "  " << stage;
    for (size_t i = stage.size(); i < 22; ++i) out << ' ';
    out << t.name;
    for (size_t i = t.name.size(); i < 10; ++i) out << ' ';
    if (t.found()) {
      out << "ok       " << t.path.string();
      if (!t.version.empty()) out << "  (" << t.version << ")";
    } else {
      out << "MISSING  ";
      if (!t.path.empty()) out << t.path.string() << ": ";
      out << t.problem;
      if (!t.fix.empty()) out << "\n" << std::string(34, ' ') << "fix: " << t.fix;
    }
    out << "\n";
  };
  out << "kernelscope toolchain (cache: " << tc.cacheDir.string() << ", fingerprint "
      << tc.fingerprint() << ")\n";
  for (const char* name : {"KERNELSCOPE_CACHE_DIR", "XDG_CACHE_HOME"})
    if (!env(name).empty() && absoluteDirFromEnv(name).empty())
      out << "  note: " << name << "=" << text::withoutControls(env(name), false)
          << " is not an absolute path and is ignored (as the XDG base directory specification "
             "says)\n";
  row("MIR, LLVM IR, PTX", tc.rustc);
  row("", tc.sysroot);
  row("resources (ptxas -v)", tc.ptxas);
  row("SASS", tc.nvdisasm);
  row("CUDA C++ twins", tc.nvcc);
  return out.str();
}

}  // namespace ks
