// The CUDA driver API, opened at run time.
//
// libcuda.so.1 is opened with dlopen, so kernelscope builds and runs on machines with no
// driver and no CUDA toolkit: only `run`/`profile` need one, and they say so when it is
// missing. The declarations below are the driver's stable C ABI for the few entry points
// used (cuda.h is not on machines without the toolkit, so it cannot be included here;
// tests/gpu/driver_abi_check.cpp checks them against cuda.h where it is). The GPU tests
// (tests/gpu) use this wrapper too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace ks::gpu {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUevent = struct CUevent_st*;
using CUstream = struct CUstream_st*;

constexpr CUresult kCudaSuccess = 0;
constexpr CUresult kCudaErrorStubLibrary = 34;

// CUdevice_attribute values (cuda.h).
enum DeviceAttribute : int {
  kAttrClockRateKHz = 13,
  kAttrMultiprocessorCount = 16,
  kAttrMemoryClockRateKHz = 36,
  kAttrMemoryBusWidthBits = 37,
  kAttrMaxThreadsPerMultiprocessor = 39,
  kAttrComputeCapabilityMajor = 75,
  kAttrComputeCapabilityMinor = 76,
  kAttrMaxSharedMemoryPerBlockOptin = 97,
};
// CUfunction_attribute values (cuda.h).
enum FunctionAttribute : int {
  kFuncAttrSharedSizeBytes = 1,
  kFuncAttrNumRegs = 4,
  kFuncAttrMaxDynamicSharedSizeBytes = 8,
};
// CUjit_option values (cuda.h): where the JIT writes why PTX does not load.
enum JitOption : int {
  kJitErrorLogBuffer = 5,
  kJitErrorLogBufferSizeBytes = 6,
};

// Each entry point: the member name, its exported symbol (cuda.h maps several names to
// versioned symbols, cuMemAlloc -> cuMemAlloc_v2) and its signature.
// clang-format off
#define KS_GPU_DRIVER_FUNCTIONS(X) \
  X(cuInit, "cuInit", unsigned) \
  X(cuDriverGetVersion, "cuDriverGetVersion", int*) \
  X(cuGetErrorName, "cuGetErrorName", CUresult, const char**) \
  X(cuGetErrorString, "cuGetErrorString", CUresult, const char**) \
  X(cuDeviceGetCount, "cuDeviceGetCount", int*) \
  X(cuDeviceGet, "cuDeviceGet", CUdevice*, int) \
  X(cuDeviceGetName, "cuDeviceGetName", char*, int, CUdevice) \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute", int*, int, CUdevice) \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", CUcontext*, CUdevice) \
  X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", CUdevice) \
  X(cuCtxSetCurrent, "cuCtxSetCurrent", CUcontext) \
  X(cuCtxSynchronize, "cuCtxSynchronize") \
  X(cuModuleLoadData, "cuModuleLoadData", CUmodule*, const void*) \
  X(cuModuleLoadDataEx, "cuModuleLoadDataEx", CUmodule*, const void*, unsigned, int*, void**) \
  X(cuModuleUnload, "cuModuleUnload", CUmodule) \
  X(cuModuleGetFunction, "cuModuleGetFunction", CUfunction*, CUmodule, const char*) \
  X(cuFuncSetAttribute, "cuFuncSetAttribute", CUfunction, int, int) \
  X(cuFuncGetAttribute, "cuFuncGetAttribute", int*, int, CUfunction) \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor", \
      int*, CUfunction, int, size_t) \
  X(cuMemAlloc, "cuMemAlloc_v2", CUdeviceptr*, size_t) \
  X(cuMemFree, "cuMemFree_v2", CUdeviceptr) \
  X(cuMemcpyHtoD, "cuMemcpyHtoD_v2", CUdeviceptr, const void*, size_t) \
  X(cuMemcpyDtoH, "cuMemcpyDtoH_v2", void*, CUdeviceptr, size_t) \
  X(cuMemsetD8, "cuMemsetD8_v2", CUdeviceptr, unsigned char, size_t) \
  X(cuMemsetD32, "cuMemsetD32_v2", CUdeviceptr, unsigned, size_t) \
  X(cuEventCreate, "cuEventCreate", CUevent*, unsigned) \
  X(cuEventDestroy, "cuEventDestroy_v2", CUevent) \
  X(cuEventRecord, "cuEventRecord", CUevent, CUstream) \
  X(cuEventSynchronize, "cuEventSynchronize", CUevent) \
  X(cuEventElapsedTime, "cuEventElapsedTime", float*, CUevent, CUevent) \
  X(cuLaunchKernel, "cuLaunchKernel", CUfunction, unsigned, unsigned, unsigned, \
      unsigned, unsigned, unsigned, unsigned, CUstream, void**, void**)
// clang-format on

struct Driver {
#define KS_GPU_MEMBER(name, symbol, ...) CUresult (*name)(__VA_ARGS__) = nullptr;
  KS_GPU_DRIVER_FUNCTIONS(KS_GPU_MEMBER)
#undef KS_GPU_MEMBER
};

/// The driver, loaded once per process. Returns the reason there is none ("" when loaded).
/// `driver()` is valid only after loadDriver() returned "".
std::string loadDriver();
const Driver& driver();

/// "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)".
std::string errorText(CUresult);

/// A failed driver call: what was being done and the driver's error.
struct DriverError : std::runtime_error {
  DriverError(const std::string& what, CUresult code)
      : std::runtime_error(what + ": " + errorText(code)), code(code) {}
  CUresult code;
};

/// Throws DriverError when `r` is not success.
void check(CUresult r, const char* what);

}  // namespace ks::gpu
