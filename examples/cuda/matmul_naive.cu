// Naive matrix multiply, one thread per output element (the C++ twin of examples/matmul_naive.rs).
#include <cstddef>

extern "C" __global__ void matmul_naive(const float* a, const float* b, float* c, unsigned int m, unsigned int n,
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
