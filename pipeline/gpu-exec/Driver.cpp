#include "Driver.h"

#include <dlfcn.h>

#include <mutex>

namespace ks::gpu {

namespace {
Driver theDriver;
std::string loadProblem;
std::once_flag loadOnce;
}  // namespace

std::string loadDriver() {
  std::call_once(loadOnce, [] {
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      // dlerror() names the library: "libcuda.so.1: cannot open shared object file: ..."
      loadProblem = "no CUDA driver on this machine (" + std::string(dlerror()) + ")";
      return;
    }
    std::string missing;
#define KS_GPU_RESOLVE(name, symbol, ...)                                          \
  theDriver.name = reinterpret_cast<decltype(theDriver.name)>(dlsym(lib, symbol)); \
  if (!theDriver.name) missing += std::string(missing.empty() ? "" : ", ") + symbol;
    KS_GPU_DRIVER_FUNCTIONS(KS_GPU_RESOLVE)
#undef KS_GPU_RESOLVE
    if (!missing.empty()) loadProblem = "the CUDA driver lacks " + missing + " (driver too old?)";
  });
  return loadProblem;
}

const Driver& driver() { return theDriver; }

std::string errorText(CUresult r) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (theDriver.cuGetErrorName) theDriver.cuGetErrorName(r, &name);
  if (theDriver.cuGetErrorString) theDriver.cuGetErrorString(r, &text);
  std::string out = name ? name : "CUresult " + std::to_string(r);
  if (text) out += " (" + std::string(text) + ")";
  if (r == kCudaErrorStubLibrary) out += ": the stub libcuda was loaded, not a driver";
  return out;
}

void check(CUresult r, const char* what) {
  if (r != kCudaSuccess) throw DriverError(what, r);
}

}  // namespace ks::gpu
