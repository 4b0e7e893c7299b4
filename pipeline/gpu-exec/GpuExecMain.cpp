// ks-gpu-exec: gpu-exec on its own, for a GPU machine without kernelscope's LLVM build
// (`kernelscope gpu-exec` is the same code). See GpuExec.h.
#include <unistd.h>
#include <climits>

#include "GpuExec.h"

int main(int argc, char** argv) {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  std::string exe = n > 0 ? std::string(self, static_cast<size_t>(n)) : std::string(argv[0]);
  return ks::gpu::gpuExecMain({exe}, argc - 1, argv + 1);
}
