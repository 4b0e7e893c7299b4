// Toolchain profiles: which Rust GPU compiler builds the kernel, what it needs, and the
// exact commands kernelscope runs for it.
//
//   rustc-nvptx  plain rustc for nvptx64-nvidia-cuda (Compile.cpp; the default)
//   rust-cuda    Rust-CUDA: rustc_codegen_nvvm as -Zcodegen-backend, cuda_std, libNVVM;
//                driven like cuda_builder drives it from build.rs (cargo, -Zbuild-std)
//   cuda-oxide   NVIDIA's cuda-oxide: rustc_codegen_cuda as -Zcodegen-backend, which
//                lowers the MIR of #[kernel] functions to LLVM IR and runs llc for PTX
//
// docs/toolchains.md says how each stage is obtained and where each flag comes from.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "GpuArch.h"
#include "Toolchain.h"

namespace ks {

enum class ToolchainProfile : uint8_t { RustcNvptx, RustCuda, CudaOxide };

std::string_view profileName(ToolchainProfile);
std::optional<ToolchainProfile> profileFromName(std::string_view);
inline constexpr std::string_view kProfileChoices = "rustc-nvptx, rust-cuda or cuda-oxide";

/// Reads an environment variable ("" when unset). Tests pass their own.
using EnvLookup = std::function<std::string(const std::string&)>;
EnvLookup processEnv();

/// The tools a profile needs besides ptxas + nvdisasm (shared with rustc-nvptx), as found.
struct ProfileTools {
  ToolchainProfile profile = ToolchainProfile::RustcNvptx;
  std::vector<ToolInfo> tools;     // in the order they are needed
  std::filesystem::path cudaRoot;  // rust-cuda: the toolkit holding libNVVM

  const ToolInfo* find(std::string_view name) const;
  bool ready() const;
  /// Empty when ready; otherwise what is missing and how to get it, one tool per line.
  std::string missingReport() const;
};

/// rustc-nvptx needs nothing beyond the Toolchain (its tools list is empty).
ProfileTools discoverProfileTools(ToolchainProfile, const EnvLookup& = processEnv());

/// What one profile compile builds: the package, where outputs go, the target.
struct ProfileBuild {
  std::filesystem::path cargo, rustc;  // the nightly the backend was built with
  std::filesystem::path backend;       // the codegen backend's shared library
  std::filesystem::path manifest;      // the package's Cargo.toml (a shadow copy when unsaved)
  std::vector<std::string> cargoTarget{"--lib"};  // which target `cargo rustc` builds
  std::filesystem::path targetDir;                // cargo's --target-dir
  std::filesystem::path outDir;                   // where the backend writes PTX / its final IR
  std::string crateName;                          // the library's crate name
  std::string arch{kDefaultArch};
  int optLevel = 3;
  std::vector<std::string> rustcArgs;  // for the kernel crate only (after `--`)
  std::filesystem::path cudaRoot;      // rust-cuda: libNVVM and libdevice
  std::filesystem::path llc;           // cuda-oxide: LLVM 21+ llc
};

/// One process to run: argv, the environment it adds, where.
struct ProfileCommand {
  std::vector<std::string> argv;
  std::vector<std::pair<std::string, std::string>> env;
  std::filesystem::path cwd;
};

/// cargo as cuda_builder runs it (same rustflags, -Zbuild-std=core,alloc, nvptx64 target),
/// as `cargo rustc` so that MIR and dep-info are emitted for the kernel crate only.
ProfileCommand rustCudaCommand(const ProfileBuild&);
/// cargo with rustc_codegen_cuda and the four flags its README requires; the backend
/// writes `<crate>.ll` and `<crate>.ptx` into CUDA_OXIDE_PTX_DIR.
ProfileCommand cudaOxideCommand(const ProfileBuild&);

/// The `.ptx` files named by cargo's `compiler-artifact` messages (JSON lines).
std::vector<std::filesystem::path> ptxArtifacts(std::string_view cargoJsonLines);
/// rustc's JSON diagnostics inside cargo's `compiler-message` lines, one per line, as
/// rustc prints them with --error-format=json (for parseRustcDiagnostics).
std::string rustcMessagesFromCargo(std::string_view cargoJsonLines);

/// The profile's section of the doctor report (empty for rustc-nvptx).
std::string profileDoctorReport(const ProfileTools&);

}  // namespace ks
