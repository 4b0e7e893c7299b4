// PipelineCompiler: lazy toolchain discovery and sysroot set-up around ks::compileKernel.
#include "PipelineCompiler.h"

#include "Crate.h"

namespace ks::server {

PipelineCompiler::PipelineCompiler(ToolchainSettings settings, Progress progress)
    : settings_(std::move(settings)), progress_(std::move(progress)) {}

void PipelineCompiler::setRustc(const std::string& path) {
  std::lock_guard lock(mutex_);
  if (settings_.rustc == path) return;
  settings_.rustc = path;
  toolchain_.reset();
}

Toolchain PipelineCompiler::toolchain() {
  std::lock_guard lock(mutex_);
  if (!toolchain_) {
    Toolchain tc = discoverToolchain(settings_);
    if (tc.rustc.found() && !tc.sysroot.found()) {
      bool begun = false;
      std::string problem = ensureSysroot(tc, [&](const std::string& line) {
        if (progress_) progress_(begun ? "report" : "begin", line);
        begun = true;
      });
      if (progress_ && begun)
        progress_("end", problem.empty() ? "the nvptx64 sysroot is ready" : "sysroot: " + problem);
    }
    toolchain_ = std::move(tc);
  }
  return *toolchain_;
}

std::shared_ptr<const CompileResult> PipelineCompiler::compile(const CompileInput& input,
                                                               const CompileOptions& options,
                                                               const CancellationToken& cancel) {
  Toolchain tc = toolchain();
  // Settings the user left unset come from the crate's Cargo.toml (cargo metadata, cached).
  const CompileOptions effective = withCrateDefaults(tc, input.path, options);
  std::string key = compileKey(tc, input, effective);
  if (auto cached = cache_.find(key)) return cached;
  auto compiled = std::make_shared<CompileResult>(compileKernel(tc, input, effective, cancel));
  // The crate's Cargo.toml (its metadata and flags) is an input too: a change to it makes
  // the result stale for the cache and for the server's watching.
  if (!compiled->crateManifest.empty()) compiled->sourceFiles.push_back(compiled->crateManifest);
  std::shared_ptr<const CompileResult> result = std::move(compiled);
  cache_.insert(key, result);
  return result;
}

PassesResult PipelineCompiler::passes(const CompileInput& input, const CompileOptions& options,
                                      const std::string& kernel, const CancellationToken& cancel) {
  Toolchain tc = toolchain();
  return computePasses(tc, input, withCrateDefaults(tc, input.path, options), kernel, {}, cancel);
}

}  // namespace ks::server
