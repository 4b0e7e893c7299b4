// PipelineCompiler: the language server's compile function, over the engine (Engine.h).
//
// The toolchain is discovered on the first compile (not at start-up, so `initialize` is
// answered at once), and the nvptx64 sysroot is built then if it is missing, with its
// progress reported. Results are kept in the engine's cache, so an undo or switching an
// arch back is answered without compiling. Safe to call from several worker threads.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "Engine.h"
#include "Settings.h"

namespace ks::server {

class PipelineCompiler {
 public:
  /// `progress(kind, message)` with kind "begin", "report" or "end"; called on a worker.
  using Progress = Engine::Progress;

  PipelineCompiler(ToolchainSettings settings, Progress progress)
      : engine_(std::move(settings), std::move(progress)) {}
  std::shared_ptr<const CompileResult> compile(const CompileInput& input,
                                               const CompileOptions& options,
                                               const CancellationToken& cancel) {
    return engine_.compile(input, options, cancel);
  }
  /// The passes that changed `kernel` (Passes.h), compiled as compile() would compile it.
  PassesResult passes(const CompileInput& input, const CompileOptions& options,
                      const std::string& kernel, const CancellationToken& cancel) {
    return engine_.passes(input, options, kernel, {}, cancel);
  }
  /// Uses another rustc from the next compile on (empty: discover).
  void setRustc(const std::string& path) { engine_.setRustc(path); }
  /// Applies the settings that concern the engine, at once: the rustc (`rustc`, else
  /// `defaultRustc`: the command line's) and the cache's bound (`compileCacheMB`).
  void applySettings(const Settings& s, const std::string& defaultRustc) {
    engine_.setRustc(s.rustc.empty() ? defaultRustc : s.rustc);
    engine_.setCacheCapacity(s.compileCacheMB << 20);
  }
  /// The toolchain, discovered (and its sysroot set up) on first use. Any thread.
  Toolchain toolchain() { return engine_.toolchain(); }
  Engine& engine() { return engine_; }

 private:
  Engine engine_;
};

}  // namespace ks::server
