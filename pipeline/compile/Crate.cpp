// Kernel crates: finding a file's Cargo package, building its path dependencies, and the
// shadow trees that carry unsaved text. See Crate.h.
#include "Crate.h"

#include "Trust.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "CargoBuild.h"
#include "Compile.h"
#include "CompileCache.h"
#include "Cuda.h"
#include "Files.h"
#include "OptionDecoding.h"
#include "TextUtil.h"

namespace ks {

namespace fs = std::filesystem;

Diagnostic crateDiagnostic(Severity severity, std::string message, const fs::path& manifest,
                           std::string code) {
  Diagnostic d;
  d.source = "kernelscope";
  d.code = std::move(code);
  d.severity = severity;
  d.message = std::move(message);
  if (!manifest.empty()) d.range = SourceRange{manifest.string(), 1, 1, 1, 1};
  return d;
}

namespace {

using Remaps = std::vector<std::pair<fs::path, fs::path>>;

/// The rlib cache's bound: $KERNELSCOPE_RLIB_CACHE_MB, else 2 GiB.
uintmax_t rlibCacheBytes() { return cacheBoundBytes("KERNELSCOPE_RLIB_CACHE_MB", 2048); }

/// rustc wants a crate name made of identifier characters.
std::string identifierFor(std::string name) {
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front()))) name = "k_" + name;
  return name;
}

bool isUnder(const fs::path& file, const fs::path& dir) {
  std::string f = normalizePath(file.string()), d = normalizePath(dir.string());
  if (!d.ends_with('/')) d += '/';
  return f.starts_with(d);
}

/// Reads one budget table's figure keys into `budget` (`where` names it in problems);
/// tables inside it are left to the caller (a kernel's own budget).
void readBudget(const nlohmann::json& table, const std::string& where, KernelBudget& budget,
                std::vector<std::string>& problems) {
  for (const auto& [key, value] : table.items()) {
    if (value.is_object()) continue;
    const bool known = key == "block-size" ||
                       std::find(kBudgetKeys.begin(), kBudgetKeys.end(), key) != kBudgetKeys.end();
    if (!known) {
      std::string list;
      for (auto k : kBudgetKeys) list += std::string(k) + ", ";
      problems.push_back(where + ": unknown key '" + key + "' (known: " + list + "block-size)");
    } else if (!value.is_number() || value.get<double>() < 0 ||
               (key == "min-occupancy" && value.get<double>() > 100)) {
      problems.push_back(
          where + "." + key + " must be a number" +
          (key == "min-occupancy" ? " from 0 to 100 (a percent)" : " of at least 0"));
    } else if (key == "block-size") {
      const auto threads = value.get<double>();
      if (threads < 1 || threads > 1024 || threads != std::floor(threads))
        problems.push_back(where + ".block-size must be a whole number from 1 to 1024");
      else
        budget.blockSize = static_cast<uint32_t>(threads);
    } else {
      budget.limits[key == "min-occupancy" ? "occupancy" : key] = value.get<double>();
    }
  }
}

/// A budget table: its own keys every kernel's budget (under ""), its tables each one
/// kernel's.
void readBudgets(const nlohmann::json& table, const std::string& where,
                 std::map<std::string, KernelBudget>& budgets, std::vector<std::string>& problems) {
  readBudget(table, where, budgets[""], problems);
  for (const auto& [kernel, inner] : table.items())
    if (inner.is_object()) readBudget(inner, where + "." + kernel, budgets[kernel], problems);
}

CrateSettings readSettings(const nlohmann::json& metadata) {
  CrateSettings s;
  if (!metadata.is_object() || !metadata.contains("kernelscope")) return s;
  const auto& k = metadata["kernelscope"];
  if (!k.is_object()) {
    s.problems.push_back("[package.metadata.kernelscope] must be a table");
    return s;
  }
  for (const auto& [key, value] : k.items()) {
    if (const OptionSpec* option = optionByCrateKey(key)) {
      if (auto problem = optionProblem(*option, key, value)) {  // the table's check and words
        s.problems.push_back(*problem);
      } else if (key == "arch") {
        s.arch = value.get<std::string>();
      } else if (key == "opt-level") {
        s.optLevel = value.get<int>();
      } else if (key == "profile") {
        s.profile = profileFromName(value.get<std::string>());
      } else if (key == "rustc-flags") {
        s.rustcFlags = value.get<std::vector<std::string>>();
      }
    } else if (key == "budget" && value.is_object()) {
      readBudgets(value, "[package.metadata.kernelscope.budget]", s.budgets, s.problems);
    } else if (key == "launch" && value.is_object()) {
      for (const auto& [kernel, spec] : value.items()) {
        if (!spec.is_object()) {
          s.problems.push_back("launch." + kernel + " must be a table of spec items");
          continue;
        }
        for (const auto& [item, v] : spec.items()) {
          if (v.is_string())
            s.launch[kernel].emplace_back(item, v.get<std::string>());
          else if (v.is_number() || v.is_array())
            s.launch[kernel].emplace_back(item, v.dump());
          else
            s.problems.push_back("launch." + kernel + "." + item +
                                 " must be a string, a number or a list");
        }
      }
    } else {
      s.problems.push_back("unknown key '" + key + "' (known: " + crateKeyList() + ")");
    }
  }
  return s;
}

/// The package of `manifest` from `cargo metadata` JSON (a workspace lists all members).
std::optional<CratePackage> packageFromMetadata(const std::string& json, const fs::path& manifest,
                                                std::string* problem) {
  auto j = nlohmann::json::parse(json, nullptr, false);
  if (j.is_discarded() || !j.contains("packages")) {
    if (problem) *problem = "cargo metadata printed no package list";
    return std::nullopt;
  }
  for (const auto& p : j["packages"]) {
    if (normalizePath(p.value("manifest_path", "")) != normalizePath(manifest.string())) continue;
    CratePackage pkg;
    pkg.name = p.value("name", "");
    pkg.manifest = manifest;
    pkg.root = manifest.parent_path();
    if (j.contains("workspace_root") && j["workspace_root"].is_string())
      pkg.workspaceRoot = normalizePath(j["workspace_root"].get<std::string>());
    for (const auto& member : j["packages"])  // with --no-deps: the workspace's members
      if (member.contains("manifest_path") && member["manifest_path"].is_string())
        pkg.workspaceMembers.push_back(normalizePath(member["manifest_path"].get<std::string>()));
    for (const auto& t : p["targets"]) {
      auto kinds = t.value("kind", std::vector<std::string>{});
      auto has = [&](const char* kind) {
        return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
      };
      pkg.hasBuildScript |= has("custom-build");
      pkg.isProcMacro |= has("proc-macro");
      // A kernel crate's library is often a cdylib (the usual set-up for PTX); kernelscope
      // compiles any library kind as an rlib.
      if (!has("lib") && !has("rlib") && !has("cdylib") && !has("staticlib") && !has("dylib") &&
          !has("proc-macro"))
        continue;
      pkg.crateName = identifierFor(t.value("name", pkg.name));
      pkg.libRoot = normalizePath(t.value("src_path", ""));
      pkg.edition = t.value("edition", "2021");
    }
    if (pkg.libRoot.empty()) {
      if (problem) *problem = manifest.string() + " has no library target";
      return std::nullopt;
    }
    if (p.contains("features") && p["features"].is_object())
      for (const auto& [name, list] : p["features"].items())
        pkg.featureTable[name] = list.get<std::vector<std::string>>();
    for (const auto& d : p["dependencies"]) {
      if (!d["kind"].is_null())
        continue;  // dev- and build-dependencies are not part of the library
      if (d.value("optional", false)) continue;
      if (d["target"].is_string() &&
          d["target"].get<std::string>().find("nvptx") == std::string::npos)
        continue;
      std::string name = d.value("name", "");
      if (!d.contains("path") || !d["path"].is_string()) {
        pkg.otherDependencies.push_back(name);
        continue;
      }
      CratePackage::Dependency dep;
      dep.externName =
          identifierFor(d["rename"].is_string() ? d["rename"].get<std::string>() : name);
      dep.path = normalizePath(d["path"].get<std::string>());
      dep.defaultFeatures = d.value("uses_default_features", true);
      dep.features = d.value("features", std::vector<std::string>{});
      pkg.pathDependencies.push_back(std::move(dep));
    }
    pkg.settings = readSettings(p.contains("metadata") ? p["metadata"] : nlohmann::json());
    return pkg;
  }
  if (problem) *problem = "cargo metadata did not list " + manifest.string();
  return std::nullopt;
}

}  // namespace

std::optional<std::string> cargoMetadata(const Toolchain& tc, const fs::path& manifest,
                                         std::string& problem) {
  std::string noCargo;
  auto cargo = findCargo(tc, &noCargo);
  if (auto bad = unreadableFileProblem(manifest)) {  // a FIFO would hang cargo
    problem = manifest.string() + " " + *bad;
    return std::nullopt;
  }
  if (!cargo) {
    problem = noCargo;
    return std::nullopt;
  }
  ProcessSpec spec;
  spec.argv = {cargo->string(),    "metadata", "--offline",       "--no-deps",
               "--format-version", "1",        "--manifest-path", manifest.string()};
  // Cargo reads its configuration (.cargo/config.toml: wrappers, `build.rustc`, aliases)
  // from its working directory up, and a rustup proxy its rust-toolchain.toml: run from
  // kernelscope's own directory, neither of the workspace's is read. Empty wrappers switch
  // off any the user's own configuration names.
  spec.cwd = kernelscopeWorkingDirectory(tc);
  spec.env = {
      {"RUSTC", tc.rustc.path.string()}, {"RUSTC_WRAPPER", ""}, {"RUSTC_WORKSPACE_WRAPPER", ""}};
  spec.timeout = std::chrono::seconds(60);
  ProcessResult r = tc.run(spec);
  if (!r.ok()) {
    problem =
        "cargo metadata " + r.describe() + ": " + std::string(text::trim(r.err.substr(0, 2000)));
    return std::nullopt;
  }
  return std::move(r.out);
}

std::vector<WorkspacePackage> workspacePackages(const Toolchain& tc, const fs::path& manifest,
                                                std::string& problem) {
  std::vector<WorkspacePackage> out;
  auto json = cargoMetadata(tc, manifest, problem);
  if (!json) return out;
  auto j = nlohmann::json::parse(*json, nullptr, false);
  if (j.is_discarded() || !j.contains("packages") || !j["packages"].is_array()) {
    problem = "cargo metadata printed no package list";
    return out;
  }
  for (const auto& p : j["packages"])
    if (p.contains("name") && p["name"].is_string() && p.contains("manifest_path") &&
        p["manifest_path"].is_string())
      out.push_back(
          {p["name"].get<std::string>(), normalizePath(p["manifest_path"].get<std::string>())});
  return out;
}

namespace {

std::optional<CratePackage> loadPackageCached(const Toolchain& tc, const fs::path& manifest,
                                              std::string* problem) {
  struct Entry {
    fs::file_time_type mtime;
    uintmax_t size = 0;
    std::optional<CratePackage> package;
    std::string problem;
  };
  static std::mutex mutex;
  static std::map<std::string, Entry> cache;
  std::error_code ec;
  auto mtime = fs::last_write_time(manifest, ec);
  auto size = fs::file_size(manifest, ec);
  {
    std::lock_guard lock(mutex);
    auto it = cache.find(manifest.string());
    if (it != cache.end() && it->second.mtime == mtime && it->second.size == size) {
      if (problem) *problem = it->second.problem;
      return it->second.package;
    }
  }
  Entry e{mtime, size, std::nullopt, {}};
  if (auto json = cargoMetadata(tc, manifest, e.problem))
    e.package = packageFromMetadata(*json, manifest, &e.problem);
  if (problem) *problem = e.problem;
  std::lock_guard lock(mutex);
  cache[manifest.string()] = e;
  return e.package;
}

}  // namespace

std::optional<CratePackage> loadPackage(const Toolchain& tc, const fs::path& manifest,
                                        std::string* problem) {
  std::optional<CratePackage> pkg = loadPackageCached(tc, manifest, problem);
  // Checked on every use, not kept with the manifest: rustc would wait on a FIFO as the
  // library's root until its time limit, or read a link to /dev/zero without end.
  if (pkg)
    if (auto bad = unreadableFileProblem(pkg->libRoot)) {
      if (problem)
        *problem =
            "the library root " + pkg->libRoot.string() + " of " + manifest.string() + " " + *bad;
      return std::nullopt;
    }
  return pkg;
}

namespace {

/// The features of `pkg` that are on: `default` (unless turned off) and `requested`,
/// each expanded through the feature table. `dep:x` and `x/y` entries name dependencies'
/// features, which this offline build does not follow.
std::vector<std::string> enabledFeatures(const CratePackage& pkg, bool withDefault,
                                         const std::vector<std::string>& requested) {
  std::set<std::string> on;
  std::vector<std::string> todo = requested;
  if (withDefault && pkg.featureTable.count("default")) todo.push_back("default");
  while (!todo.empty()) {
    std::string f = todo.back();
    todo.pop_back();
    if (f.find(':') != std::string::npos || f.find('/') != std::string::npos ||
        !on.insert(f).second)
      continue;
    if (auto it = pkg.featureTable.find(f); it != pkg.featureTable.end())
      todo.insert(todo.end(), it->second.begin(), it->second.end());
  }
  return {on.begin(), on.end()};
}

/// Mirrors `real` into `shadow`: directories that hold an overlaid file are made, the
/// overlaid files are written with their unsaved text, everything else is a symlink.
void writeShadowTree(const fs::path& real, const fs::path& shadow,
                     const std::map<std::string, std::string>& overlays) {
  std::error_code ec;
  fs::create_directories(shadow, ec);
  for (const auto& e : fs::directory_iterator(real, ec)) {
    std::string p = normalizePath(e.path().string());
    auto text = overlays.find(p);
    if (text != overlays.end()) {
      std::ofstream(shadow / e.path().filename(), std::ios::binary) << text->second;
      continue;
    }
    bool holdsOverlay = false;
    for (auto it = overlays.lower_bound(p + "/");
         it != overlays.end() && it->first.starts_with(p + "/"); ++it)
      holdsOverlay = true;
    if (holdsOverlay && e.is_directory(ec))
      writeShadowTree(e.path(), shadow / e.path().filename(), overlays);
    else
      fs::create_symlink(e.path(), shadow / e.path().filename(), ec);
  }
  // An overlaid file that does not exist on disk yet (a new module, unsaved).
  for (const auto& [path, text] : overlays)
    if (fs::path(path).parent_path() == fs::path(normalizePath(real.string())) &&
        !fs::exists(shadow / fs::path(path).filename(), ec))
      std::ofstream(shadow / fs::path(path).filename(), std::ios::binary) << text;
}

/// The unsaved texts that lie under `dir`, by normalized path.
std::map<std::string, std::string> overlaysUnder(const std::map<std::string, std::string>& all,
                                                 const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& [path, text] : all)
    if (isUnder(path, dir)) out.emplace(path, text);
  return out;
}

/// What of `pkg` and its path dependencies only cargo builds (build scripts, proc macros,
/// registry dependencies), in words; empty when rustc alone builds it all.
std::string needsCargo(const Toolchain& tc, const CratePackage& pkg) {
  std::vector<std::string> parts;
  std::set<std::string> seen;
  std::function<void(const CratePackage&)> visit = [&](const CratePackage& p) {
    if (!seen.insert(normalizePath(p.root.string())).second) return;
    if (p.hasBuildScript) parts.push_back(p.name + "'s build script");
    if (p.isProcMacro) parts.push_back("the proc macro " + p.name);
    for (const auto& name : p.otherDependencies)
      parts.push_back("the registry dependency " + name + " of " + p.name);
    for (const auto& d : p.pathDependencies)
      if (auto dep = loadPackage(tc, d.path / "Cargo.toml", nullptr)) visit(*dep);
  };
  visit(pkg);
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i)
    out += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
  return out.empty() ? out : out + (parts.size() == 1 ? " is" : " are") + " not built";
}

/// The directories of `pkg`, its workspace and its path dependencies, transitively.
void packageDirs(const Toolchain& tc, const CratePackage& pkg, std::set<std::string>& dirs) {
  if (!dirs.insert(normalizePath(pkg.root.string())).second) return;
  if (!pkg.workspaceRoot.empty()) dirs.insert(normalizePath(pkg.workspaceRoot.string()));
  for (const auto& d : pkg.pathDependencies)
    if (auto dep = loadPackage(tc, d.path / "Cargo.toml", nullptr)) packageDirs(tc, *dep, dirs);
}

/// `pkg` as cargo builds it: its place in the cache (per workspace and toolchain) and the
/// unsaved text of the files it may read.
CargoUnit cargoUnit(const Toolchain& tc, const CratePackage& pkg,
                    const std::map<std::string, std::string>& overlays) {
  CargoUnit c;
  c.manifest = pkg.manifest;
  c.workspaceRoot = pkg.workspaceRoot.empty() ? pkg.root : pkg.workspaceRoot;
  const std::string root = normalizePath(c.workspaceRoot.string());
  c.base = tc.cacheDir / "cargo" /
           (identifierFor(fs::path(root).filename().string()) + "-" +
            stableDigest({"cargo-v1", root, tc.fingerprint()}));
  std::set<std::string> dirs;
  packageDirs(tc, pkg, dirs);
  for (const auto& dir : dirs)
    for (auto& [path, text] : overlaysUnder(overlays, dir)) c.overlays[path] = text;
  return c;
}

std::vector<std::string> remapArgs(const fs::path& shadow, const fs::path& real) {
  return {"--remap-path-prefix", shadow.string() + "=" + real.string()};
}

/// Builds the path dependencies of a package (depth first, each once) into `deps`.
class DependencyBuilder {
 public:
  DependencyBuilder(const Toolchain& tc, const ResolvedOptions& opts, const fs::path& workDir,
                    const std::map<std::string, std::string>& overlays,
                    const CancellationToken& cancel, RustcUnit& unit)
      : tc_(tc),
        opts_(opts),
        work_(workDir),
        deps_(workDir / "deps"),
        overlays_(overlays),
        cancel_(cancel),
        unit_(unit) {
    std::error_code ec;
    fs::create_directories(deps_, ec);
  }

  /// `--extern` and `-L` arguments for `pkg`'s dependencies, building them first; false
  /// when one could not be built (the reason is in the unit).
  bool argsFor(const CratePackage& pkg, std::vector<std::string>& args) {
    for (const auto& d : pkg.pathDependencies) {
      auto rlib = build(d, pkg.manifest);
      if (!rlib) return false;
      args.insert(args.end(), {"--extern", d.externName + "=" + rlib->string()});
      unit_.dependencyRlibs.push_back(*rlib);
    }
    if (!pkg.pathDependencies.empty())
      args.insert(args.end(), {"-L", "dependency=" + deps_.string()});
    return true;
  }

  /// The same for the crates a file outside any crate names (`--extern`): a directory is
  /// built as a path dependency, an rlib taken as it is (its own dependencies beside it).
  bool argsForExterns(const std::vector<ExternCrate>& crates, const fs::path& file,
                      std::vector<std::string>& args) {
    bool built = false;
    for (const auto& e : crates) {
      std::error_code ec;
      if (fs::is_directory(e.path, ec)) {
        auto rlib = build({e.name, e.path, true, {}}, file);
        if (!rlib) return false;
        args.insert(args.end(), {"--extern", e.name + "=" + rlib->string()});
        unit_.dependencyRlibs.push_back(*rlib);
        built = true;
      } else {
        args.insert(args.end(), {"--extern", e.name + "=" + e.path.string(), "-L",
                                 "dependency=" + e.path.parent_path().string()});
        unit_.dependencyRlibs.push_back(e.path);
      }
    }
    if (built) args.insert(args.end(), {"-L", "dependency=" + deps_.string()});
    return true;
  }

 private:
  /// `d` built (or found in the rlib cache) for `dependent`, the Cargo.toml or file that
  /// names it (where its failures are said).
  std::optional<fs::path> build(const CratePackage::Dependency& d, const fs::path& dependent) {
    std::string key = normalizePath(d.path.string());
    if (auto it = built_.find(key); it != built_.end()) return it->second;
    if (!visiting_.insert(key).second) return fail("dependency cycle through " + key, dependent);
    std::string problem;
    auto pkg = loadPackage(tc_, d.path / "Cargo.toml", &problem);
    if (!pkg) return fail("cannot read dependency '" + d.externName + "': " + problem, dependent);

    std::vector<std::string> args = rustcTargetArgs(tc_, opts_);
    if (!argsFor(*pkg, args)) return std::nullopt;
    const auto features = enabledFeatures(*pkg, d.defaultFeatures, d.features);
    const std::string rlibName = "lib" + pkg->crateName + ".rlib";
    const std::string depInfoName = pkg->crateName + ".d";

    // The rlib cache: an entry's name is a digest of everything the rlib is built from
    // (where its sources are: their paths are in its debug info and dep-info; what they
    // say, unsaved text included; target flags, features, the rustc fingerprint and its
    // own dependencies' digests), so a hit needs no further check and an edit is a miss.
    std::vector<std::string> keyParts = {
        "rlib-v1",      tc_.fingerprint(), normalizePath(pkg->root.string()),
        pkg->crateName, pkg->edition,      sourceDigest(pkg->root)};
    for (const auto& a : rustcTargetArgs(tc_, opts_)) keyParts.push_back(a);
    for (const auto& f : features) keyParts.push_back("feature=" + f);
    for (const auto& dep : pkg->pathDependencies)
      keyParts.push_back(dep.externName + "=" + digests_[normalizePath(dep.path.string())]);
    const std::string digest = stableDigest({keyParts.begin(), keyParts.end()});
    fs::path entry = tc_.cacheDir / "rlibs" / (pkg->crateName + "-" + digest);
    std::error_code ec;
    if (fs::is_regular_file(entry / rlibName, ec)) {
      ++unit_.dependenciesReused;
      fs::last_write_time(entry, fs::file_time_type::clock::now(),
                          ec);  // recently used (evictLeastRecentlyUsed)
    } else {
      // Built in a private directory next to the entry and renamed into place: a
      // concurrent compile of the same dependency either sees the whole entry or none.
      RemovedOnExit staging(stagingName(entry.string()) + "-" +
                            std::to_string(reinterpret_cast<uintptr_t>(this)));
      fs::path buildDir = staging.path();
      if (!fs::create_directories(buildDir, ec) || ec) {
        // A read-only cache: built into this compile's own directory, not kept.
        buildDir = entry = work_ / ("uncached-" + pkg->crateName + "-" + digest);
        fs::create_directories(buildDir, ec);
        if (ec) return fail("cannot write " + buildDir.string() + ": " + ec.message(), dependent);
      }
      bool ok = compile(*pkg, features, std::move(args), buildDir, dependent);
      if (ok) {
        // Dep-info with the real paths (a shadow tree is gone after this compile).
        std::ofstream depInfo(buildDir / (depInfoName + ".real"));
        for (const auto& f : readDepInfo(buildDir / depInfoName, unit_.remaps))
          depInfo << f.string() << ":\n";
        depInfo.close();
        fs::rename(buildDir / (depInfoName + ".real"), buildDir / depInfoName, ec);
        if (buildDir == staging.path()) {
          fs::rename(staging.path(), entry,
                     ec);  // fails when another compile placed it first: same content
          evictLeastRecentlyUsed(entry.parent_path(), rlibCacheBytes(),
                                 entry);  // each unsaved edit adds an entry
        }
        ++unit_.dependenciesBuilt;
      }
      if (!ok) return std::nullopt;
    }
    // Into this compile's deps directory, where -L dependency= finds it for dependents.
    for (const std::string& name : {rlibName, "lib" + pkg->crateName + ".rmeta"}) {
      fs::create_symlink(entry / name, deps_ / name, ec);
      if (ec) fs::copy_file(entry / name, deps_ / name, fs::copy_options::overwrite_existing, ec);
    }
    for (auto& f : readDepInfo(entry / depInfoName)) unit_.sourceFiles.push_back(f);
    unit_.userDirs.push_back(normalizePath(pkg->root.string()) + "/");
    fs::path rlib = deps_ / rlibName;
    built_[key] = rlib;
    digests_[key] = digest;
    visiting_.erase(key);
    return rlib;
  }

  /// rustc on one dependency into `outDir`; false (the reason in the unit) when it fails.
  bool compile(const CratePackage& pkg, const std::vector<std::string>& features,
               std::vector<std::string> args, const fs::path& outDir, const fs::path& dependent) {
    fs::path root = sourceView(pkg.root, overlays_, work_, unit_.remaps);
    fs::path libRoot = root / fs::relative(pkg.libRoot, pkg.root);
    if (root != pkg.root) {
      auto r = remapArgs(root, pkg.root);
      args.insert(args.end(), r.begin(), r.end());
    }
    for (const auto& f : features) args.insert(args.end(), {"--cfg", "feature=\"" + f + "\""});
    args.insert(args.end(),
                {"--edition", pkg.edition, "--crate-type", "rlib", "--crate-name", pkg.crateName,
                 "-C", "metadata=" + pkg.crateName, "--emit=metadata,link,dep-info",
                 "--error-format=json", "--out-dir", outDir.string(), libRoot.string()});
    args.insert(args.begin(), tc_.rustc.path.string());
    ProcessSpec spec;
    spec.argv = std::move(args);
    spec.env = {{"RUSTC_BOOTSTRAP", "1"}};
    spec.cwd = work_;
    spec.timeout = opts_.toolTimeout;
    spec.cancel = cancel_;
    ProcessResult r = tc_.run(spec);
    unit_.toolTime += r.elapsed;
    if (r.cancelled) {
      unit_.cancelled = true;
      return false;
    }
    auto diags = parseRustcDiagnostics(r.err);
    bool errors = false;
    for (auto& dg : diags) {
      errors |= dg.severity == Severity::Error;
      if (dg.severity == Severity::Error)
        unit_.diagnostics.push_back(std::move(dg));  // its warnings are its own business
    }
    if (!r.ok()) {
      std::string why =
          "dependency '" + pkg.name + "' (" + pkg.root.string() + ") does not compile";
      if (!errors) why += ": rustc " + r.describe() + "\n" + r.err.substr(0, 4000);
      fail(why, dependent);
      return false;
    }
    return true;
  }

  /// The package's files (sources, Cargo.toml, anything include_str! may read) with
  /// unsaved text in place of the disk's; build output and hidden directories are skipped.
  std::string sourceDigest(const fs::path& root) const {
    std::map<std::string, std::string> files;  // relative path -> content
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(root, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      std::string name = it->path().filename().string();
      if (it->is_directory(ec) && (name == "target" || name.starts_with("."))) {
        it.disable_recursion_pending();
        continue;
      }
      if (!it->is_regular_file(ec)) continue;
      files[fs::relative(it->path(), root).string()] = fileFingerprint(it->path());
    }
    for (const auto& [path, text] : overlaysUnder(overlays_, root))
      files[fs::relative(path, root).string()] = text;
    std::vector<std::string_view> parts;
    for (const auto& [path, text] : files) parts.insert(parts.end(), {path, text});
    return stableDigest(parts);
  }

  std::optional<fs::path> fail(std::string why, const fs::path& manifest) {
    unit_.diagnostics.push_back(crateDiagnostic(Severity::Error, why, manifest));
    unit_.failure = std::move(why);
    return std::nullopt;
  }

  const Toolchain& tc_;
  const ResolvedOptions& opts_;
  fs::path work_, deps_;
  const std::map<std::string, std::string>& overlays_;
  const CancellationToken& cancel_;
  RustcUnit& unit_;
  std::map<std::string, fs::path> built_;
  std::map<std::string, std::string> digests_;  // dependency directory -> its cache digest
  std::set<std::string> visiting_;
};

}  // namespace

std::optional<std::string> parseExternCrate(std::string_view spec, ExternCrate& out) {
  const size_t eq = spec.find('=');
  if (eq == std::string_view::npos)
    return "--extern needs NAME=PATH (a crate's directory or an .rlib), not '" + std::string(spec) +
           "'";
  const std::string_view name = spec.substr(0, eq), path = spec.substr(eq + 1);
  const bool identifier = !name.empty() && (std::isalpha(uint8_t(name[0])) || name[0] == '_') &&
                          name != "_" && std::all_of(name.begin(), name.end(), [](char c) {
                            return std::isalnum(uint8_t(c)) || c == '_';
                          });
  if (!identifier)
    return "--extern: '" + std::string(name) + "' is not a crate name (letters, digits and _)";
  std::error_code ec;
  const fs::path absolute = fs::absolute(fs::path(path), ec);
  if (path.empty() || ec) return "--extern " + std::string(name) + ": no path given";
  if (fs::is_directory(absolute, ec)) {
    if (!fs::is_regular_file(absolute / "Cargo.toml", ec))
      return "--extern " + std::string(name) + ": " + absolute.string() + " has no Cargo.toml";
  } else if (!fs::is_regular_file(absolute, ec) || absolute.extension() != ".rlib") {
    return "--extern " + std::string(name) + ": " + absolute.string() +
           (fs::exists(absolute, ec) ? " is neither a crate's directory nor an .rlib"
                                     : " does not exist");
  }
  out = {std::string(name), normalizePath(absolute.string())};
  return std::nullopt;
}

std::optional<CratePackage> findCrate(const Toolchain& tc, const fs::path& file,
                                      std::string* problem) {
  std::error_code ec;
  fs::path abs = normalizePath(fs::absolute(file).string());
  for (fs::path dir = abs.parent_path(); !dir.empty(); dir = dir.parent_path()) {
    if (fs::exists(dir / "Cargo.toml", ec)) {  // loadPackage refuses one that is not a regular file
      auto pkg = loadPackage(tc, dir / "Cargo.toml", problem);
      // The library's module tree lives under its root's directory; other files next to
      // a Cargo.toml (examples, tests, build scripts) are compiled on their own.
      if (pkg && !isUnder(abs, pkg->libRoot.parent_path())) return std::nullopt;
      return pkg;
    }
    if (dir == dir.root_path()) break;
  }
  return std::nullopt;
}

fs::path sourceView(const fs::path& root, const std::map<std::string, std::string>& overlays,
                    const fs::path& workDir, std::vector<std::pair<fs::path, fs::path>>& remaps) {
  auto mine = overlaysUnder(overlays, root);
  if (mine.empty()) return root;
  fs::path shadow = workDir / ("shadow" + std::to_string(remaps.size()));
  writeShadowTree(root, shadow, mine);
  remaps.emplace_back(shadow, root);
  return shadow;
}

std::vector<std::string> rustcTargetArgs(const Toolchain& tc, const ResolvedOptions& opts) {
  return {"--sysroot", tc.sysroot.path.string(),
          "--target",  "nvptx64-nvidia-cuda",
          "-C",        "opt-level=" + std::to_string(opts.optLevel),
          "-C",        "target-cpu=" + opts.arch,
          "-C",        "codegen-units=1",
          "-C",        "debuginfo=line-directives-only"};
}

std::map<std::string, std::string> unsavedTexts(const CompileInput& input) {
  std::map<std::string, std::string> texts;
  for (const auto& [path, text] : input.overlays)
    texts[normalizePath(fs::absolute(path).string())] = text;
  if (input.text) texts[normalizePath(fs::absolute(input.path).string())] = *input.text;
  return texts;
}

namespace {

/// A file outside any crate as a crate of its own, with the crates `--extern` names; false
/// when one of those could not be built (the reason is in the unit).
bool prepareSingleFile(const Toolchain& tc, const ResolvedOptions& opts, const fs::path& file,
                       const std::map<std::string, std::string>& overlays, const fs::path& workDir,
                       const CancellationToken& cancel, RustcUnit& unit) {
  fs::path dir = file.parent_path();
  fs::path view = sourceView(dir, overlaysUnder(overlays, dir), workDir, unit.remaps);
  unit.source = view / file.filename();
  unit.crateName = identifierFor(file.stem().string());
  unit.userDirs = {dir.string() + "/"};
  if (opts.externCrates.empty()) return true;
  DependencyBuilder deps(tc, opts, workDir, overlays, cancel, unit);
  if (deps.argsForExterns(opts.externCrates, file, unit.args)) return true;
  if (unit.failure.empty() && unit.cancelled) unit.failure = "cancelled";
  return false;
}

/// A file of a crate takes its crates from Cargo.toml: `--extern` is said to be ignored.
void warnExternInCrate(const ResolvedOptions& opts, const fs::path& file, const CratePackage& pkg,
                       RustcUnit& unit) {
  if (opts.externCrates.empty()) return;
  std::string names;
  for (const auto& e : opts.externCrates) names += (names.empty() ? "" : ", ") + e.name;
  unit.diagnostics.push_back(crateDiagnostic(
      Severity::Warning,
      "--extern not applied (" + names + "): " + file.filename().string() + " is part of " +
          pkg.name + ", whose [dependencies] in Cargo.toml name its crates",
      pkg.manifest));
}

/// prepareRustcUnit, with cargo taken for a trusted workspace only when `cargoAllowed`.
RustcUnit prepareUnit(const Toolchain& tc, const CompileInput& input, const ResolvedOptions& opts,
                      const fs::path& workDir, const CancellationToken& cancel, bool cargoAllowed) {
  RustcUnit unit;
  const fs::path file = normalizePath(fs::absolute(input.path).string());
  const std::map<std::string, std::string> overlays = unsavedTexts(input);

  std::string problem;
  unit.crate = findCrate(tc, file, &problem);
  if (!unit.crate) {
    if (!problem.empty())  // a Cargo.toml is there but unreadable: say so, compile the file alone
      unit.diagnostics.push_back(crateDiagnostic(
          Severity::Warning, "compiling " + file.filename().string() + " on its own: " + problem));
    if (!prepareSingleFile(tc, opts, file, overlays, workDir, cancel, unit)) return unit;
  } else {
    const CratePackage& pkg = *unit.crate;
    warnExternInCrate(opts, file, pkg, unit);
    for (const auto& p : pkg.settings.problems)
      unit.diagnostics.push_back(
          crateDiagnostic(Severity::Warning, "[package.metadata.kernelscope] " + p, pkg.manifest));
    // The crate asks for a profile that runs cargo, and the untrusted workspace got another.
    if (pkg.settings.profile && profileRunsCargo(*pkg.settings.profile) &&
        opts.profile != *pkg.settings.profile && !opts.workspaceTrusted)
      unit.diagnostics.push_back(crateDiagnostic(
          Severity::Warning,
          "[package.metadata.kernelscope] profile = \"" +
              std::string(profileName(*pkg.settings.profile)) +
              "\" not applied (it runs cargo and the crate's build scripts): " + kTrustHint +
              "; compiled with " + std::string(profileName(opts.profile)),
          pkg.manifest, kWorkspaceTrustCode));
    if (opts.workspaceTrusted && cargoAllowed && findCargo(tc)) {
      unit.cargo = cargoUnit(tc, pkg, overlays);
      unit.crateName = pkg.crateName;
      unit.edition = pkg.edition;
      unit.userDirs.push_back(normalizePath(pkg.root.string()) + "/");
      unit.remaps.emplace_back(unit.cargo->base / "root", "/");
      unit.args = crateRustcFlags(pkg, opts, unit.diagnostics);
      return unit;
    }
    // (After cargo could not resolve, rustcAloneAfterCargo says why instead.)
    if (auto off = needsCargo(tc, pkg); !off.empty() && !opts.workspaceTrusted)
      unit.diagnostics.push_back(
          crateDiagnostic(Severity::Warning,
                          pkg.name + " compiled with rustc alone (" + off +
                              "): cargo would run the workspace's code, and " + kTrustHint,
                          pkg.manifest, kWorkspaceTrustCode));
    else if (!off.empty() && cargoAllowed)
      unit.diagnostics.push_back(crateDiagnostic(
          Severity::Warning, pkg.name + " compiled with rustc alone (" + off + "): no cargo found",
          pkg.manifest));
    DependencyBuilder deps(tc, opts, workDir, overlays, cancel, unit);
    if (!deps.argsFor(pkg, unit.args)) {
      if (unit.failure.empty() && unit.cancelled) unit.failure = "cancelled";
      return unit;
    }
    fs::path view = sourceView(pkg.root, overlays, workDir, unit.remaps);
    unit.source = view / fs::relative(pkg.libRoot, pkg.root);
    unit.crateName = pkg.crateName;
    unit.edition = pkg.edition;
    unit.userDirs.push_back(normalizePath(pkg.root.string()) + "/");
    for (const auto& f : enabledFeatures(pkg, true, {}))
      unit.args.insert(unit.args.end(), {"--cfg", "feature=\"" + f + "\""});
    auto flags = crateRustcFlags(pkg, opts, unit.diagnostics);
    unit.args.insert(unit.args.end(), flags.begin(), flags.end());
  }
  for (const auto& [shadow, real] : unit.remaps) {
    auto r = remapArgs(shadow, real);
    unit.args.insert(unit.args.end(), r.begin(), r.end());
  }
  return unit;
}

}  // namespace

RustcUnit prepareRustcUnit(const Toolchain& tc, const CompileInput& input,
                           const ResolvedOptions& opts, const fs::path& workDir,
                           const CancellationToken& cancel) {
  return prepareUnit(tc, input, opts, workDir, cancel, true);
}

RustcUnit rustcAloneAfterCargo(const Toolchain& tc, const CompileInput& input,
                               const ResolvedOptions& opts, const fs::path& workDir,
                               const CancellationToken& cancel, const std::string& cargoSaid) {
  RustcUnit unit = prepareUnit(tc, input, opts, workDir, cancel, false);
  if (!unit.crate) return unit;
  const CratePackage& pkg = *unit.crate;
  // From cargo's first error on: its warnings before it (a workspace's resolver version,
  // say) are not why.
  std::string_view said = cargoSaid;
  if (size_t error = said.find("error:"); error != std::string_view::npos)
    said.remove_prefix(error);
  std::string why(text::trim(said));
  if (why.size() > 800) why = why.substr(0, 800) + "…";
  const std::string off = needsCargo(tc, pkg);
  unit.diagnostics.push_back(crateDiagnostic(
      Severity::Warning,
      pkg.name + " compiled with rustc alone: cargo could not resolve the workspace offline" +
          (off.empty() ? std::string() : " (left out: " + off + ")") +
          "; fetch the dependencies once with `cargo fetch` for cargo's build. Cargo said: " + why,
      pkg.manifest));
  return unit;
}

std::vector<std::string> crateRustcFlags(const CratePackage& pkg, const ResolvedOptions& opts,
                                         std::vector<Diagnostic>& diagnostics) {
  VettedFlags vetted = vetWorkspaceRustcFlags(pkg.settings.rustcFlags);
  if (!vetted.refused.empty())
    diagnostics.push_back(crateDiagnostic(
        Severity::Warning,
        "[package.metadata.kernelscope] rustc-flags not applied: " + joinFlags(vetted.refused) +
            " (" + kResponseFileRefusal + ")",
        pkg.manifest, kWorkspaceTrustCode));
  if (vetted.needTrust.empty()) return vetted.safe;
  const std::string flags = joinFlags(vetted.needTrust);
  if (opts.workspaceTrusted) {
    diagnostics.push_back(crateDiagnostic(
        Severity::Note,
        "[package.metadata.kernelscope] rustc-flags applied because the workspace is trusted: " +
            flags,
        pkg.manifest, kWorkspaceTrustCode));
    return vetted.trusted;
  }
  diagnostics.push_back(
      crateDiagnostic(Severity::Warning,
                      "[package.metadata.kernelscope] rustc-flags not applied (they may load "
                      "code or write files): " +
                          flags + "; " + kTrustHint,
                      pkg.manifest, kWorkspaceTrustCode));
  return vetted.safe;
}

// ---------------------------------------------------------------------------------------
// The crate's defaults for what the user left unset.

ResolvedOptions resolveForFile(const Toolchain& tc, const fs::path& file,
                               const CompileOptions& options) {
  const bool cuda = isCudaSource(file);
  if (options.arch && options.optLevel && options.profile)
    return resolveOptions(options, nullptr, cuda);
  const std::optional<CratePackage> crate = findCrate(tc, file);
  return resolveOptions(options, crate ? &crate->settings : nullptr, cuda);
}

ProcessResult runRustcUnit(const Toolchain& tc, RustcUnit& unit, const ResolvedOptions& opts,
                           const std::string& emit, const fs::path& outDir, const fs::path& workDir,
                           const std::vector<std::string>& extraArgs, const fs::path& remarkDir,
                           const CancellationToken& cancel) {
  if (unit.cargo) return runCargoRustc(tc, unit, opts, emit, outDir, extraArgs, remarkDir, cancel);
  std::vector<std::string> args = extraArgs;
  if (!remarkDir.empty())
    args.insert(args.end(), {"-C", "remark=all", "-Zremark-dir=" + remarkDir.string()});
  return tc.run(rustcCommand(tc, unit, opts, emit, outDir, workDir, args, cancel));
}

std::vector<fs::path> readDepInfo(const fs::path& depFile, const Remaps& remaps,
                                  const fs::path& base) {
  const std::string deps = readWholeFile(depFile);
  std::vector<fs::path> files;
  for (std::string_view line : splitLines(deps)) {
    // Lines of the form "path:" (no targets after the colon) name one source file each.
    if (line.empty() || line.back() != ':' || line.find(": ") != std::string_view::npos) continue;
    std::string path(line.substr(0, line.size() - 1));
    // Absolute when rustc was given an absolute root; cargo names a workspace member's
    // files relative to the workspace root.
    path = normalizePath(path.starts_with('/') || base.empty() ? path : (base / path).string());
    for (const auto& [shadow, real] : remaps) {
      std::string s = normalizePath(shadow.string()) + "/";
      if (path.starts_with(s)) path = normalizePath(real.string() + "/" + path.substr(s.size()));
    }
    files.push_back(path);
  }
  return files;
}

std::map<std::string, KernelBudget> parseBudgets(std::string_view jsonText,
                                                 const std::string& where,
                                                 std::vector<std::string>& problems) {
  std::map<std::string, KernelBudget> budgets;
  const auto table = nlohmann::json::parse(jsonText, nullptr, false);
  if (table.is_discarded() || !table.is_object())
    problems.push_back(where + " must be a table");
  else
    readBudgets(table, where, budgets, problems);
  return budgets;
}

void addBudgetsBelow(std::map<std::string, KernelBudget>& budgets,
                     const std::map<std::string, KernelBudget>& below) {
  for (const auto& [kernel, budget] : below) {
    KernelBudget& b = budgets[kernel];
    for (const auto& [figure, limit] : budget.limits) b.limits.try_emplace(figure, limit);
    if (!b.blockSize) b.blockSize = budget.blockSize;
  }
}

}  // namespace ks
