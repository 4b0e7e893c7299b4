// Block reduction in shared memory, one atomic per block (the C++ twin of examples/reduce_sum.rs).
constexpr unsigned int BLOCK = 256;

extern "C" __global__ void reduce_sum(const float* input, float* out, unsigned int n) { // kernelscope: n = 1 << 24; input = f32[n] uniform(0, 1, seed = 1); out = f32[1] zeros; grid = min(ceil(n / 256), 1024); block = 256; bytes = 4 * n; flops = n
    __shared__ float partial[BLOCK];
    unsigned int tid = threadIdx.x;

    size_t i = static_cast<size_t>(blockIdx.x) * BLOCK + tid;
    size_t stride = static_cast<size_t>(gridDim.x) * BLOCK;
    float sum = 0.0f;
    while (i < n) {
        sum += input[i];
        i += stride;
    }
    partial[tid] = sum;
    __syncthreads();

    for (unsigned int active = BLOCK / 2; active > 0; active /= 2) {
        if (tid < active) {
            partial[tid] += partial[tid + active];
        }
        __syncthreads();
    }

    if (tid == 0) {
        atomicAdd(out, partial[0]);
    }
}
