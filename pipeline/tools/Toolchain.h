// Toolchain discovery: which rustc, sysroot, ptxas, nvdisasm and nvcc kernelscope uses.
//
// Works on the set-up machines (Debian's rustc-web, the built `core` cache, CUDA 11.8
// tools in the cache) and on users' machines (rustup nightly, a full CUDA toolkit).
// Everything it finds goes into a fingerprint that is part of every cache key.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ks {

/// What the user (settings, environment) asks for; empty fields mean "discover".
struct ToolchainSettings {
  std::string rustc;     // path to rustc; else $KERNELSCOPE_RUSTC, rustup nightly, /usr/bin/rustc
  std::string cudaHome;  // else $CUDA_HOME, /usr/local/cuda
  std::string
      cacheDir;  // else $KERNELSCOPE_CACHE_DIR, $XDG_CACHE_HOME/kernelscope, ~/.cache/kernelscope
                 // (without HOME: the passwd home, else a private /tmp/kernelscope-cache-UID)
};

/// One tool as found: where, which version, or why not.
struct ToolInfo {
  std::string name;            // "rustc", "ptxas", ...
  std::filesystem::path path;  // empty when missing
  std::string version;         // first meaningful line of --version
  std::string problem;         // why it is unusable, empty when fine
  std::string fix;             // what to do about it
  bool found() const { return !path.empty() && problem.empty(); }
};

struct ProcessSpec;
struct ProcessResult;
class ToolRunner;

struct Toolchain {
  ToolInfo rustc;
  std::string rustcRelease;       // "1.96.0"
  std::string rustcLlvm;          // "22.1.8"
  std::filesystem::path rustSrc;  // library sources for building `core`, empty if absent
  ToolInfo sysroot;               // path = the --sysroot to pass
  ToolInfo ptxas;
  ToolInfo nvdisasm;
  std::string cudaRelease;  // "11.8" of the ptxas/nvdisasm pair
  ToolInfo nvcc;
  std::filesystem::path cacheDir;
  /// Starts the tools of a compile (run()); null: runProcess. Not part of the fingerprint
  /// or of the kept discovery: a test sets it to answer from recorded output.
  std::shared_ptr<const ToolRunner> runner;

  /// Runs one of these tools (rustc, cargo, ptxas, nvdisasm, nvcc, a profile's build)
  /// through `runner`. The discovery's own probes (`--version`) run directly.
  ProcessResult run(const ProcessSpec&) const;
  /// A short stable hash of everything above that changes generated code.
  std::string fingerprint() const;
  /// Where a built sysroot for this rustc lives.
  std::filesystem::path sysrootCacheDir() const;
};

/// A digest of the environment variables that decide which tools a compile runs and how
/// (CUDA_HOME, CUDA_PATH, PATH, RUSTFLAGS, the profiles' roots, ...): part of every cache
/// key, so that a result is not served after one of them changed.
std::string compileEnvironment();

/// Finds the tools. The result is kept under `<cache>/toolchain/` and used again while every
/// path discovery looked at (the tools, the directories searched, the sysroot's files) is as
/// it was (internal/ToolchainCache.h); any change discovers afresh.
Toolchain discoverToolchain(const ToolchainSettings& = {});

/// cargo next to the toolchain's rustc, else on PATH (findOnPath); nullopt when there is
/// none, with `problem` (when given) saying so and what to install.
std::optional<std::filesystem::path> findCargo(const Toolchain&, std::string* problem = nullptr);

/// A working directory of kernelscope's own (in the cache), made when missing, for tools
/// that would otherwise read the workspace's configuration from theirs (cargo metadata);
/// `/` when it cannot be made.
std::filesystem::path kernelscopeWorkingDirectory(const Toolchain&);

/// Builds the nvptx64 `core` + `compiler_builtins` sysroot into the cache (cargo,
/// offline) unless it is already there, then removes the cores no rustc uses any more
/// (an upgraded rustc's earlier one, ...: see README, "Toolchain on your own machine").
/// `progress` receives one-line messages. Returns an empty string on success, the reason
/// otherwise. Updates `tc.sysroot`.
std::string ensureSysroot(Toolchain& tc, const std::function<void(const std::string&)>& progress);

/// The `kernelscope doctor` report: per stage, which tool, where, which version, and
/// what is missing with the fix. Plain text, one tool per line.
std::string doctorReport(const Toolchain&);

}  // namespace ks
