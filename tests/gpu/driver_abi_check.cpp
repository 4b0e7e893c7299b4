// pipeline/gpu-exec/Driver.h declares the CUDA driver's C ABI itself (machines without the toolkit
// have no cuda.h). Where cuda.h is installed, this file checks those declarations against it when
// it compiles (it is never run): every enum value, and for every entry point the exported
// symbol and the parameters (how many, their sizes, pointer or not). A wrong transcription
// fails the build here instead of a launch on a GPU.
#include "Driver.h"

// After Driver.h: cuda.h maps names to versioned symbols (cuMemAlloc -> cuMemAlloc_v2),
// which is what the checks below compare the declared symbols with.
#include <cuda.h>

#include <string_view>
#include <type_traits>

namespace ks::gpu {
namespace {

/// Driver.h's value and cuda.h's, compared as the ints the driver takes (two enum types).
constexpr bool same(int ours, int theirs) { return ours == theirs; }

static_assert(same(kCudaSuccess, CUDA_SUCCESS));
static_assert(same(kCudaErrorStubLibrary, CUDA_ERROR_STUB_LIBRARY));
static_assert(same(kAttrClockRateKHz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE));
static_assert(same(kAttrMultiprocessorCount, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT));
static_assert(same(kAttrMemoryClockRateKHz, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE));
static_assert(same(kAttrMemoryBusWidthBits, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH));
static_assert(same(kAttrMaxThreadsPerMultiprocessor,
                   CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR));
static_assert(same(kAttrComputeCapabilityMajor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR));
static_assert(same(kAttrComputeCapabilityMinor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR));
static_assert(same(kAttrMaxSharedMemoryPerBlockOptin,
                   CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN));
static_assert(same(kFuncAttrSharedSizeBytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES));
static_assert(same(kFuncAttrNumRegs, CU_FUNC_ATTRIBUTE_NUM_REGS));
static_assert(same(kFuncAttrMaxDynamicSharedSizeBytes,
                   CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES));
static_assert(same(kJitErrorLogBuffer, CU_JIT_ERROR_LOG_BUFFER));
static_assert(same(kJitErrorLogBufferSizeBytes, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES));

template <class... P>
struct Params {};

/// Whether two parameter lists agree in the ABI: as many, each of one size, pointers where
/// the other has pointers (Driver.h's handles and enums are its own types, so not the same).
template <class... A, class... B>
constexpr bool sameAbi(Params<A...>, Params<B...>) {
  if constexpr (sizeof...(A) != sizeof...(B))
    return false;
  else
    return ((sizeof(A) == sizeof(B) && std::is_pointer_v<A> == std::is_pointer_v<B>)&&...);
}

template <class... B>
Params<B...> paramsOf(::CUresult (*)(B...));

/// Entry points that Driver.h loads by their first symbol although a newer cuda.h maps the
/// name to a later version with the same parameters: drivers from before that version have
/// only the first (cuEventElapsedTime_v2 came with CUDA 12.8).
constexpr bool firstSymbolKept(std::string_view symbol) { return symbol == "cuEventElapsedTime"; }

#define KS_STR2(x) #x
#define KS_STR(x) KS_STR2(x)
// KS_STR(name) is the symbol cuda.h declares for the name (its macros expand it first);
// #name is the name as Driver.h spells it.
#define KS_CHECK_ENTRY(name, symbol, ...)                                           \
  static_assert(std::string_view(symbol) == KS_STR(name) ||                         \
                    (std::string_view(symbol) == #name && firstSymbolKept(symbol)), \
                "symbol of " #name);                                                \
  static_assert(sameAbi(Params<__VA_ARGS__>{}, decltype(paramsOf(&::name)){}),      \
                "parameters of " #name);
KS_GPU_DRIVER_FUNCTIONS(KS_CHECK_ENTRY)

}  // namespace
}  // namespace ks::gpu
