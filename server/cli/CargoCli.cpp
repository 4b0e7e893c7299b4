// `cargo kernelscope`: the commands as cargo subcommands. Cargo runs `cargo-kernelscope
// kernelscope ARGS` for `cargo kernelscope ARGS`; the crate comes from cargo's own flags
// (-p, --manifest-path) and metadata instead of a file path, and the command then runs as
// `kernelscope COMMAND FILE ...` would on the crate's library root.
#include <iostream>
#include <string>
#include <vector>

#include "Cli.h"
#include "CliArgs.h"
#include "Engine.h"

namespace ks {

namespace {

constexpr const char* kCargoUsage =
    R"(cargo kernelscope — kernelscope on the crate cargo would build

usage:
  cargo kernelscope explain [--kernel NAME] [explain's options]
  cargo kernelscope run [--kernel NAME] [run's options]
  cargo kernelscope profile [--kernel NAME] [profile's options]
  cargo kernelscope check [check's options]

cargo's flags:
  -p, --package NAME      the workspace's package (default: the current directory's)
  --manifest-path FILE    the Cargo.toml to start from
  --release               accepted: kernelscope compiles optimized (--opt, default 3)

`kernelscope COMMAND --help` lists each command's own options.
)";

/// Runs `main` with `args` as its argv (after the command's name).
int runWith(int (*main)(int, char**), std::vector<std::string> args) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return main(static_cast<int>(args.size()), argv.data());
}

/// The file that defines kernel `name` of the crate whose library root is `root`, from a
/// compile of it (kept by the engine, so the command that follows finds it compiled).
std::optional<std::string> kernelFile(const std::filesystem::path& root, const std::string& name,
                                      std::string& problem) {
  Engine& engine = cliEngine();
  const auto result = engine.compile({root, std::nullopt, {}}, cliCompileOptions());
  if (const KernelInfo* k = findKernel(*result, name); k && !k->definition.file.empty())
    return k->definition.file;
  std::string names;
  for (const KernelInfo& k : result->kernels)
    names += (names.empty() ? "" : ", ") + (k.demangled.empty() ? k.symbol : k.demangled);
  problem = result->succeeded
                ? "no kernel '" + name +
                      "' in the crate (its kernels: " + (names.empty() ? "none" : names) + ")"
                : "the crate does not compile (kernelscope check shows why)";
  return std::nullopt;
}

}  // namespace

int cargoKernelscopeMain(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args.front() == "kernelscope") args.erase(args.begin());
  if (args.empty() || args.front() == "--help" || args.front() == "-h" || args.front() == "help") {
    std::cout << kCargoUsage;
    return args.empty() ? kExitUsage : kExitOk;
  }
  const std::string command = args.front();
  CargoSelection selection;
  std::string kernel;
  std::vector<std::string> rest;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](std::string& into) {
      if (i + 1 >= args.size()) return false;
      into = args[++i];
      return true;
    };
    bool ok = true;
    if (a == "-p" || a == "--package")
      ok = value(selection.package);
    else if (a == "--manifest-path")
      ok = value(selection.manifestPath);
    else if (a == "--kernel" && command == "explain")
      ok = value(kernel);
    else if (a == "--release")
      continue;
    else if (a == "--profile" || a.starts_with("--profile=")) {
      std::cerr << "cargo kernelscope: --profile is not taken: kernelscope compiles "
                   "with its own options (--opt N; a toolchain profile: kernelscope explain "
                   "--profile NAME)\n";
      return kExitUsage;
    } else if (a == "--target-dir" || a.starts_with("--target-dir=") || a == "--features" ||
               a.starts_with("--features=") || a == "--all-features" ||
               a == "--no-default-features" || a == "--target") {
      std::cerr << "cargo kernelscope: " << a
                << " is not taken: kernelscope builds the crate's default features for "
                   "nvptx64-nvidia-cuda into its own cache\n";
      return kExitUsage;
    } else
      rest.push_back(a);
    if (!ok) {
      std::cerr << "cargo kernelscope: " << a << " needs a value\n";
      return kExitUsage;
    }
  }
  if (command == "check") {
    if (!selection.package.empty()) rest.insert(rest.end(), {"-p", selection.package});
    if (!selection.manifestPath.empty())
      rest.insert(rest.end(), {"--manifest-path", selection.manifestPath});
    return runWith(checkMain, rest);
  }
  int (*main)(int, char**) = command == "explain"   ? explainMain
                             : command == "run"     ? runMain
                             : command == "profile" ? profileMain
                                                    : nullptr;
  if (!main) {
    std::cerr << "cargo kernelscope: unknown command '" << command << "'\n\n" << kCargoUsage;
    return kExitUsage;
  }
  std::string problem;
  auto crate = cargoCrate(cliEngine().toolchain(), selection, problem);
  if (!crate) {
    std::cerr << "cargo kernelscope: " << problem << "\n";
    return kExitUsage;
  }
  std::string file = crate->libRoot.string();
  if (!kernel.empty()) {
    auto defined = kernelFile(crate->libRoot, kernel, problem);
    if (!defined) {
      std::cerr << "cargo kernelscope: " << crate->name << ": " << problem << "\n";
      return kExitUsage;
    }
    file = *defined;
  }
  rest.insert(rest.begin(), file);
  return runWith(main, rest);
}

}  // namespace ks
