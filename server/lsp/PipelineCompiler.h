// PipelineCompiler: the real compile function, ks::compileKernel with a discovered toolchain.
//
// The toolchain is discovered on the first compile (not at start-up, so `initialize` is
// answered at once), and the nvptx64 sysroot is built then if it is missing, with its
// progress reported. Results are kept in a CompileCache, so an undo or switching an arch
// back is answered without compiling. Safe to call from several worker threads.
#pragma once

#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "Compile.h"
#include "CompileCache.h"
#include "Passes.h"
#include "Toolchain.h"

namespace ks::server {

class PipelineCompiler {
 public:
  /// `progress(kind, message)` with kind "begin", "report" or "end"; called on a worker.
  using Progress = std::function<void(std::string_view kind, const std::string& message)>;

  PipelineCompiler(ToolchainSettings, Progress);
  std::shared_ptr<const CompileResult> compile(const CompileInput&, const CompileOptions&,
                                               const CancellationToken&);
  /// The passes that changed `kernel` (Passes.h), compiled as compile() would compile it.
  PassesResult passes(const CompileInput&, const CompileOptions&, const std::string& kernel,
                      const CancellationToken&);
  /// Uses another rustc from the next compile on (empty: discover).
  void setRustc(const std::string& path);
  /// The toolchain, discovered (and its sysroot set up) on first use. Any thread.
  Toolchain toolchain();

 private:
  std::mutex mutex_;
  ToolchainSettings settings_;
  Progress progress_;
  std::optional<Toolchain> toolchain_;
  CompileCache cache_;
};

}  // namespace ks::server
