// `kernelscope gpu-exec`: the process that touches the GPU.
//
// Reads one request (GpuExecProtocol.h) on stdin, runs or profiles it on this machine's GPU
// and writes the result on stdout. `kernelscope run`/`profile` and the language server start
// it as a child (directly, or through a runner prefix such as `ssh gpu-box` on another machine),
// so a faulting kernel or a hung GPU ends this process only.
#pragma once

#include <string>
#include <vector>

namespace ks::gpu {

/// `gpu-exec [--request FILE --result FILE]`. `self` is the argv that starts gpu-exec again
/// (profiles run the launch under ncu in a child of this process).
int gpuExecMain(const std::vector<std::string>& self, int argc, char** argv);

}  // namespace ks::gpu
