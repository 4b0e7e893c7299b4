// Kernel crates that use a crate without kernels, and one result from their compiles.
// See DependentCrates.h.
#include "DependentCrates.h"

#include <algorithm>
#include <functional>
#include <set>

#include "Crate.h"
#include "KernelScan.h"
#include "LineMap.h"
#include "PtxBackend.h"  // readFile

namespace ks {

namespace fs = std::filesystem;

namespace {

/// Whether a library file of `pkg` (unsaved text first) defines a kernel.
bool hasKernels(const CratePackage& pkg, const std::map<std::string, std::string>& overlays) {
  std::error_code ec;
  const fs::path dir = pkg.libRoot.parent_path();
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (it->is_directory(ec) && (name == "target" || name.starts_with("."))) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->path().extension() != ".rs" || !it->is_regular_file(ec)) continue;
    const std::string path = normalizePath(it->path().string());
    auto open = overlays.find(path);
    const std::string text =
        open != overlays.end() ? open->second : readRegularFile(it->path()).text;
    if (!scanKernelEntries(text).empty()) return true;
  }
  return false;
}

/// Whether `pkg` depends on the package in `root` by path, directly or not.
bool dependsOn(const Toolchain& tc, const CratePackage& pkg, const std::string& root,
               std::set<std::string>& seen) {
  for (const auto& d : pkg.pathDependencies) {
    const std::string dir = normalizePath(d.path.string());
    if (dir == root) return true;
    if (!seen.insert(dir).second) continue;
    if (auto dep = loadPackage(tc, d.path / "Cargo.toml"); dep && dependsOn(tc, *dep, root, seen))
      return true;
  }
  return false;
}

/// `from` appended to `into`, its function indices and lines renumbered.
void appendArtifact(Artifact& into, const Artifact& from) {
  std::string text = into.text();
  if (!text.empty() && text.back() != '\n') text += '\n';
  text += from.text();
  const uint32_t lineOffset = static_cast<uint32_t>(into.lines().size());
  const int32_t functionOffset = static_cast<int32_t>(into.functions.size());
  std::vector<ArtifactLine> lines(into.lines().begin(), into.lines().end());
  for (ArtifactLine l : from.lines()) {
    if (l.function >= 0) l.function += functionOffset;
    lines.push_back(std::move(l));
  }
  std::vector<ArtifactFunction> functions = std::move(into.functions);
  for (ArtifactFunction f : from.functions) {
    f.firstLine += lineOffset;
    f.lastLine += lineOffset;
    functions.push_back(std::move(f));
  }
  into = Artifact(into.stage, std::move(text), std::move(lines), std::move(functions));
}

}  // namespace

std::vector<fs::path> kernelCratesUsing(const Toolchain& tc, const CompileInput& input) {
  const fs::path file = normalizePath(fs::absolute(input.path).string());
  if (file.extension() != ".rs") return {};
  auto pkg = findCrate(tc, file);
  if (!pkg) return {};
  const std::map<std::string, std::string> overlays = unsavedTexts(input);
  if (hasKernels(*pkg, overlays)) return {};

  std::set<std::string> candidates;
  for (const auto& m : pkg->workspaceMembers) candidates.insert(m.string());
  for (const auto& [path, text] : overlays)
    for (fs::path dir = fs::path(path).parent_path(); !dir.empty() && dir != dir.root_path();
         dir = dir.parent_path())
      if (std::error_code ec; fs::is_regular_file(dir / "Cargo.toml", ec)) {
        candidates.insert((dir / "Cargo.toml").string());
        break;
      }
  std::error_code ec;
  for (const auto& sibling : fs::directory_iterator(pkg->root.parent_path(), ec))
    if (fs::is_regular_file(sibling.path() / "Cargo.toml", ec))
      candidates.insert(normalizePath((sibling.path() / "Cargo.toml").string()));
  candidates.erase(normalizePath(pkg->manifest.string()));

  const std::string root = normalizePath(pkg->root.string());
  std::vector<fs::path> users;
  for (const auto& manifest : candidates) {
    auto user = loadPackage(tc, manifest);
    if (!user) continue;
    std::set<std::string> seen;
    if (dependsOn(tc, *user, root, seen) && hasKernels(*user, overlays))
      users.push_back(user->libRoot);
  }
  return users;
}

CompileResult mergeCompileResults(std::vector<CompileResult> results) {
  if (results.size() == 1) return std::move(results.front());
  CompileResult merged;
  if (results.empty()) return merged;
  merged.arch = results.front().arch;
  merged.optLevel = results.front().optLevel;
  merged.profile = results.front().profile;
  merged.crateManifest = results.front().crateManifest;
  std::set<std::string> userFiles, sourceFiles;
  std::set<std::tuple<std::string, uint32_t, std::string>> diagnosticsSeen;
  for (CompileResult& r : results) {
    merged.succeeded |= r.succeeded;
    merged.cancelled |= r.cancelled;
    merged.totalTime += r.totalTime;
    merged.toolTime += r.toolTime;
    const uint32_t ptxOffset =
        merged.stages.count(Stage::Ptx)
            ? static_cast<uint32_t>(merged.stages[Stage::Ptx].artifact->lines().size())
            : 0;
    for (Diagnostic& d : r.diagnostics) {
      if (d.ptxLine) *d.ptxLine += ptxOffset;
      auto key = std::tuple{d.range ? d.range->file : std::string(),
                            d.range ? d.range->startLine : 0u, d.message};
      if (d.ptxLine || diagnosticsSeen.insert(key).second)
        merged.diagnostics.push_back(std::move(d));
    }
    for (auto& [stage, outcome] : r.stages) {
      auto [it, first] = merged.stages.try_emplace(stage, outcome);
      if (first) continue;
      StageOutcome& m = it->second;
      m.toolTime += outcome.toolTime;
      if (!outcome.available) continue;
      if (!m.available) {
        m = outcome;
        continue;
      }
      Artifact appended = *m.artifact;
      appendArtifact(appended, *outcome.artifact);
      m.setArtifact(std::move(appended));
    }
    for (auto& k : r.kernels) merged.kernels.push_back(std::move(k));
    for (auto& rem : r.remarks) merged.remarks.push_back(std::move(rem));
    for (const auto& f : r.sourceFiles) sourceFiles.insert(f.string());
    if (r.lineMap) userFiles.insert(r.lineMap->userFiles().begin(), r.lineMap->userFiles().end());
  }
  merged.sourceFiles.assign(sourceFiles.begin(), sourceFiles.end());
  auto lineMap =
      std::make_shared<LineMap>(std::vector<std::string>(userFiles.begin(), userFiles.end()));
  for (const auto& [stage, outcome] : merged.stages)
    if (outcome.available) lineMap->addArtifact(*outcome.artifact);
  merged.lineMap = lineMap;
  return merged;
}

}  // namespace ks
