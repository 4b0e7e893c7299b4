// Vector add: c[i] = a[i] + b[i], one thread per element (the C++ twin of examples/vector_add.rs).
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, unsigned int n) { // kernelscope: n = 1 << 24; a = f32[n] uniform(-1, 1, seed = 1); b = f32[n] uniform(-1, 1, seed = 2); c = f32[n] zeros; grid = ceil(n / 256); block = 256; flops = n
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}
