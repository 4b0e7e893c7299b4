// Toolchain profiles: names, tool discovery with fixes, and command construction.
// See Profile.h and docs/toolchains.md.
#include "Profile.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>

#include "Artifact.h"
#include "Process.h"

namespace ks {

namespace fs = std::filesystem;

namespace {

// The nightlies the backends are built against (their repositories' rust-toolchain.toml).
constexpr const char* kRustCudaNightly = "nightly-2025-03-02";
constexpr const char* kCudaOxideNightly = "nightly-2026-04-03";

bool isFile(const fs::path& p) {
  std::error_code ec;
  return !p.empty() && fs::is_regular_file(p, ec);
}

bool isExecutable(const fs::path& p) { return isFile(p) && ::access(p.c_str(), X_OK) == 0; }

std::vector<fs::path> splitPathList(const std::string& list) {
  std::vector<fs::path> out;
  std::stringstream s(list);
  std::string item;
  while (std::getline(s, item, ':'))
    if (!item.empty()) out.emplace_back(item);
  return out;
}

ToolInfo missing(std::string name, std::string problem, std::string fix) {
  ToolInfo t;
  t.name = std::move(name);
  t.problem = std::move(problem);
  t.fix = std::move(fix);
  return t;
}

ToolInfo found(std::string name, fs::path path, std::string version = {}) {
  ToolInfo t;
  t.name = std::move(name);
  t.path = std::move(path);
  t.version = std::move(version);
  return t;
}

/// A rustup nightly with cargo, rustc and rust-src (-Zbuild-std needs the library sources).
/// `envName` names an explicit toolchain directory.
ToolInfo findNightly(const EnvLookup& env, const std::string& envName, const std::string& pinned) {
  std::string fix =
      "rustup toolchain install " + pinned +
      " --component rust-src,rustc-dev,llvm-tools-preview (the channel the backend is "
      "built with), or set " +
      envName + " to that toolchain's directory";
  std::vector<fs::path> dirs;
  if (auto explicitDir = env(envName); !explicitDir.empty()) {
    dirs.emplace_back(explicitDir);
  } else {
    fs::path rustupHome = env("RUSTUP_HOME").empty() ? fs::path(env("HOME")) / ".rustup"
                                                     : fs::path(env("RUSTUP_HOME"));
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(rustupHome / "toolchains", ec))
      if (e.path().filename().string().starts_with("nightly")) dirs.push_back(e.path());
    std::sort(dirs.begin(), dirs.end());
    // The pinned channel first: the backend only loads into the rustc it was built for.
    std::stable_partition(dirs.begin(), dirs.end(), [&](const fs::path& d) {
      return d.filename().string().starts_with(pinned);
    });
  }
  std::string problems;
  for (const auto& d : dirs) {
    std::error_code ec;
    if (!isExecutable(d / "bin/cargo") || !isExecutable(d / "bin/rustc")) {
      problems += (problems.empty() ? "" : "; ") + d.string() + " has no bin/cargo and bin/rustc";
    } else if (!fs::is_directory(d / "lib/rustlib/src/rust/library/core", ec)) {
      problems += (problems.empty() ? "" : "; ") + d.string() + " lacks rust-src";
    } else {
      return found("nightly", d / "bin/rustc", d.filename().string());
    }
  }
  return missing("nightly", problems.empty() ? "no rustup nightly toolchain found" : problems, fix);
}

/// A codegen backend library: an explicit path, LD_LIBRARY_PATH (where cuda_builder
/// looks), or the given fallback directories.
ToolInfo findBackend(const EnvLookup& env, const std::string& envName, const std::string& file,
                     const std::vector<fs::path>& fallbacks, const std::string& fallbackName,
                     const std::string& fix) {
  if (auto p = env(envName); !p.empty())
    return isFile(p) ? found("backend", p)
                     : missing("backend", envName + "=" + p + " is not a file", fix);
  std::vector<fs::path> dirs = splitPathList(env("LD_LIBRARY_PATH"));
  dirs.insert(dirs.end(), fallbacks.begin(), fallbacks.end());
  for (const auto& d : dirs)
    if (isFile(d / file)) return found("backend", d / file);
  return missing(
      "backend",
      file + " not found (looked in " + envName + ", LD_LIBRARY_PATH, " + fallbackName + ")", fix);
}

/// "Debian LLVM version 22.1.8" -> 22
int llvmMajor(const std::string& versionText) {
  auto pos = versionText.find("LLVM version ");
  if (pos == std::string::npos) return 0;
  return std::atoi(versionText.c_str() + pos + 13);
}

ToolInfo findLlc(const EnvLookup& env) {
  const std::string fix =
      "install LLVM 21 or newer with the NVPTX target (Debian: llvm-22) or set CUDA_OXIDE_LLC";
  std::vector<fs::path> candidates;
  if (auto p = env("CUDA_OXIDE_LLC"); !p.empty()) candidates.emplace_back(p);
  for (int v = 30; v >= 21; --v)
    if (auto p = findOnPath("llc-" + std::to_string(v))) candidates.push_back(*p);
  if (auto p = findOnPath("llc")) candidates.push_back(*p);
  std::string problems;
  for (const auto& c : candidates) {
    ProcessSpec spec;
    spec.argv = {c.string(), "--version"};
    spec.timeout = std::chrono::seconds(20);
    auto r = runProcess(spec);
    int major = llvmMajor(r.out);
    if (r.ok() && major >= 21 && r.out.find("nvptx64") != std::string::npos)
      return found("llc", c, "LLVM " + std::to_string(major));
    problems += (problems.empty() ? "" : "; ") + c.string() +
                (major ? " is LLVM " + std::to_string(major) : " does not run");
  }
  return missing("llc", problems.empty() ? "no llc on PATH" : problems + " (need 21+ with NVPTX)",
                 fix);
}

}  // namespace

std::string_view profileName(ToolchainProfile p) {
  switch (p) {
    case ToolchainProfile::RustcNvptx:
      return "rustc-nvptx";
    case ToolchainProfile::RustCuda:
      return "rust-cuda";
    case ToolchainProfile::CudaOxide:
      return "cuda-oxide";
  }
  return "rustc-nvptx";
}

std::optional<ToolchainProfile> profileFromName(std::string_view name) {
  for (auto p :
       {ToolchainProfile::RustcNvptx, ToolchainProfile::RustCuda, ToolchainProfile::CudaOxide})
    if (profileName(p) == name) return p;
  return std::nullopt;
}

EnvLookup processEnv() {
  return [](const std::string& name) {
    const char* v = std::getenv(name.c_str());
    return std::string(v ? v : "");
  };
}

const ToolInfo* ProfileTools::find(std::string_view name) const {
  for (const auto& t : tools)
    if (t.name == name) return &t;
  return nullptr;
}

bool ProfileTools::ready() const {
  for (const auto& t : tools)
    if (!t.found()) return false;
  return true;
}

std::string ProfileTools::missingReport() const {
  if (ready()) return {};
  std::string out = "the " + std::string(profileName(profile)) + " profile cannot compile here:";
  for (const auto& t : tools)
    if (!t.found()) out += "\n  " + t.name + ": " + t.problem + "\n    fix: " + t.fix;
  return out;
}

ProfileTools discoverProfileTools(ToolchainProfile profile, const EnvLookup& env) {
  ProfileTools pt;
  pt.profile = profile;
  if (profile == ToolchainProfile::RustCuda) {
    pt.tools.push_back(findNightly(env, "KERNELSCOPE_RUST_CUDA_TOOLCHAIN", kRustCudaNightly));
    std::vector<fs::path> fallbacks;
    if (auto root = env("RUST_CUDA_ROOT"); !root.empty())
      fallbacks.push_back(fs::path(root) / "lib");
    pt.tools.push_back(findBackend(
        env, "KERNELSCOPE_RUST_CUDA_BACKEND", "librustc_codegen_nvvm.so", fallbacks,
        "$RUST_CUDA_ROOT/lib",
        "build rustc_codegen_nvvm from github.com/Rust-GPU/rust-cuda (cargo build --release -p "
        "rustc_codegen_nvvm; it needs LLVM 7 via LLVM_CONFIG, or LLVM 19 via LLVM_CONFIG_19 with "
        "the llvm19 feature) and put its directory on LD_LIBRARY_PATH"));
    // libNVVM and libdevice: the CUDA toolkit, found the way Rust-CUDA's build finds it.
    std::vector<fs::path> roots;
    for (std::string r : {env("CUDA_HOME"), env("CUDA_PATH"), env("CUDA_ROOT"),
                          env("CUDA_TOOLKIT_ROOT_DIR"), std::string("/usr/local/cuda")})
      if (!r.empty() && std::find(roots.begin(), roots.end(), fs::path(r)) == roots.end())
        roots.emplace_back(r);
    const std::string toolkitFix =
        "install the CUDA Toolkit with its NVVM component (nvvm/lib64/libnvvm.so, "
        "nvvm/libdevice) and set CUDA_HOME to it";
    ToolInfo libnvvm = missing("libnvvm", "no nvvm/lib64/libnvvm.so under", toolkitFix);
    for (const auto& r : roots) libnvvm.problem += " " + r.string();
    for (const auto& r : roots)
      if (isFile(r / "nvvm/lib64/libnvvm.so")) {
        libnvvm = found("libnvvm", r / "nvvm/lib64/libnvvm.so");
        pt.cudaRoot = r;
        break;
      }
    fs::path libdevice =
        (pt.cudaRoot.empty() ? roots.front() : pt.cudaRoot) / "nvvm/libdevice/libdevice.10.bc";
    pt.tools.push_back(libnvvm);
    pt.tools.push_back(isFile(libdevice)
                           ? found("libdevice", libdevice)
                           : missing("libdevice", libdevice.string() + " not found", toolkitFix));
  } else if (profile == ToolchainProfile::CudaOxide) {
    pt.tools.push_back(findNightly(env, "KERNELSCOPE_CUDA_OXIDE_TOOLCHAIN", kCudaOxideNightly));
    std::vector<fs::path> fallbacks;
    if (auto root = env("CUDA_OXIDE_ROOT"); !root.empty())
      for (const char* build : {"release", "debug"})
        fallbacks.push_back(fs::path(root) / "crates/rustc-codegen-cuda/target" / build);
    pt.tools.push_back(
        findBackend(env, "KERNELSCOPE_CUDA_OXIDE_BACKEND", "librustc_codegen_cuda.so", fallbacks,
                    "$CUDA_OXIDE_ROOT/crates/rustc-codegen-cuda/target/{release,debug}",
                    "build it from github.com/NVlabs/cuda-oxide (cargo build --release in "
                    "crates/rustc-codegen-cuda) and set CUDA_OXIDE_ROOT to the checkout, or set "
                    "KERNELSCOPE_CUDA_OXIDE_BACKEND to the library"));
    pt.tools.push_back(findLlc(env));
  }
  return pt;
}

namespace {

/// cargo's CARGO_ENCODED_RUSTFLAGS: flags joined by 0x1f, so that spaces inside one flag
/// (-Cllvm-args=...) survive.
std::string encodeRustflags(const std::vector<std::string>& flags) {
  std::string out;
  for (const auto& f : flags) out += (out.empty() ? "" : "\x1f") + f;
  return out;
}

/// `cargo rustc <target> --manifest-path M --message-format=... --target-dir T [...]`
ProfileCommand cargoRustc(const ProfileBuild& b, const std::vector<std::string>& cargoArgs) {
  ProfileCommand c;
  c.argv = {b.cargo.string(), "rustc"};
  c.argv.insert(c.argv.end(), b.cargoTarget.begin(), b.cargoTarget.end());
  c.argv.insert(c.argv.end(),
                {"--manifest-path", b.manifest.string(), "--message-format=json-render-diagnostics",
                 "--target-dir", b.targetDir.string()});
  c.argv.insert(c.argv.end(), cargoArgs.begin(), cargoArgs.end());
  // MIR with spans and dep-info for the kernel crate only (rustflags reach every crate).
  c.argv.insert(c.argv.end(), {"--", "--emit=mir,link,dep-info", "-Zmir-include-spans=on"});
  c.argv.insert(c.argv.end(), b.rustcArgs.begin(), b.rustcArgs.end());
  c.cwd = b.manifest.parent_path();
  c.env = {{"RUSTC", b.rustc.string()}};
  return c;
}

}  // namespace

ProfileCommand rustCudaCommand(const ProfileBuild& b) {
  // cuda_builder's invoke_rustc(): its rustflags, then -Cllvm-args with the NVVM options
  // (arch, -opt=0 for a debug build, --override-libm, --final-module-path, line info).
  std::string llvmArgs = "-arch=compute_" + b.arch.substr(3);
  if (b.optLevel == 0) llvmArgs += " -opt=0";
  llvmArgs += " --override-libm --final-module-path " + (b.outDir / "final-module.ll").string() +
              " -generate-line-info";
  std::vector<std::string> rustflags = {"-Zcodegen-backend=" + b.backend.string(),
                                        "-Zcrate-attr=feature(register_tool)",
                                        "-Zcrate-attr=register_tool(nvvm_internal)",
                                        "-Zcrate-attr=no_std",
                                        "-Zsaturating_float_casts=false",
                                        "-Cdebuginfo=1",
                                        "-Cllvm-args=" + llvmArgs};
  std::vector<std::string> cargoArgs = {"-Zbuild-std=core,alloc", "--target=nvptx64-nvidia-cuda"};
  if (b.optLevel > 0) cargoArgs.push_back("--release");
  cargoArgs.push_back("-Zbuild-std-features=panic_immediate_abort");
  ProfileCommand c = cargoRustc(b, cargoArgs);
  // The backend dlopen()s libnvvm: its directory must be on the library path.
  fs::path backendDir = b.backend.parent_path();
  c.env.insert(c.env.end(), {{"CARGO_ENCODED_RUSTFLAGS", encodeRustflags(rustflags)},
                             {"CUDA_PATH", b.cudaRoot.string()},
                             {"LD_LIBRARY_PATH",
                              backendDir.string() + ":" + (b.cudaRoot / "nvvm/lib64").string()}});
  return c;
}

ProfileCommand cudaOxideCommand(const ProfileBuild& b) {
  // The README's required flags; opt-level 3 is one of them (MIR inlining for device code).
  std::vector<std::string> rustflags = {
      "-Zcodegen-backend=" + b.backend.string(), "-Copt-level=3", "-Cdebug-assertions=off",
      "-Zmir-enable-passes=-JumpThreading", "-Zalways-encode-mir"};
  ProfileCommand c = cargoRustc(b, {"--release"});
  c.env.insert(c.env.end(), {{"CARGO_ENCODED_RUSTFLAGS", encodeRustflags(rustflags)},
                             {"CUDA_OXIDE_PTX_DIR", b.outDir.string()},
                             {"CUDA_OXIDE_TARGET", b.arch},
                             {"CUDA_OXIDE_LLC", b.llc.string()},
                             {"CUDA_OXIDE_DEBUG", "line-tables"},
                             {"CUDA_OXIDE_DEVICE_CODEGEN_CRATE", b.crateName}});
  return c;
}

std::vector<fs::path> ptxArtifacts(std::string_view lines) {
  std::vector<fs::path> out;
  for (auto line : splitLines(lines)) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object() || j.value("reason", "") != "compiler-artifact")
      continue;
    if (!j.contains("filenames") || !j["filenames"].is_array()) continue;
    for (const auto& f : j["filenames"])
      if (f.is_string() && f.get<std::string>().ends_with(".ptx"))
        out.emplace_back(f.get<std::string>());
  }
  return out;
}

std::string rustcMessagesFromCargo(std::string_view lines) {
  std::string out;
  for (auto line : splitLines(lines)) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object() || j.value("reason", "") != "compiler-message") continue;
    if (j.contains("message") && j["message"].is_object()) out += j["message"].dump() + "\n";
  }
  return out;
}

std::string profileDoctorReport(const ProfileTools& pt) {
  if (pt.profile == ToolchainProfile::RustcNvptx) return {};
  std::ostringstream out;
  out << "profile " << profileName(pt.profile) << "\n";
  for (const auto& t : pt.tools) {
    out << "  " << t.name << std::string(t.name.size() < 12 ? 12 - t.name.size() : 1, ' ');
    if (t.found())
      out << "ok       " << t.path.string() << (t.version.empty() ? "" : "  (" + t.version + ")");
    else
      out << "MISSING  " << t.problem << "\n" << std::string(23, ' ') << "fix: " << t.fix;
    out << "\n";
  }
  return out.str();
}

}  // namespace ks
