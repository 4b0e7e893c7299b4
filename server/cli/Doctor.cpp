// `kernelscope doctor` and `kernelscope setup`.
#include <iostream>

#include "Cli.h"
#include "CliArgs.h"
#include "Driver.h"
#include "Engine.h"
#include "Files.h"
#include "Ncu.h"
#include "OptionDecoding.h"
#include "Profile.h"
#include "Runner.h"
#include "Toolchain.h"

namespace ks {

std::string gpuDoctorReport();

namespace {

Engine* theCliEngine = nullptr;

}  // namespace

Engine& cliEngine() {
  // Never destroyed: the results it holds (hundreds of MB of small objects for a large file)
  // go with the process instead of being freed one by one as it exits, which cost the CLI
  // 5% of its CPU. Reachable from this static, they are no leak to LeakSanitizer.
  static Engine& engine = *new Engine({}, [](std::string_view kind, const std::string& message) {
    if (kind != "end" || message != "the nvptx64 sysroot is ready")
      std::cerr << "kernelscope: " << message << "\n";
  });
  if (!theCliEngine) {
    engine.setOptionLayer(applySettingsFile);
    engine.keepResultsOnDisk(cacheBoundBytes("KERNELSCOPE_RESULT_CACHE_MB", 1024));
    theCliEngine = &engine;
  }
  return engine;
}

void printCompileSummary() {
  if (!cliVerbose() || !theCliEngine) return;
  const Engine::Counters c = theCliEngine->counters();
  std::cerr << "kernelscope: " << c.compiled << " compiled, " << c.fromMemory + c.fromDisk
            << " from the result cache\n";
}

std::optional<std::string> parseProfileArg(const std::optional<std::string>& value,
                                           std::optional<ToolchainProfile>& profile) {
  const OptionSpec& option = *optionByCliFlag("--profile");
  if (!value) return "--profile needs " + std::string(option.expected);
  if (auto bad = optionProblem(option, "--profile", *value)) return *bad;
  profile = profileFromName(*value);
  return std::nullopt;
}

int doctorMain(int argc, char** argv) {
  std::optional<ToolchainProfile> profile;
  for (int i = 0; i < argc; ++i) {
    std::string_view arg = argv[i];
    std::optional<std::string> bad;
    if (arg == "--profile")
      bad = parseProfileArg(i + 1 < argc ? std::optional<std::string>(argv[++i]) : std::nullopt,
                            profile);
    else
      bad = "unknown option '" + std::string(arg) + "' (kernelscope doctor [--profile " +
            std::string(kProfileChoices) + "])";
    if (bad) {
      std::cerr << "kernelscope doctor: " << *bad << "\n";
      return kExitUsage;
    }
  }
  Toolchain tc = discoverToolchain();
  std::cout << doctorReport(tc);
  std::cout << gpuDoctorReport();
  bool sass = tc.ptxas.found() && tc.nvdisasm.found();
  if (profile && *profile != ToolchainProfile::RustcNvptx) {
    // The profile brings its own compiler; ptxas + nvdisasm above still give SASS.
    ProfileTools tools = discoverProfileTools(*profile);
    std::cout << "\n" << profileDoctorReport(tools);
    if (!tools.ready())
      std::cout << "\nThe " << profileName(*profile)
                << " profile cannot compile until the MISSING items of its section are fixed.\n";
    else
      std::cout << (sass ? "\nAll stages available with the "
                         : "\nMIR, LLVM IR and PTX work with the ")
                << profileName(*profile) << " profile"
                << (sass ? ".\n" : "; SASS and resources need the MISSING tools.\n");
    return tools.ready() ? kExitOk : kExitFailed;
  }
  bool core = tc.rustc.found() && tc.sysroot.found();
  if (!core)
    std::cout << "\nkernelscope cannot compile kernels until the MISSING items above are fixed.\n";
  else if (!sass)
    std::cout << "\nMIR, LLVM IR and PTX work; SASS and resources need the MISSING tools.\n";
  else
    std::cout << "\nAll stages available.\n";
  return core ? kExitOk : kExitFailed;
}

/// `run` and `profile` on this machine: the CUDA driver and Nsight Compute's CLI.
std::string gpuDoctorReport() {
  std::string out = "\nrun and profile on this machine (or through --runner on another)\n";
  std::string driverProblem = gpu::loadDriver();
  out += "  CUDA driver   " +
         (driverProblem.empty() ? std::string("libcuda.so.1 found")
                                : "MISSING: " + driverProblem + "; " + gpu::kNoDriverHint) +
         "\n";
  auto ncu = gpu::findNcu("");
  out += "  ncu           " +
         (ncu.empty() ? std::string("MISSING: Nsight Compute's CLI is not in CUDA_HOME/bin, "
                                    "/usr/local/cuda/bin or PATH (profile needs it)")
                      : ncu.string()) +
         "\n";
  return out;
}

int setupMain(int, char**) {
  Toolchain tc = discoverToolchain();
  if (!tc.rustc.found()) {
    std::cerr << "kernelscope setup: rustc: " << tc.rustc.problem << "\n  fix: " << tc.rustc.fix
              << "\n";
    return kExitFailed;
  }
  if (tc.sysroot.found()) {
    std::cerr << "[setup] nvptx64 core: present (" << tc.sysroot.path.string() << ")\n";
    return kExitOk;
  }
  std::string err =
      ensureSysroot(tc, [](const std::string& msg) { std::cerr << "[setup] " << msg << "\n"; });
  if (!err.empty()) {
    std::cerr << "kernelscope setup: " << err << "\n";
    return kExitFailed;
  }
  return kExitOk;
}

}  // namespace ks
