// Kernel crates through cargo: the shadow tree, the workspace lock, the `cargo rustc` call
// and what it left. See CargoBuild.h.
#include "CargoBuild.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <thread>

#include "Compile.h"
#include "Crate.h"
#include "Files.h"
#include "TextUtil.h"
#include "Trust.h"

namespace ks {

namespace fs = std::filesystem;

fs::path shadowPathOf(const fs::path& shadowRoot, const fs::path& p) {
  return shadowRoot / fs::path(normalizePath(p.string())).relative_path();
}

namespace {

/// The text of `p` if it is a regular file and no link.
std::optional<std::string> readRegular(const fs::path& p) {
  std::error_code ec;
  if (fs::is_symlink(p, ec)) return std::nullopt;
  FileText read = readRegularFile(p, kMaxToolOutputBytes);
  return read.ok() ? std::optional(std::move(read.text)) : std::nullopt;
}

/// Writes `text` to `p` unless `p` is already a regular file with that text: an unchanged
/// file keeps its modification time, so cargo does not rebuild what did not change.
void writeIfDifferent(const fs::path& p, const std::string& text) {
  if (readRegular(p) == text) return;
  std::error_code ec;
  fs::remove(p, ec);
  std::ofstream(p, std::ios::binary) << text;
}

/// Holds an exclusive lock on a file (flock, so across processes too) while alive.
class FileLock {
 public:
  /// Waits for the lock until `cancel` or `timeout`; locked() says whether it was taken.
  FileLock(const fs::path& file, const CancellationToken& cancel,
           std::chrono::milliseconds timeout) {
    fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd_ < 0) return;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      if (cancel.cancelled() || std::chrono::steady_clock::now() > deadline) {
        ::close(fd_);
        fd_ = -1;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    locked_ = true;
  }
  ~FileLock() {
    if (fd_ >= 0) ::close(fd_);  // releases the lock
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  bool locked() const { return locked_; }

 private:
  int fd_ = -1;
  bool locked_ = false;
};

/// Makes relative `file_name`s of a rustc JSON diagnostic absolute under `base`: cargo runs
/// rustc in the workspace root and names a member's files relative to it.
void absolutizeSpans(nlohmann::json& j, const fs::path& base) {
  if (j.is_object()) {
    if (j.contains("file_name") && j["file_name"].is_string()) {
      std::string name = j["file_name"].get<std::string>();
      if (!name.empty() && name.front() != '/' && name.front() != '<')
        j["file_name"] = normalizePath((base / name).string());
    }
    for (auto& [key, value] : j.items()) absolutizeSpans(value, base);
  } else if (j.is_array()) {
    for (auto& v : j) absolutizeSpans(v, base);
  }
}

/// Which of the `cfg(...)` keys of `target` tables (`cfg(target_arch = "nvptx64")`) hold for
/// nvptx64 at `arch`. rustc decides, as it does for cargo (which matches the tables against
/// rustc's `--print cfg`): each expression guards a `compile_error!` in a tiny `no_std`
/// crate, and the errors name those that hold.
std::vector<bool> cfgsHoldForNvptx(const Toolchain& tc, const std::string& arch,
                                   const std::vector<std::string>& keys,
                                   const CancellationToken& cancel) {
  TempDir out("kernelscope-cfg");  // rustc replaces its output file: never name a device
  ProcessSpec spec;
  spec.argv = {tc.rustc.path.string(),   "--sysroot",
               tc.sysroot.path.string(), "--target",
               "nvptx64-nvidia-cuda",    "-Ctarget-cpu=" + arch,
               "--crate-type",           "lib",
               "--crate-name",           "cfg_probe",
               "--emit=metadata",        "--out-dir",
               out.path().string(),      "-"};
  spec.stdinText = "#![no_std]\n";
  for (size_t i = 0; i < keys.size(); ++i)
    spec.stdinText += "#[" + keys[i] + "] compile_error!(\"holds-" + std::to_string(i) + "\");\n";
  spec.env = {{"RUSTC_BOOTSTRAP", "1"}};
  spec.timeout = std::chrono::seconds(30);
  spec.cancel = cancel;
  const ProcessResult r = tc.run(spec);
  std::vector<bool> holds(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    const std::string said = "error: holds-" + std::to_string(i);
    for (size_t at = r.err.find(said); at != std::string::npos && !holds[i];
         at = r.err.find(said, at + 1))
      holds[i] = at + said.size() == r.err.size() ||
                 !std::isdigit(static_cast<unsigned char>(r.err[at + said.size()]));
  }
  return holds;
}

/// The rustflags for every nvptx crate of the build, given as cargo config so that they join
/// the user's own: cargo takes the rustflags of every `target` table that matches nvptx64
/// (by triple or by `cfg`) or else `build.rustflags` (never both), so ours go where the
/// user's are. Environment RUSTFLAGS would override any config: when the user set them,
/// ours are added to them instead.
struct RustflagsPlacement {
  std::vector<std::string> configArgs;
  std::vector<std::pair<std::string, std::string>> env;
  /// The user's flag that set other codegen units, which ours (after it) override.
  std::optional<std::string> theirUnits;
};

/// Flags written as words separated by spaces (RUSTFLAGS, a rustflags string).
std::vector<std::string> spaceSeparated(const std::string& text) {
  std::vector<std::string> flags;
  std::istringstream words(text);
  for (std::string word; words >> word;) flags.push_back(word);
  return flags;
}

/// A rustflags value of cargo's configuration as arguments: an array, or a string of words.
std::vector<std::string> rustflagsOf(const nlohmann::json& value) {
  if (value.is_string()) return spaceSeparated(value.get<std::string>());
  std::vector<std::string> flags;
  if (value.is_array()) {
    for (const auto& f : value)
      if (f.is_string()) flags.push_back(f.get<std::string>());
  }
  return flags;
}

RustflagsPlacement placeRustflags(const Toolchain& tc, const fs::path& cargo, const fs::path& cwd,
                                  const std::string& arch, const std::vector<std::string>& flags,
                                  const CancellationToken& cancel) {
  RustflagsPlacement p;
  const char* encoded = std::getenv("CARGO_ENCODED_RUSTFLAGS");
  const char* plain = std::getenv("RUSTFLAGS");
  if ((encoded && *encoded) || (plain && *plain)) {
    std::string value = encoded && *encoded ? encoded : "";
    std::vector<std::string> theirs;
    if (value.empty()) {  // RUSTFLAGS: words separated by spaces
      theirs = spaceSeparated(plain);
      for (const auto& f : theirs) value += (value.empty() ? "" : "\x1f") + f;
    } else {
      std::istringstream parts(value);
      for (std::string part; std::getline(parts, part, '\x1f');) theirs.push_back(part);
    }
    p.theirUnits = codegenUnitsFlag(theirs);
    for (const auto& f : flags) value += (value.empty() ? "" : "\x1f") + f;
    p.env = {{"CARGO_ENCODED_RUSTFLAGS", value}};
    return p;
  }
  // What the user's configuration (all of .cargo/config.toml upward, and ~/.cargo) says.
  ProcessSpec spec;
  spec.argv = {cargo.string(), "-Zunstable-options", "config", "get", "--format", "json"};
  spec.env = {{"RUSTC_BOOTSTRAP", "1"}};
  spec.cwd = cwd;
  spec.timeout = std::chrono::seconds(30);
  spec.cancel = cancel;
  ProcessResult r = tc.run(spec);
  auto config = nlohmann::json::parse(r.ok() ? r.out : "{}", nullptr, false);
  bool targetFlags = false, buildFlags = false, buildFlagsString = false;
  std::vector<std::string> cfgKeys;       // `target.'cfg(..)'` tables with rustflags
  std::vector<std::string> targetTheirs;  // the flags of those and of the nvptx table
  if (config.is_object() && config.contains("target") && config["target"].is_object())
    for (const auto& [name, table] : config["target"].items()) {
      if (!table.is_object() || !table.contains("rustflags")) continue;
      if (name == "nvptx64-nvidia-cuda") targetFlags = true;
      if (name.starts_with("cfg(")) cfgKeys.push_back(name);
      if (name == "nvptx64-nvidia-cuda" || name.starts_with("cfg("))
        for (std::string& f : rustflagsOf(table["rustflags"])) targetTheirs.push_back(std::move(f));
    }
  if (config.is_object() && config.contains("build") && config["build"].is_object() &&
      config["build"].contains("rustflags")) {
    buildFlags = true;
    buildFlagsString = config["build"]["rustflags"].is_string();
  }
  if (buildFlags && !targetFlags && !cfgKeys.empty())
    for (bool holds : cfgsHoldForNvptx(tc, arch, cfgKeys, cancel)) targetFlags |= holds;
  const bool intoBuild = buildFlags && !targetFlags;
  if (intoBuild)
    p.theirUnits = codegenUnitsFlag(rustflagsOf(config["build"]["rustflags"]));
  else if (targetFlags)
    p.theirUnits = codegenUnitsFlag(targetTheirs);
  std::string value;
  if (intoBuild && buildFlagsString) {
    // A string given with --config replaces the user's string (only arrays are joined):
    // ours follow theirs in one string (flags split at spaces).
    std::string joined = config["build"]["rustflags"].get<std::string>();
    for (const auto& f : flags) joined += (joined.empty() ? "" : " ") + f;
    value = nlohmann::json(joined).dump();
  } else {
    value = nlohmann::json(flags).dump();  // a TOML array of basic strings
  }
  p.configArgs = {"--config", std::string(intoBuild ? "build.rustflags"
                                                    : "target.nvptx64-nvidia-cuda.rustflags") +
                                  "=" + value};
  return p;
}

/// What cargo itself said, for the user: its progress lines dropped (they carry nothing the
/// user needs in an error message) and the mirror's paths (`shadowRoot`, a mirror of `/`)
/// turned back into the user's own.
std::string cargoComplaints(std::string_view err, const fs::path& shadowRoot) {
  const std::string mirror = normalizePath(shadowRoot.string());
  std::string out;
  for (auto line : splitLines(err)) {
    auto t = text::trim(line);
    if (t.starts_with("Compiling ") || t.starts_with("Finished ") || t.starts_with("Locking ") ||
        t.starts_with("Blocking waiting") || t.starts_with("Fresh ") || t.starts_with("Adding ") ||
        t.starts_with("Building "))
      continue;
    std::string real(line);
    for (size_t at = real.find(mirror); at != std::string::npos; at = real.find(mirror, at)) {
      // "<mirror>/tmp/ws" is "/tmp/ws"; the mirror itself is "/".
      const bool alone = at + mirror.size() == real.size() || real[at + mirror.size()] != '/';
      real.replace(at, mirror.size(), alone ? "/" : "");
    }
    out += real + "\n";
  }
  return out;
}

/// Copies the remarks of the kernel crate's build into `to` (none when `to` is empty: not
/// wanted). A rebuild (`fresh` false) wrote its own files after `started`: older ones are an
/// earlier build's and go, wanted or not.
void copyRemarks(const fs::path& from, const fs::path& to, bool fresh, fs::file_time_type started) {
  std::error_code ec;
  if (!to.empty()) fs::create_directories(to, ec);
  for (const auto& e : fs::directory_iterator(from, ec)) {
    if (!fresh && e.last_write_time(ec) < started) {
      fs::remove(e.path(), ec);
      continue;
    }
    if (!to.empty())
      fs::copy_file(e.path(), to / e.path().filename(), fs::copy_options::overwrite_existing, ec);
  }
}

}  // namespace

void syncShadowTree(const fs::path& shadowRoot, const std::map<std::string, std::string>& overlays,
                    const std::set<std::string>& copies, const fs::path& record) {
  std::error_code ec;
  // Files that are files in the shadow: unsaved now, copied, or written by an earlier call.
  std::set<std::string> files(copies.begin(), copies.end());
  for (const auto& [path, text] : overlays) files.insert(path);
  const std::string recorded = readWholeFile(record);
  for (std::string_view line : splitLines(recorded))
    if (!line.empty()) files.emplace(line);
  // Their directories are real directories (parents sort before children).
  std::set<std::string> dirs;
  for (const auto& f : files)
    for (fs::path d = fs::path(f).parent_path(); !d.empty(); d = d.parent_path()) {
      dirs.insert(d.string());
      if (d == d.root_path()) break;
    }
  std::set<std::string> kept;
  for (const auto& dir : dirs) {
    const fs::path shadowDir = shadowPathOf(shadowRoot, dir);
    if (fs::is_symlink(shadowDir, ec) ||
        (fs::exists(shadowDir, ec) && !fs::is_directory(shadowDir, ec)))
      fs::remove(shadowDir, ec);
    fs::create_directories(shadowDir, ec);
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(dir, ec))
      names.insert(e.path().filename().string());
    for (const auto& f : files)
      if (fs::path(f).parent_path() == dir) names.insert(fs::path(f).filename().string());
    for (const auto& e : fs::directory_iterator(shadowDir, ec)) {
      const std::string name = e.path().filename().string();
      const std::string real = (fs::path(dir) / name).string();
      if (!names.count(name) && !(copies.count(real) && e.is_regular_file(ec)))
        fs::remove_all(e.path(), ec);
    }
    for (const auto& name : names) {
      const fs::path real = fs::path(dir) / name, shadow = shadowDir / name;
      const std::string key = real.string();
      if (dirs.count(key)) continue;  // made in its own turn
      if (auto it = overlays.find(key); it != overlays.end()) {
        writeIfDifferent(shadow, it->second);
        kept.insert(key);
      } else if (files.count(key)) {
        if (auto disk = readRegular(real)) {
          writeIfDifferent(shadow, *disk);
          kept.insert(key);
        } else if (copies.count(key) && readRegular(shadow)) {
          kept.insert(key);  // cargo's own Cargo.lock: the user has none
        } else {
          fs::remove_all(shadow, ec);  // gone from the disk and no longer unsaved
        }
      } else {
        if (fs::is_symlink(shadow, ec) && fs::read_symlink(shadow, ec) == real) continue;
        fs::remove_all(shadow, ec);
        fs::create_symlink(real, shadow, ec);
      }
    }
  }
  std::ofstream out(record, std::ios::trunc);
  for (const auto& f : kept)
    if (!copies.count(f)) out << f << "\n";
}

namespace {

/// Where one cargo build of a workspace happens: under the cargo cache (or a private
/// temporary folder when the cache is read-only), a shadow tree of the workspace with the
/// editor's unsaved files in it.
struct CargoPlaces {
  fs::path base;
  fs::path shadowRoot;
  fs::path manifest;         // the kernel crate's, in the shadow tree
  fs::path shadowWorkspace;  // rustc's working directory
  fs::path targetDir;
  fs::path cargoRemarks;
};

CargoPlaces cargoPlaces(const CargoUnit& c, const fs::path& base, const ResolvedOptions& opts) {
  CargoPlaces at;
  at.base = base;
  at.shadowRoot = base / "root";
  at.manifest = shadowPathOf(at.shadowRoot, c.manifest);
  at.shadowWorkspace = shadowPathOf(at.shadowRoot, c.workspaceRoot);
  // One target directory per arch: switching back and forth rebuilds nothing.
  at.targetDir = base / ("target-" + opts.arch);
  // Remarks go to a directory as stable as the target dir (cargo's fingerprint covers the
  // arguments): when cargo finds the crate fresh, the remarks of its last build are there.
  at.cargoRemarks = base / ("remarks-" + opts.arch + "-O" + std::to_string(opts.optLevel));
  return at;
}

/// `cargo rustc` for the kernel crate: every nvptx crate of the build (dependencies
/// included) gets the sysroot, the arch, one codegen unit and the path mapping; the kernel
/// crate alone gets the emit flags, after `--`. Where the user's rustflags set other codegen
/// units, a note in the unit's diagnostics says that they were overridden.
ProcessSpec cargoRustcSpec(const Toolchain& tc, const fs::path& cargo, RustcUnit& unit,
                           const ResolvedOptions& opts, const std::string& emit,
                           const std::vector<std::string>& extraArgs, const CargoPlaces& at,
                           const CancellationToken& cancel) {
  const CargoUnit& c = *unit.cargo;
  // One codegen unit here too: these follow the user's rustflags, which cargo passes after
  // the arguments below (a unit count of theirs would cut the crate into units).
  std::vector<std::string> allCrates = {"--sysroot", tc.sysroot.path.string(),
                                        "-Ctarget-cpu=" + opts.arch, "-Ccodegen-units=1",
                                        "--remap-path-prefix=" + at.shadowRoot.string() + "=/"};
  RustflagsPlacement flags =
      placeRustflags(tc, cargo, c.manifest.parent_path(), opts.arch, allCrates, cancel);
  if (flags.theirUnits)
    unit.diagnostics.push_back(crateDiagnostic(
        Severity::Note,
        "the build's rustflags set the codegen units (" + *flags.theirUnits +
            "): kernelscope compiles the crate as one unit, whose code it shows (rustc's units "
            "are cut along modules and optimized apart, into other code)",
        c.manifest));
  ProcessSpec spec;
  spec.argv = {cargo.string(),
               "rustc",
               "--offline",
               "--release",
               "--lib",
               "--manifest-path",
               at.manifest.string(),
               "--target",
               "nvptx64-nvidia-cuda",
               "--crate-type",
               "rlib",
               "--target-dir",
               at.targetDir.string(),
               "--message-format=json",
               "--config",
               "profile.release.opt-level=" + std::to_string(opts.optLevel)};
  spec.argv.insert(spec.argv.end(), flags.configArgs.begin(), flags.configArgs.end());
  spec.argv.insert(
      spec.argv.end(),
      {"--", "--emit=" + emit + ",metadata,link", "-Copt-level=" + std::to_string(opts.optLevel),
       "-Ccodegen-units=1", "-Cdebuginfo=line-directives-only", "-Zmir-include-spans=on"});
  spec.argv.insert(spec.argv.end(), unit.args.begin(), unit.args.end());
  spec.argv.insert(spec.argv.end(), opts.extraRustcFlags.begin(), opts.extraRustcFlags.end());
  spec.argv.insert(spec.argv.end(), extraArgs.begin(), extraArgs.end());
  // Remarks are asked for whether or not they are wanted: cargo's fingerprint covers the
  // kernel crate's arguments, so turning remarks on or off (the CLI's default and the
  // editor's differ) would rebuild an unchanged crate. Unwanted ones are not read.
  spec.argv.insert(spec.argv.end(),
                   {"-C", "remark=all", "-Zremark-dir=" + at.cargoRemarks.string()});
  // Cargo finds the user's .cargo/config.toml from its working directory: the package's.
  spec.cwd = c.manifest.parent_path();
  spec.env = {{"RUSTC", tc.rustc.path.string()}, {"RUSTC_BOOTSTRAP", "1"}};
  spec.env.insert(spec.env.end(), flags.env.begin(), flags.env.end());
  spec.timeout = std::max<std::chrono::milliseconds>(opts.toolTimeout,
                                                     std::chrono::minutes(5));  // a first build
  spec.cancel = cancel;
  return spec;
}

/// What cargo's JSON messages say: rustc's diagnostics, and where the kernel crate's
/// outputs are. Every path package's directory and files go into `unit` on the way.
struct CargoMessages {
  std::string diagnostics;  // rustc's messages, one JSON object a line
  fs::path kernelStem;      // deps/<crate>-<hash> of the kernel crate; empty if not built
  bool kernelFresh = false;
};

CargoMessages readCargoMessages(std::string_view out, const CargoPlaces& at, RustcUnit& unit) {
  CargoMessages m;
  for (auto line : splitLines(out)) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object()) continue;
    const std::string reason = j.value("reason", "");
    const std::string packageId = j.value("package_id", "");
    if (reason == "compiler-message" && j.contains("message")) {
      absolutizeSpans(j["message"], unit.cargo->workspaceRoot);
      m.diagnostics += j["message"].dump() + "\n";
      continue;
    }
    if (reason != "compiler-artifact" || !j.contains("filenames") || !j["filenames"].is_array())
      continue;
    fs::path stem;  // deps/<crate>-<hash>: rustc's outputs of this unit
    fs::path rlib;
    for (const auto& f : j["filenames"]) {
      fs::path file = f.is_string() ? fs::path(f.get<std::string>()) : fs::path();
      if (file.parent_path().filename() == "deps" && file.extension() == ".rmeta")
        stem = file.parent_path() / file.stem().string().substr(3);  // without "lib"
      if (file.extension() == ".rlib") rlib = file;
    }
    if (stem.empty()) continue;
    const bool pathPackage = packageId.starts_with("path+file://") ||
                             packageId.find("(path+file://") != std::string::npos;
    const std::string manifestPath = j.value("manifest_path", "");
    const bool kernelCrate = normalizePath(manifestPath) == normalizePath(at.manifest.string());
    if (kernelCrate) {
      m.kernelStem = stem;
      m.kernelFresh = j.value("fresh", false);
    } else if (!rlib.empty()) {
      unit.dependencyRlibs.push_back(rlib);
    }
    if (pathPackage) {
      const fs::path realRoot =
          "/" + fs::relative(fs::path(manifestPath).parent_path(), at.shadowRoot).string();
      unit.userDirs.push_back(normalizePath(realRoot.string()) + "/");
      if (!kernelCrate)
        for (auto& f : readDepInfo(stem.string() + ".d", unit.remaps, at.shadowWorkspace))
          unit.sourceFiles.push_back(f);
    }
  }
  return m;
}

/// Whether cargo stopped before building anything because it could not resolve the
/// workspace's dependencies offline (a registry crate that is not in the local cache, often
/// one another member needs): its messages then remind of `--offline`.
bool offlineResolutionFailed(const ProcessResult& r, const CargoMessages& m) {
  return !r.ok() && !r.cancelled && m.diagnostics.empty() && m.kernelStem.empty() &&
         r.err.find("offline") != std::string::npos;
}

/// Copies the kernel crate's MIR, IR and PTX, its dep-info with real, absolute paths (as the
/// rustc front end's reads) and, when `remarkDir` is given, its remarks.
void collectKernelOutputs(const CargoMessages& m, const RustcUnit& unit, const CargoPlaces& at,
                          const fs::path& outDir, const fs::path& remarkDir,
                          fs::file_time_type started) {
  std::error_code ec;
  for (const std::string ext : {".mir", ".ll", ".s"}) {
    fs::path from = m.kernelStem.string() + ext;
    if (!fs::exists(from, ec)) continue;
    // A rebuild that did not write it left an earlier build's (flags of the user's that
    // change rustc's outputs): gone, so that neither this result nor a later one shows it.
    if (!m.kernelFresh && fs::last_write_time(from, ec) < started) {
      fs::remove(from, ec);
      continue;
    }
    fs::copy_file(from, outDir / (unit.crateName + ext), fs::copy_options::overwrite_existing, ec);
  }
  std::ofstream depInfo(outDir / (unit.crateName + ".d"));
  for (const auto& f : readDepInfo(m.kernelStem.string() + ".d", unit.remaps, at.shadowWorkspace))
    depInfo << f.string() << ":\n";
  copyRemarks(at.cargoRemarks, remarkDir, m.kernelFresh, started);
}

/// The files besides the sources whose change changes what cargo builds: the lock file (the
/// registry dependencies' versions) and each .cargo/config that cargo reads from the
/// package's folder upward and from $CARGO_HOME. They join the result's source files, so a
/// cached result goes stale with them and the server watches them. Those that do not exist
/// are listed too: cargo would read one created later, so its creation changes the result.
std::vector<fs::path> cargoConfigurationFiles(const CargoUnit& c) {
  std::vector<fs::path> files{c.workspaceRoot / "Cargo.lock"};
  for (fs::path dir = c.manifest.parent_path(); !dir.empty(); dir = dir.parent_path()) {
    files.push_back(dir / ".cargo/config.toml");
    files.push_back(dir / ".cargo/config");
    if (dir == dir.root_path()) break;
  }
  const char* cargoHome = std::getenv("CARGO_HOME");
  const char* home = std::getenv("HOME");
  const fs::path homeDir = cargoHome && *cargoHome ? fs::path(cargoHome)
                           : home                  ? fs::path(home) / ".cargo"
                                                   : fs::path();
  if (!homeDir.empty()) {
    files.push_back(homeDir / "config.toml");
    files.push_back(homeDir / "config");
  }
  return files;
}

}  // namespace

ProcessResult runCargoRustc(const Toolchain& tc, RustcUnit& unit, const ResolvedOptions& opts,
                            const std::string& emit, const fs::path& outDir,
                            const std::vector<std::string>& extraArgs, const fs::path& remarkDir,
                            const CancellationToken& cancel) {
  const CargoUnit& c = *unit.cargo;
  ProcessResult failed;
  auto fail = [&](std::string why) {
    failed.started = true;
    failed.exitCode = 1;
    failed.err = why;
    return failed;
  };
  std::string noCargo;
  auto cargo = findCargo(tc, &noCargo);
  if (!cargo) return fail(noCargo);
  std::error_code ec;
  // A read-only cache still compiles: the mirror and target dir then live in a private
  // temporary folder for this compile alone (slower, since cargo's own cache is lost).
  fs::path base = c.base;
  std::optional<TempDir> privateBase;
  fs::create_directories(base, ec);
  if (ec || ::access(base.c_str(), W_OK) != 0) {
    privateBase.emplace("kernelscope-cargo");
    base = privateBase->path();
  }
  FileLock lock(base / "lock", cancel, opts.toolTimeout);
  if (!lock.locked()) {
    failed.cancelled = cancel.cancelled();
    return fail(failed.cancelled
                    ? "cancelled"
                    : "another compile of " + c.workspaceRoot.string() + " held its lock too long");
  }
  if (!privateBase) fs::last_write_time(base, fs::file_time_type::clock::now(), ec);  // in use
  const CargoPlaces at = cargoPlaces(c, base, opts);
  syncShadowTree(at.shadowRoot, c.overlays, {(c.workspaceRoot / "Cargo.lock").string()},
                 base / "shadow-files");

  const auto started = fs::file_time_type::clock::now();
  ProcessResult r = tc.run(cargoRustcSpec(tc, *cargo, unit, opts, emit, extraArgs, at, cancel));
  CargoMessages m = readCargoMessages(r.out, at, unit);
  if (!m.kernelStem.empty() && r.ok()) {
    collectKernelOutputs(m, unit, at, outDir, remarkDir, started);
    for (fs::path& f : cargoConfigurationFiles(c)) addSourceFile(unit.sourceFiles, std::move(f));
  }
  if (r.ok() && m.kernelStem.empty()) {
    r.exitCode = 1;
    r.err += "\ncargo built " + c.manifest.string() + " but reported no library of it";
  }
  unit.cargoCouldNotResolve = offlineResolutionFailed(r, m);
  r.err = m.diagnostics + cargoComplaints(r.err, at.shadowRoot);
  // Each workspace adds a mirror and a target dir per arch: the cache keeps the workspaces
  // used last within $KERNELSCOPE_CARGO_CACHE_MB (default 4 GiB), as the rlib cache does.
  if (!privateBase)
    evictLeastRecentlyUsed(base.parent_path(), cacheBoundBytes("KERNELSCOPE_CARGO_CACHE_MB", 4096),
                           base);
  return r;
}

}  // namespace ks
