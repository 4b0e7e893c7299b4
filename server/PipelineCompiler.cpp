// PipelineCompiler: lazy toolchain discovery and sysroot set-up around ks::compileKernel.
#include "PipelineCompiler.h"

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

CompileResult PipelineCompiler::compile(const CompileInput& input, const CompileOptions& options,
                                        const CancellationToken& cancel) {
  Toolchain tc = toolchain();
  std::string key = compileKey(tc, input, options);
  if (auto cached = cache_.find(key)) return *cached;
  auto result = std::make_shared<const CompileResult>(compileKernel(tc, input, options, cancel));
  cache_.insert(key, result);
  return *result;
}

}  // namespace ks::server
