// Engine: the one compile service of kernelscope, JSON-free, shared by the CLI and the
// language server.
//
// It owns what every compile needs besides the compile driver (Compile.h): the toolchain,
// discovered on first use with its nvptx64 sysroot built when missing; the options a file is
// compiled with (the crate's `[package.metadata.kernelscope]` for what the caller left unset,
// the stages a `.cu` file has); and the cache of recent results. Each behaviour is here once,
// so the commands and the server cannot drift apart. Safe to call from several threads.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "Compile.h"
#include "CompileCache.h"
#include "KernelImages.h"
#include "ParkedResult.h"
#include "Passes.h"
#include "ResultStore.h"
#include "Toolchain.h"

namespace ks {

class Engine {
 public:
  /// `progress(kind, message)` with kind "begin", "report" or "end", while the nvptx64 sysroot
  /// is built, and "note" for what the user should know (results that cannot be kept on
  /// disk); called on the thread that asked for the toolchain or the compile.
  using Progress = std::function<void(std::string_view kind, const std::string& message)>;

  explicit Engine(ToolchainSettings = {}, Progress = {});

  /// The toolchain, discovered (and its sysroot set up) on first use.
  Toolchain toolchain();
  /// Uses `given`, a toolchain made by the caller (the tests' replayToolchain, whose tools answer
  /// from a recording), from the next compile on instead of one discovered, until setRustc names
  /// another rustc.
  void useToolchain(Toolchain given);
  /// Uses another rustc from the next compile on (empty: discover).
  void setRustc(const std::string& path);
  /// Bounds the results kept in memory (their footprints added up).
  void setCacheCapacity(size_t bytes);
  /// Keeps results on disk too, under `<cache>/results/` within `maxBytes` (ResultStore.h):
  /// for the CLI, whose every run is a new process. Called before the first compile.
  void keepResultsOnDisk(uintmax_t maxBytes);

  /// A layer of options between the caller's and the crate's: it sets on `options` what the
  /// caller left unset. The CLI's reads the workspace's kernelscope.toml (the server layers
  /// that file under the editor's settings itself), so that a file compiles for the same arch
  /// from either front end.
  using OptionLayer = std::function<void(const std::filesystem::path& file, CompileOptions&)>;
  /// Sets the layer every later compile's options pass through (optionsFor). Called before
  /// the first compile.
  void setOptionLayer(OptionLayer);

  /// The options `file` compiles with, every layer resolved in one place: the caller's, then
  /// the option layer's (setOptionLayer), then its crate's `[package.metadata.kernelscope]`
  /// (resolveForFile, Crate.h), then the defaults; and for a `.cu` file only the stages CUDA C++
  /// has (PTX, SASS) unless the caller chose the stages.
  ResolvedOptions optionsFor(const std::filesystem::path& file, CompileOptions);

  /// Compiles `input` with optionsFor's options, or answers from the cache. The crate's
  /// Cargo.toml is among the result's sourceFiles: its change makes the result stale. A stage
  /// that came out as in the file's previous compile shares that compile's artifact
  /// (shareUnchangedArtifacts).
  /// A compile that saves its tools' outputs (CommonCompileOptions::saveTempsDir) always runs.
  std::shared_ptr<const CompileResult> compile(const CompileInput&, const CompileOptions&,
                                               const CancellationToken& = {});
  /// The passes that changed `kernel` (Passes.h), compiled as compile() would compile it;
  /// with keepResultsOnDisk, an unchanged kernel's view is read from there (counted as
  /// compile() counts its answers).
  PassesResult passes(const CompileInput&, const CompileOptions&, const std::string& kernel,
                      const PassesOptions& = {}, const CancellationToken& = {});

  /// `result` parked (ParkedResult.h), and kept parked by the cache too (a later compile
  /// of the same input brings it back instead of compiling); nullptr when it cannot be.
  std::shared_ptr<const ParkedResult> park(const std::shared_ptr<const CompileResult>& result);

  /// How compile() and passes() were answered so far: by running the tools, or from a cache.
  struct Counters {
    size_t compiled = 0;
    size_t fromMemory = 0;
    size_t fromDisk = 0;
  };
  Counters counters() const;

 private:
  std::mutex mutex_;
  std::mutex discoveryMutex_;  // held while the toolchain is discovered (and core built)
  ToolchainSettings settings_;
  uint64_t settingsGeneration_ = 0;  // counts setRustc's changes
  Progress progress_;
  OptionLayer optionLayer_;
  std::optional<Toolchain> toolchain_;
  CompileCache cache_;
  /// Each file's newest compiled result, whose unchanged artifacts the next one shares.
  std::map<std::filesystem::path, std::weak_ptr<const CompileResult>> newest_;
  std::optional<ResultStore> store_;  // set by keepResultsOnDisk once the toolchain is known
  /// The kernel groups' ptxas and nvdisasm outputs (KernelImages.h), in `<cache>/kernels/` too.
  std::shared_ptr<KernelImageCache> kernelImages_;
  std::filesystem::path kernelImagesDir_;
  uintmax_t storeBytes_ = 0;
  bool storeProblemSaid_ = false;
  std::atomic<size_t> compiled_{0}, fromMemory_{0}, fromDisk_{0};

  ResultStore* resultStore();
  ResolvedOptions resolve(const Toolchain&, const std::filesystem::path& file, CompileOptions);
  /// Makes `result`'s unchanged stages share the artifacts of `file`'s previous result.
  void shareWithPrevious(const std::filesystem::path& file, CompileResult& result);
  /// Says once, through progress, why results cannot be kept on disk ("": nothing to say).
  void noteStoreProblem(const std::string& problem);
};

}  // namespace ks
