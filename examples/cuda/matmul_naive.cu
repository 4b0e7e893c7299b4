// Naive matrix multiply, one thread per output element (the C++ twin of examples/matmul_naive.rs).
#include <cstddef>

extern "C" __global__ void matmul_naive(const float* a, const float* b, float* c, unsigned int m, unsigned int n, // kernelscope: m = 1024; n = 1024; k = 1024; a = f32[m * k] uniform(-1, 1, seed = 1); b = f32[k * n] uniform(-1, 1, seed = 2); c = f32[m * n] zeros; grid = [ceil(n / 16), ceil(m / 16)]; block = [16, 16]; flops = 2 * m * n * k
                                        unsigned int k) {
    size_t row = blockIdx.y * blockDim.y + threadIdx.y;
    size_t col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= m || col >= n) {
        return;
    }

    float sum = 0.0f;
    for (size_t e = 0; e < k; ++e) {
        sum += a[row * k + e] * b[e * n + col];
    }
    c[row * n + col] = sum;
}
