// launch_bench: the reference for kernelscope's run timings. A minimal hand-written CUDA
// driver-API program that times the same launch `kernelscope run` makes: it loads a cubin,
// fills the buffers with the same values, launches `warmup` times, then times `runs` launches
// with events, and prints the median kernel time and its own wall time (cubin read -> results).
//
// Usage: launch_bench CUBIN saxpy N RUNS          (saxpy(n, a = 2, x, y), block 256)
//        launch_bench CUBIN matmul KERNEL N RUNS  (KERNEL(a, b, c, n, n, n), 16 x 16 blocks)
// Needs cuda.h to build; run_bench.py builds and runs it on the GPU machine.
#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#define CHECK(call)                                                         \
  do {                                                                      \
    CUresult r_ = (call);                                                   \
    if (r_ != CUDA_SUCCESS) {                                               \
      std::fprintf(stderr, "%s failed: %d\n", #call, static_cast<int>(r_)); \
      std::exit(1);                                                         \
    }                                                                       \
  } while (0)

// The same generator as kernelscope's uniform(lo, hi, seed) (pipeline/gpu-exec/Runner.cpp).
static double uniformAt(uint64_t seed, uint64_t index) {
  uint64_t z = seed * 0x9E3779B97F4A7C15ull + index + 1;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

static CUdeviceptr uniformBuffer(size_t n, uint64_t seed) {
  std::vector<float> host(n);
  for (size_t i = 0; i < n; ++i) host[i] = static_cast<float>(-1 + 2 * uniformAt(seed, i));
  CUdeviceptr d;
  CHECK(cuMemAlloc(&d, n * 4));
  CHECK(cuMemcpyHtoD(d, host.data(), n * 4));
  return d;
}

int main(int argc, char** argv) {
  auto start = std::chrono::steady_clock::now();
  if (argc < 5) {
    std::fprintf(stderr, "usage: launch_bench CUBIN saxpy N RUNS | CUBIN matmul KERNEL N RUNS\n");
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::string cubin((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string mode = argv[2];
  bool matmul = mode == "matmul";
  std::string kernel = matmul ? argv[3] : "saxpy";
  unsigned n = static_cast<unsigned>(std::atoll(argv[matmul ? 4 : 3]));
  int runs = std::atoi(argv[matmul ? 5 : 4]);

  CHECK(cuInit(0));
  CUdevice dev;
  CHECK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK(cuCtxSetCurrent(ctx));
  CUmodule module;
  CHECK(cuModuleLoadData(&module, cubin.data()));
  CUfunction f;
  CHECK(cuModuleGetFunction(&f, module, kernel.c_str()));

  std::vector<CUdeviceptr> buffers;
  std::vector<void*> params;
  float a = 2.0f;
  unsigned grid[2], block[2];
  CUdeviceptr x, y, c;
  if (!matmul) {
    x = uniformBuffer(n, 1);
    y = uniformBuffer(n, 2);
    buffers = {x, y};
    params = {&n, &a, &x, &y};
    grid[0] = (n + 255) / 256, grid[1] = 1, block[0] = 256, block[1] = 1;
  } else {
    x = uniformBuffer(size_t(n) * n, 1);
    y = uniformBuffer(size_t(n) * n, 2);
    CHECK(cuMemAlloc(&c, size_t(n) * n * 4));
    CHECK(cuMemsetD8(c, 0, size_t(n) * n * 4));
    buffers = {x, y, c};
    params = {&x, &y, &c, &n, &n, &n};
    grid[0] = grid[1] = (n + 15) / 16, block[0] = block[1] = 16;
  }
  auto launch = [&] {
    CHECK(cuLaunchKernel(f, grid[0], grid[1], 1, block[0], block[1], 1, 0, nullptr, params.data(),
                         nullptr));
  };
  launch();  // the first launch's outputs are what kernelscope reports: read them back the same way
  CHECK(cuCtxSynchronize());
  for (CUdeviceptr b : buffers) {
    size_t bytes = 0;
    CHECK(cuMemGetAddressRange(nullptr, &bytes, b));
    std::vector<char> host(bytes);
    CHECK(cuMemcpyDtoH(host.data(), b, bytes));
  }
  launch();  // second warm-up
  CUevent e0, e1;
  CHECK(cuEventCreate(&e0, 0));
  CHECK(cuEventCreate(&e1, 0));
  std::vector<float> times;
  for (int i = 0; i < runs; ++i) {
    CHECK(cuEventRecord(e0, nullptr));
    launch();
    CHECK(cuEventRecord(e1, nullptr));
    CHECK(cuEventSynchronize(e1));
    float ms;
    CHECK(cuEventElapsedTime(&ms, e0, e1));
    times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  double median = runs % 2 ? times[runs / 2] : (times[runs / 2 - 1] + times[runs / 2]) / 2;
  for (CUdeviceptr b : buffers) cuMemFree(b);
  double wall =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::printf("{\"kernel\": \"%s\", \"medianMs\": %.6f, \"minMs\": %.6f, \"wallMs\": %.3f}\n",
              kernel.c_str(), median, times.front(), wall);
  return 0;
}
