// Elementwise multiply: out[i] = a[i] * b[i], grid-stride loop (the C++ twin of
// examples/elementwise_mul.rs, with the same inlined helper).
#include <cstddef>

__device__ __forceinline__ void grid_stride(size_t* start, size_t* stride) {
    *start = blockIdx.x * blockDim.x + threadIdx.x;
    *stride = gridDim.x * blockDim.x;
}

extern "C" __global__ void elementwise_mul(const float* a, const float* b, float* out, size_t n) { // kernelscope: n = 1 << 24; a = f32[n] uniform(-1, 1, seed = 1); b = f32[n] uniform(-1, 1, seed = 2); out = f32[n] zeros; grid = 1024; block = 256; flops = n
    size_t start, stride;
    grid_stride(&start, &stride);
    for (size_t i = start; i < n; i += stride) {
        out[i] = a[i] * b[i];
    }
}
