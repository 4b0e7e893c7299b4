// kernelscope: the language server (default) and its command-line tools.
#include <algorithm>
#include <cstring>
#include <iostream>
#include <string_view>

#include "Artifact.h"
#include "Cli.h"
#include "CliArgs.h"
#include "LspMain.h"
#include "Options.h"
#include "Process.h"

namespace {

constexpr const char* kUsage =
    R"(kernelscope — what every line of a Rust GPU kernel became: MIR, LLVM IR, PTX, SASS.

usage:
  kernelscope [lsp] [--port N] [--lit-test]   run the language server (stdio, or loopback TCP)
  kernelscope explain FILE [options]           print each source line with what it became
      --line N            only line N (1-based)
@--stages
@--arch
@--opt
@--profile
      --annotate          explain each instruction and its modifiers
      --json              machine-readable output
      --save-temps DIR    keep every tool's raw output in DIR
      --remarks WHICH     optimizer remarks under each line: default (missed, and what
                          was inlined, hoisted, unrolled or vectorized), all, missed,
                          passed, analysis or none
      --block-size N      threads per block for the occupancy column (default 256)
      --verbose           say on stderr how the compiles were answered ("0 compiled, 1 from
                          the result cache": an unchanged kernel is not compiled again)
  kernelscope compare RUST_FILE CUDA_FILE      a Rust kernel's PTX/SASS next to its CUDA C++ twin's
      --kernel NAME       the kernel to compare (default: kernels of the same name)
      --stages LIST       ptx, sass or ptx,sass (default)
      --arch sm_XX, --opt N   as for explain
      --run | --profile   run or profile both on the Rust kernel's launch spec (the twin's
                          own spec if it has one): times, bandwidth, checksums, hot lines
                          (with run's options: --spec, --runner, --runs, --replay R --replay C)
  kernelscope diff BEFORE.rs AFTER.rs [options] what the code became between two files
  kernelscope diff FILE --vs-arch sm_XX | --vs-opt N   ... or between two settings of one file
      --arch sm_XX, --opt N   settings of both sides (the first side with --vs-*)
      --stages LIST       as for explain
      --context N         unchanged lines around each change (default 3)
      --summary           only the summary line ("PTX +3 −1, SASS +2, regs 10→12")
      --raw               compare lines as printed (keep register and label numbers)
  kernelscope passes FILE --kernel NAME [options] the LLVM and MIR passes that changed a kernel,
                                               each with its diff and instruction counts
      --llvm | --mir      only LLVM's passes, or only MIR's (default: both)
      --arch sm_XX, --opt N   as for explain
      --context N         unchanged lines around each change (default 3)
      --json              machine-readable output
      --save-temps DIR    keep rustc's -print-changed output, final IR and MIR dumps in DIR
  kernelscope run FILE [options]               run a kernel on the GPU from its launch spec: time,
                                               bandwidth, throughput and its output buffers
      --kernel NAME       the kernel (default: the only one, or the only one with a spec)
      --spec ITEMS        spec items added to the kernel's own ('n = 4096; block = 128')
      --runs N            timed launches (default 20), after --warmup N (default 2)
      --dump DIR          write every buffer after the first launch to DIR/NAME.npy
@--runner
      --remote-kernelscope PATH   the kernelscope there (default: kernelscope on its PATH)
      --timeout S         give up on a launch after S seconds (default 300)
      --arch sm_XX, --opt N, --json   as for explain
      --save-request FILE write the gpu-exec request (cubin and plan) to FILE instead
      --replay FILE       show a result that gpu-exec wrote (kernelscope gpu-exec < REQUEST > FILE)
  kernelscope profile FILE [options]           the same launch under Nsight Compute (ncu): stall
                                               samples, instructions, divergence, coalescing and
                                               bank conflicts per source line
      --kernel, --spec, --runner, --remote-kernelscope, --timeout, --save-request, --replay,
      --arch, --opt, --json   as for run
@--ncu
      --top N             only the N lines with the most stall samples
  kernelscope gpu-exec                         one launch request on stdin, its result on stdout
                                               (what run and profile start, here or via --runner)
  kernelscope doctor [--profile NAME]          show the toolchain each stage uses (and a profile's)
  kernelscope setup                            build the nvptx64 core sysroot if missing
  kernelscope --version

Every command prints diagnostics as file:line:col: severity[code]: message and exits
  0  done                                  1  the kernel does not compile, or a step failed
  2  bad arguments or input (an unknown    3  a requested stage is unavailable (the others
     option, value or kernel; a file          are shown)
     that cannot be read)                  4  diff: the two sides differ
)";

/// kUsage with each `@--FLAG` line replaced by the option's line from the options table
/// (Options.h): its value's name and its help, as the settings and the docs say them.
std::string usage() {
  std::string out;
  for (std::string_view line : ks::splitLines(kUsage)) {
    const ks::OptionSpec* option =
        line.starts_with("@") ? ks::optionByCliFlag(line.substr(1)) : nullptr;
    if (!option) {
      out += std::string(line) + "\n";
      continue;
    }
    std::string flag =
        "      " + std::string(option->cliFlag) + " " + std::string(option->cliValue);
    flag.resize(std::max<size_t>(flag.size() + 1, 26), ' ');
    out += flag + std::string(option->help) + "\n";
  }
  return out;
}

int run(int argc, char** argv) {
  std::string_view cmd = argc > 1 ? argv[1] : "";
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    std::cout << usage();
    return ks::kExitOk;
  }
  if (cmd == "--version") {
    std::cout << "kernelscope " << KERNELSCOPE_VERSION << "\n";
    return ks::kExitOk;
  }
  if (cmd == "explain") return ks::explainMain(argc - 2, argv + 2);
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
