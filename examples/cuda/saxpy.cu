// SAXPY: y[i] = a * x[i] + y[i], one thread per element (the C++ twin of examples/saxpy.rs).
extern "C" __global__ void saxpy(unsigned int n, float a, const float* x, float* y) { // kernelscope: n = 1 << 24; a = 2.0; x = f32[n] uniform(-1, 1, seed = 1); y = f32[n] uniform(-1, 1, seed = 2); grid = ceil(n / 256); block = 256; bytes = 12 * n; flops = 2 * n
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = a * x[i] + y[i];
    }
}
