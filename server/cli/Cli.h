// The command-line front ends that share the pipeline with the language server.
#pragma once

#include <optional>
#include <string>

#include "Profile.h"

namespace ks {

class Engine;

/// `--profile NAME` (explain, doctor): the reason when `value` is missing or not a profile.
std::optional<std::string> parseProfileArg(const std::optional<std::string>& value,
                                           std::optional<ToolchainProfile>& profile);

/// The engine every command compiles through (Engine.h): its toolchain is discovered on first
/// use, with the nvptx64 `core` built first if it is missing (progress and problems on stderr),
/// and results are kept on disk between runs (`<cache>/results/`, bounded by
/// KERNELSCOPE_RESULT_CACHE_MB, default 1024; 0 keeps none).
Engine& cliEngine();
/// With --verbose: one line on stderr saying how the command's compiles were answered
/// ("kernelscope: 0 compiled, 1 from the result cache").
void printCompileSummary();

/// `kernelscope explain FILE [--line N] [--stages ...] [--arch sm_XX] [--opt N] [--annotate]
/// [--json]`
int explainMain(int argc, char** argv);
/// `kernelscope report FILE [-o PAGE.html] [--stages ...]`: explain's content as one
/// self-contained HTML page with linked highlighting (ReportHtml.h).
int reportMain(int argc, char** argv);
/// `kernelscope doctor [--profile NAME]`: which tool each stage uses, and what is missing with the
/// fix.
int doctorMain(int argc, char** argv);
/// `kernelscope setup`: builds the nvptx64 `core` sysroot into the cache if needed.
int setupMain(int argc, char** argv);
/// `kernelscope compare RUST_FILE CUDA_FILE [--kernel NAME]`: a Rust kernel next to its CUDA C++
/// twin.
int compareMain(int argc, char** argv);
/// `kernelscope diff A.rs B.rs` or `kernelscope diff FILE --vs-arch sm_XX | --vs-opt N`.
int diffMain(int argc, char** argv);
/// `kernelscope passes FILE --kernel NAME [--llvm|--mir] [--json]`: the passes that changed a
/// kernel.
int passesMain(int argc, char** argv);

/// `kernelscope run FILE [--kernel K] [--spec ITEMS] [--runs N] [--dump DIR] [--runner P]`:
/// the kernel on a GPU from its launch spec: time, bandwidth, throughput and its buffers.
int runMain(int argc, char** argv);
/// `kernelscope profile FILE [--kernel K] [--spec ITEMS] [--runner PREFIX] [--json]`: the same
/// launch under Nsight Compute, its counters on the source lines.
int profileMain(int argc, char** argv);
/// `kernelscope compare RUST CUDA --run|--profile [run options]`: both kernels on one spec.
int compareLaunchMain(int argc, char** argv);
/// `kernelscope check [CRATE] [-p NAME] [--baseline FILE] [--bless] [--sarif FILE]`: every
/// kernel of a crate against its budgets and a committed baseline (exit 1 when one fails).
int checkMain(int argc, char** argv);
/// `cargo kernelscope COMMAND [-p NAME] [--manifest-path FILE] ...` (the executable run as
/// `cargo-kernelscope`): explain, run, profile and check on the crate cargo would build.
int cargoKernelscopeMain(int argc, char** argv);
/// `kernelscope gpu-exec`: one launch request on stdin, its result on stdout
/// (pipeline/gpu-exec/GpuExec.h).
int gpuExecMain(int argc, char** argv);

}  // namespace ks
