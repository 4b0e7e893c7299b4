// kernelscope: the language server (default) and its command-line tools.
#include <algorithm>
#include <cstring>
#include <iostream>
#include <string_view>

#include "Artifact.h"
#include "Cli.h"
#include "CliArgs.h"
#include "CliFlags.h"
#include "LspMain.h"
#include "Options.h"
#include "Process.h"

namespace {

constexpr const char* kUsage =
    R"(kernelscope — what every line of a Rust GPU kernel became: MIR, LLVM IR, PTX, SASS.

usage:
  kernelscope [lsp] [options]                  run the language server (stdio, or loopback TCP)
@lsp
  kernelscope explain FILE [options]           print each source line with what it became
@explain
  kernelscope report FILE [-o PAGE.html]       the same as one self-contained HTML page: source
                                               and stages side by side, linked both ways
@report
  kernelscope compare RUST_FILE CUDA_FILE      a Rust kernel's PTX/SASS next to its CUDA C++ twin's
@compare
  kernelscope diff BEFORE.rs AFTER.rs [options] what the code became between two files
  kernelscope diff FILE --vs-arch sm_XX | --vs-opt N   ... or between two settings of one file
@diff
  kernelscope passes FILE --kernel NAME [options] the LLVM and MIR passes that changed a kernel,
                                               each with its diff and instruction counts
@passes
  kernelscope run FILE [options]               run a kernel on the GPU from its launch spec: time,
                                               bandwidth, throughput and its output buffers
@run
  kernelscope profile FILE [options]           the same launch under Nsight Compute (ncu): stall
                                               samples, instructions, divergence, coalescing and
                                               bank conflicts per source line
@profile
  kernelscope check [CRATE] [options]          every kernel of a crate against its budgets
                                               ([package.metadata.kernelscope.budget]) and a
                                               committed baseline; exit 1 when one costs more
@check
  kernelscope gpu-exec                         one launch request on stdin, its result on stdout
                                               (what run and profile start, here or via --runner)
  kernelscope doctor [options]                 show the toolchain each stage uses (and a profile's)
@doctor
  kernelscope setup                            build the nvptx64 core sysroot if missing
  kernelscope --version
  kernelscope COMMAND --help                   that command's usage and options alone

Every command prints diagnostics as file:line:col: severity[code]: message and exits
  0  done                                  1  the kernel does not compile, or a step failed
  2  bad arguments or input (an unknown    3  a requested stage is unavailable (the others
     option, value or kernel; a file          are shown)
     that cannot be read)                  4  diff: the two sides differ
)";

/// kUsage with each `@COMMAND` line replaced by that command's option lines from the table
/// of flags (CliFlags.h), which takes the options that are settings from the options table.
std::string usage() {
  std::string out;
  for (std::string_view line : ks::splitLines(kUsage))
    out += line.starts_with("@") ? ks::cliFlagLines(line.substr(1)) : std::string(line) + "\n";
  return out;
}

/// `kernelscope COMMAND --help`: the command's usage lines of kUsage (its own and their
/// continuations) and its option lines from the table of flags; empty for an unknown command.
std::string commandUsage(std::string_view command) {
  const std::string head = "  kernelscope " + std::string(command);
  std::string out;
  bool inCommand = false;
  for (std::string_view line : ks::splitLines(kUsage)) {
    if (line.starts_with(head) && (line.size() == head.size() || line[head.size()] == ' '))
      inCommand = true;
    else if (!line.starts_with("    "))  // not a continuation of a usage line
      inCommand = inCommand && line == "@" + std::string(command);
    if (!inCommand) continue;
    out += line.starts_with("@") ? ks::cliFlagLines(line.substr(1)) : std::string(line) + "\n";
  }
  return out.empty() ? out : "usage:\n" + out;
}

int run(int argc, char** argv) {
  // Installed (linked) as cargo-kernelscope, it is cargo's `cargo kernelscope`.
  if (argc > 0 && std::string_view(argv[0]).ends_with("cargo-kernelscope"))
    return ks::cargoKernelscopeMain(argc, argv);
  std::string_view cmd = argc > 1 ? argv[1] : "";
  // COMMAND --help (lsp prints its own, with the server's settings).
  if (cmd != "lsp" && !cmd.starts_with("-"))
    for (int i = 2; i < argc; ++i)
      if (std::string_view a = argv[i]; a == "--help" || a == "-h") {
        std::string text = commandUsage(cmd);
        if (text.empty()) break;  // an unknown command says so below
        std::cout << text;
        return ks::kExitOk;
      }
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    std::cout << usage();
    return ks::kExitOk;
  }
  if (cmd == "--version") {
    std::cout << "kernelscope " << KERNELSCOPE_VERSION << "\n";
    return ks::kExitOk;
  }
  if (cmd == "explain") return ks::explainMain(argc - 2, argv + 2);
  if (cmd == "report") return ks::reportMain(argc - 2, argv + 2);
  if (cmd == "diff") return ks::diffMain(argc - 2, argv + 2);
  if (cmd == "passes") return ks::passesMain(argc - 2, argv + 2);
  if (cmd == "compare") {
    // --run, or --profile not followed by a toolchain profile's name (compare's --profile NAME).
    for (int i = 2; i < argc; ++i) {
      std::string_view a = argv[i];
      bool profileMode = a == "--profile" && (i + 1 == argc || !ks::profileFromName(argv[i + 1]));
      if (a == "--run" || profileMode) return ks::compareLaunchMain(argc - 2, argv + 2);
    }
    return ks::compareMain(argc - 2, argv + 2);
  }
  if (cmd == "check") return ks::checkMain(argc - 2, argv + 2);
  if (cmd == "run") return ks::runMain(argc - 2, argv + 2);
  if (cmd == "profile") return ks::profileMain(argc - 2, argv + 2);
  if (cmd == "gpu-exec") return ks::gpuExecMain(argc - 2, argv + 2);
  if (cmd == "doctor") return ks::doctorMain(argc - 2, argv + 2);
  if (cmd == "setup") return ks::setupMain(argc - 2, argv + 2);
  if (cmd == "lsp") return ks::lspMain(argc - 2, argv + 2);
  if (cmd.empty() || cmd.starts_with("--")) return ks::lspMain(argc - 1, argv + 1);
  std::cerr << "kernelscope: unknown command '" << cmd << "'\n\n" << usage();
  return ks::kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  // Ctrl-C, SIGTERM, SIGHUP: running tools are killed and temporary files removed.
  ks::installTerminationCleanup();
  // What a kernelscope killed outright left in the temporary directory goes now.
  ks::removeTempDirsOfEndedProcesses();
  // The language server watches its client itself (stdin, the editor's process id).
  const std::string_view cmd = argc > 1 ? argv[1] : "";
  if (cmd != "lsp" && !cmd.empty() && !cmd.starts_with("--")) ks::endWhenOutputReaderGoes();
  try {
    const int status = run(argc, argv);
    ks::printCompileSummary();
    return status;
  } catch (const std::exception& e) {
    // Caught so that the stack unwinds: every temporary directory is removed on the way.
    std::cerr << "kernelscope: error: " << e.what() << "\n";
    return ks::kExitFailed;
  }
}
