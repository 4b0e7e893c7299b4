// Tiled matrix multiply with 16x16 tiles in shared memory (the C++ twin of examples/matmul_tiled.rs).
#include <cstddef>

constexpr size_t TILE = 16;

extern "C" __global__ void matmul_tiled(const float* a, const float* b, float* c, unsigned int m, unsigned int n, // kernelscope: m = 1024; n = 1024; k = 1024; a = f32[m * k] uniform(-1, 1, seed = 1); b = f32[k * n] uniform(-1, 1, seed = 2); c = f32[m * n] zeros; grid = [ceil(n / 16), ceil(m / 16)]; block = [16, 16]; flops = 2 * m * n * k
                                        unsigned int k) {
    __shared__ float a_tile[TILE * TILE];
    __shared__ float b_tile[TILE * TILE];

    size_t tx = threadIdx.x, ty = threadIdx.y;
    size_t row = blockIdx.y * TILE + ty;
    size_t col = blockIdx.x * TILE + tx;

    float sum = 0.0f;
    for (size_t t = 0; t < (k + TILE - 1) / TILE; ++t) {
        // Copy one element of each tile; outside the matrices, copy zero.
        size_t a_col = t * TILE + tx;
        size_t b_row = t * TILE + ty;
        a_tile[ty * TILE + tx] = row < m && a_col < k ? a[row * k + a_col] : 0.0f;
        b_tile[ty * TILE + tx] = b_row < k && col < n ? b[b_row * n + col] : 0.0f;
        __syncthreads();  // both tiles are complete

        for (size_t e = 0; e < TILE; ++e) {
            sum += a_tile[ty * TILE + e] * b_tile[e * TILE + tx];
        }
        __syncthreads();  // everyone is done with the tiles before they are overwritten
    }

    if (row < m && col < n) {
        c[row * n + col] = sum;
    }
}
