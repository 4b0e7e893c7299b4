// Engine: see Engine.h.
#include "Engine.h"

#include "Crate.h"
#include "Cuda.h"
#include "Files.h"
#include "StableHash.h"

namespace ks {

Engine::Engine(ToolchainSettings settings, Progress progress)
    : settings_(std::move(settings)), progress_(std::move(progress)) {}

void Engine::useToolchain(Toolchain given) {
  std::lock_guard lock(mutex_);
  ++settingsGeneration_;  // a discovery under way answers its own call only
  toolchain_ = std::move(given);
}

void Engine::setRustc(const std::string& path) {
  std::lock_guard lock(mutex_);
  if (settings_.rustc == path) return;
  settings_.rustc = path;
  ++settingsGeneration_;
  toolchain_.reset();
}

void Engine::setCacheCapacity(size_t bytes) { cache_.setCapacity(bytes); }

void Engine::keepResultsOnDisk(uintmax_t maxBytes) {
  std::lock_guard lock(mutex_);
  storeBytes_ = maxBytes;
  store_.reset();
}

std::shared_ptr<const ParkedResult> Engine::park(
    const std::shared_ptr<const CompileResult>& result) {
  auto parked = ParkedResult::park(*result);
  if (parked)
    cache_.park(
        result.get(), [parked] { return parked->unpark(); }, parked->bytes());
  return parked;
}

ResultStore* Engine::resultStore() {
  {
    std::lock_guard lock(mutex_);
    if (storeBytes_ == 0 || store_) return store_ ? &*store_ : nullptr;
  }
  const Toolchain tc = toolchain();  // where the cache is
  std::lock_guard lock(mutex_);
  if (!store_ && storeBytes_ != 0) store_.emplace(tc.cacheDir / "results", storeBytes_);
  return store_ ? &*store_ : nullptr;
}

Toolchain Engine::toolchain() {
  // One discovery at a time, without holding mutex_ through it: setRustc (the language
  // server's io thread) does not wait for the minute a build of the core takes.
  std::lock_guard discovering(discoveryMutex_);
  ToolchainSettings settings;
  uint64_t generation = 0;
  {
    std::lock_guard lock(mutex_);
    if (toolchain_) return *toolchain_;
    settings = settings_;
    generation = settingsGeneration_;
  }
  Toolchain tc = discoverToolchain(settings);
  if (tc.rustc.found() && !tc.sysroot.found()) {
    bool begun = false;
    std::string problem = ensureSysroot(tc, [&](const std::string& line) {
      if (progress_) progress_(begun ? "report" : "begin", line);
      begun = true;
    });
    // A problem found before the build began (a cache that is not writable) is said too.
    if (progress_ && !begun && !problem.empty())
      progress_("begin", "setting up the nvptx64 sysroot"), begun = true;
    if (progress_ && begun)
      progress_("end", problem.empty() ? "the nvptx64 sysroot is ready" : "sysroot: " + problem);
  }
  std::lock_guard lock(mutex_);
  // Another rustc was set meanwhile: this toolchain answers this call only.
  if (generation == settingsGeneration_) toolchain_ = tc;
  return tc;
}

namespace {

/// This kernelscope binary (its path, size and modification time): results stored on disk by
/// another build of kernelscope are not read.
const std::string& binaryIdentity() {
  static const std::string identity = [] {
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) return std::string("unknown");
    const auto size = std::filesystem::file_size(self, ec);
    const auto time = std::filesystem::last_write_time(self, ec).time_since_epoch().count();
    return self.string() + "|" + std::to_string(size) + "|" + std::to_string(time);
  }();
  return identity;
}

}  // namespace

void Engine::setOptionLayer(OptionLayer layer) {
  std::lock_guard lock(mutex_);
  optionLayer_ = std::move(layer);
}

ResolvedOptions Engine::resolve(const Toolchain& tc, const std::filesystem::path& file,
                                CompileOptions options) {
  OptionLayer layer;
  {
    std::lock_guard lock(mutex_);
    layer = optionLayer_;
  }
  if (layer) layer(file, options);
  ResolvedOptions resolved = resolveForFile(tc, file, options);
  std::lock_guard lock(mutex_);
  if (!kernelImages_ || kernelImagesDir_ != tc.cacheDir) {
    kernelImagesDir_ = tc.cacheDir;
    kernelImages_ = std::make_shared<KernelImageCache>(
        kDefaultKernelImagesMB << 20, tc.cacheDir.empty() ? tc.cacheDir : tc.cacheDir / "kernels",
        cacheBoundBytes("KERNELSCOPE_KERNEL_CACHE_MB", kDefaultKernelImagesDiskMB));
  }
  resolved.kernelImages = kernelImages_;
  return resolved;
}

ResolvedOptions Engine::optionsFor(const std::filesystem::path& file, CompileOptions options) {
  return resolve(toolchain(), file, std::move(options));
}

std::shared_ptr<const CompileResult> Engine::compile(const CompileInput& input,
                                                     const CompileOptions& options,
                                                     const CancellationToken& cancel) {
  const Toolchain tc = toolchain();
  const ResolvedOptions effective = resolve(tc, input.path, options);
  // Saved tool outputs are a side effect a cached result would not have.
  const bool cacheable = effective.saveTempsDir.empty();
  const std::string key = cacheable ? compileKey(tc, input, effective) : std::string();
  if (cacheable)
    if (auto cached = cache_.find(key)) {
      ++fromMemory_;
      return cached;
    }
  ResultStore* store = cacheable ? resultStore() : nullptr;
  const std::string storeKey = store ? stableDigest({key, binaryIdentity()}) : std::string();
  if (store)
    if (auto stored = store->load(storeKey)) {
      ++fromDisk_;
      cache_.insert(key, stored);
      return stored;
    }
  auto compiled = std::make_shared<CompileResult>(compileKernel(tc, input, effective, cancel));
  ++compiled_;
  // The crate's Cargo.toml (its metadata and flags) is an input too: a change to it makes
  // the result stale for the cache and for the server's watching.
  if (!compiled->crateManifest.empty())
    addSourceFile(compiled->sourceFiles, compiled->crateManifest);
  if (compiled->succeeded) shareWithPrevious(input.path, *compiled);
  std::shared_ptr<const CompileResult> result = std::move(compiled);
  if (result->succeeded) {
    std::lock_guard lock(mutex_);
    newest_[input.path] = result;
  }
  if (cacheable) cache_.insert(key, result);
  if (store) noteStoreProblem(store->save(storeKey, *result));
  return result;
}

void Engine::shareWithPrevious(const std::filesystem::path& file, CompileResult& result) {
  std::shared_ptr<const CompileResult> previous;
  {
    std::lock_guard lock(mutex_);
    if (auto it = newest_.find(file); it != newest_.end()) previous = it->second.lock();
  }
  if (previous) shareUnchangedArtifacts(result, *previous);
}

void Engine::noteStoreProblem(const std::string& problem) {
  if (problem.empty()) return;
  std::lock_guard lock(mutex_);
  if (progress_ && !storeProblemSaid_) progress_("note", problem);
  storeProblemSaid_ = true;
}

PassesResult Engine::passes(const CompileInput& input, const CompileOptions& options,
                            const std::string& kernel, const PassesOptions& passesOptions,
                            const CancellationToken& cancel) {
  const Toolchain tc = toolchain();
  const ResolvedOptions effective = resolve(tc, input.path, options);
  // Kept on disk as compiles are (the same key, with the kernel and what to show), unless
  // the run saves its dumps: a side effect a kept view would not have.
  ResultStore* store = effective.saveTempsDir.empty() ? resultStore() : nullptr;
  const std::string storeKey =
      store ? stableDigest({"passes", compileKey(tc, input, effective), kernel,
                            std::to_string(passesOptions.llvm), std::to_string(passesOptions.mir),
                            std::to_string(passesOptions.context), binaryIdentity()})
            : std::string();
  if (store)
    if (std::optional<PassesResult> stored = store->loadPasses(storeKey)) {
      ++fromDisk_;
      return std::move(*stored);
    }
  PassesResult result = computePasses(tc, input, effective, kernel, passesOptions, cancel);
  ++compiled_;
  if (store) noteStoreProblem(store->savePasses(storeKey, result));
  return result;
}

Engine::Counters Engine::counters() const {
  return {compiled_.load(), fromMemory_.load(), fromDisk_.load()};
}

}  // namespace ks
