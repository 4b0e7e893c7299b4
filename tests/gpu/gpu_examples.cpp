// gpu_examples: runs the example kernels (examples/*.rs, compiled to PTX by make_ptx.sh) on a
// real GPU and checks each result against a CPU reference.
//
// It proves that what kernelscope shows is code that loads and computes right: the PTX is
// loaded as text with cuModuleLoadData (the driver JIT-compiles it for the GPU at hand) and
// launched through the CUDA driver API. The driver library is opened at run time (dlopen of
// libcuda.so.1), so the program builds without a GPU or driver and needs nothing at run time
// but the PTX files and libcuda. Without a driver or a device it skips, says why, and exits 77
// (CTest's SKIP_RETURN_CODE).
//
// Usage: gpu_examples PTX_FILE_OR_DIR...   (a directory means every *.ptx in it)
// Prints one line per kernel, then "N passed, N failed[, N skipped]".
// Exit status: 0 all ran kernels passed, 1 a kernel failed, 2 bad usage or unreadable
// input, 77 nothing could run (no driver / no GPU).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "GpuTestSupport.h"

namespace {

using namespace ks::gpu;

// ---------------------------------------------------------------------------------------------
// Device memory and launches.

/// Device memory holding `count` values of T, freed on scope exit.
template <class T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t count) : count_(count) {
    check(driver().cuMemAlloc(&ptr_, bytes()), "cuMemAlloc");
  }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { upload(host); }
  ~DeviceBuffer() {
    if (ptr_) driver().cuMemFree(ptr_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void upload(const std::vector<T>& host) {
    check(driver().cuMemcpyHtoD(ptr_, host.data(), bytes()), "cuMemcpyHtoD");
  }
  std::vector<T> download() const {
    std::vector<T> host(count_);
    check(driver().cuMemcpyDtoH(host.data(), ptr_, bytes()), "cuMemcpyDtoH");
    return host;
  }
  void fillBits(uint32_t bits) {
    static_assert(sizeof(T) == 4);
    check(driver().cuMemsetD32(ptr_, bits, count_), "cuMemsetD32");
  }
  CUdeviceptr ptr() const { return ptr_; }

 private:
  size_t bytes() const { return count_ * sizeof(T); }
  CUdeviceptr ptr_ = 0;
  size_t count_;
};

/// A kernel argument as the bytes cuLaunchKernel copies.
struct Arg {
  template <class T>
  Arg(T value) : size(sizeof(T)) {  // NOLINT(google-explicit-constructor): reads as a list
    static_assert(sizeof(T) <= sizeof(bytes));
    std::memcpy(bytes.data(), &value, sizeof(T));
  }
  std::array<unsigned char, 8> bytes{};
  size_t size;
};

struct Dim {
  unsigned x = 1, y = 1, z = 1;
};

/// A loaded kernel: launches it synchronously after checking the arguments against the PTX.
struct Kernel {
  CUfunction function;
  Entry entry;

  void launch(Dim grid, Dim block, std::vector<Arg> args) const {
    if (args.size() != entry.paramSizes.size())
      throw std::runtime_error("the PTX kernel takes " + std::to_string(entry.paramSizes.size()) +
                               " parameters, the test passes " + std::to_string(args.size()));
    std::vector<void*> params;
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i].size != entry.paramSizes[i])
        throw std::runtime_error("parameter " + std::to_string(i) + " is " +
                                 std::to_string(entry.paramSizes[i]) + " bytes in the PTX, " +
                                 std::to_string(args[i].size) + " in the test");
      params.push_back(args[i].bytes.data());
    }
    check(driver().cuLaunchKernel(function, grid.x, grid.y, grid.z, block.x, block.y, block.z, 0,
                                  nullptr, params.data(), nullptr),
          "cuLaunchKernel");
    check(driver().cuCtxSynchronize(), "kernel execution");
  }
};

// ---------------------------------------------------------------------------------------------
// The checks, one per example kernel.

std::vector<float> randomFloats(size_t n, unsigned seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(gen);
  return v;
}

unsigned blocksFor(size_t n, unsigned perBlock) {
  return static_cast<unsigned>((n + perBlock - 1) / perBlock);
}

/// The outcome of one kernel's check: what was run and how close it came, or what went wrong.
struct Result {
  bool ok;
  std::string detail;
};

/// Compares `got` with `want`, element i within `tolerance(i)`. On a mismatch, says how many
/// elements differ and shows the worst.
Result compare(const std::vector<float>& got, const std::vector<double>& want,
               const std::function<double(size_t)>& tolerance, const std::string& what) {
  size_t bad = 0, worst = 0;
  double maxErr = 0, worstExcess = -INFINITY;
  for (size_t i = 0; i < want.size(); ++i) {
    double err = std::fabs(static_cast<double>(got[i]) - want[i]);
    if (std::isnan(err)) err = INFINITY;
    maxErr = std::max(maxErr, err);
    const double excess = err - tolerance(i);
    if (excess > 0) ++bad;
    if (excess > worstExcess) worstExcess = excess, worst = i;
  }
  std::ostringstream out;
  out << what << ", max |err| " << maxErr;
  if (bad) {
    out << ": " << bad << " of " << want.size() << " out of tolerance, [" << worst
        << "] = " << got[worst] << ", want " << want[worst];
  }
  return {bad == 0, out.str()};
}

/// One correctly rounded float operation's error bound on a result of size `magnitude`.
double ulp(double magnitude) { return std::fabs(magnitude) * 0x1p-23; }

constexpr size_t kN = size_t{1} << 20;  // elements of the vector kernels
constexpr uint32_t kNaN = 0x7fc00000;   // output fill: an element the kernel misses fails

Result checkVectorAdd(const Kernel& k) {
  const auto a = randomFloats(kN, 1), b = randomFloats(kN, 2);
  DeviceBuffer<float> da(a), db(b), dc(kN);
  dc.fillBits(kNaN);
  k.launch({blocksFor(kN, 256)}, {256}, {da.ptr(), db.ptr(), dc.ptr(), uint32_t(kN)});
  std::vector<double> want(kN);
  for (size_t i = 0; i < kN; ++i) want[i] = double(a[i]) + b[i];
  auto tolerance = [&](size_t i) { return ulp(want[i]); };  // one rounding
  return compare(dc.download(), want, tolerance, "n = 2^20");
}

Result checkElementwiseMul(const Kernel& k) {
  const auto a = randomFloats(kN, 3), b = randomFloats(kN, 4);
  DeviceBuffer<float> da(a), db(b), dc(kN);
  dc.fillBits(kNaN);
  // A quarter as many threads as elements: the grid-stride loop goes round four times.
  k.launch({blocksFor(kN / 4, 256)}, {256}, {da.ptr(), db.ptr(), dc.ptr(), uint64_t(kN)});
  std::vector<double> want(kN);
  for (size_t i = 0; i < kN; ++i) want[i] = double(a[i]) * b[i];
  auto tolerance = [&](size_t i) { return ulp(want[i]); };  // one rounding
  return compare(dc.download(), want, tolerance, "n = 2^20, 4 per thread");
}

Result checkSaxpy(const Kernel& k) {
  const float alpha = 2.5f;
  const auto x = randomFloats(kN, 5), y = randomFloats(kN, 6);
  DeviceBuffer<float> dx(x), dy(y);
  k.launch({blocksFor(kN, 256)}, {256}, {uint32_t(kN), alpha, dx.ptr(), dy.ptr()});
  std::vector<double> want(kN);
  for (size_t i = 0; i < kN; ++i) want[i] = double(alpha) * x[i] + y[i];
  // A multiply and an add (or one fma): two roundings, relative to the larger term.
  auto tolerance = [&](size_t i) {
    return 2 * ulp(std::fabs(double(alpha) * x[i]) + std::fabs(y[i]));
  };
  return compare(dy.download(), want, tolerance, "n = 2^20");
}

Result checkReduceSum(const Kernel& k) {
  const size_t n = kN + 12345;  // not a multiple of the block size
  const auto in = randomFloats(n, 7, 0.0f, 1.0f);
  DeviceBuffer<float> din(in), dout(1);
  dout.fillBits(0);             // 0.0f: the kernel adds to it
  const unsigned blocks = 120;  // about 34 elements per thread before the tree
  k.launch({blocks}, {256}, {din.ptr(), dout.ptr(), uint32_t(n)});
  double want = 0;
  for (float v : in) want += v;
  // The float sum rounds in another order than the double reference. The largest errors
  // come from the `blocks` atomic adds into a total near n/2, at most half an ulp each;
  // allow 2 * blocks ulps. (A block left out would be off by about 1/blocks of the sum.)
  auto tolerance = [&](size_t) { return 2 * blocks * ulp(want); };
  std::ostringstream what;
  what << "n = 2^20 + 12345, " << blocks << " blocks, sum " << want;
  return compare(dout.download(), {want}, tolerance, what.str());
}

/// Multiplies an m x kk by a kk x n matrix on the GPU with 16 x 16 blocks and checks C.
Result checkMatmul(const Kernel& k, size_t m, size_t n, size_t kk) {
  const auto a = randomFloats(m * kk, 8), b = randomFloats(kk * n, 9);
  DeviceBuffer<float> da(a), db(b), dc(m * n);
  dc.fillBits(kNaN);
  k.launch({blocksFor(n, 16), blocksFor(m, 16)}, {16, 16},
           {da.ptr(), db.ptr(), dc.ptr(), uint32_t(m), uint32_t(n), uint32_t(kk)});
  std::vector<double> want(m * n), absSum(m * n);
  for (size_t r = 0; r < m; ++r) {
    for (size_t c = 0; c < n; ++c) {
      double s = 0, sa = 0;
      for (size_t e = 0; e < kk; ++e) {
        const double p = double(a[r * kk + e]) * b[e * n + c];
        s += p;
        sa += std::fabs(p);
      }
      want[r * n + c] = s;
      absSum[r * n + c] = sa;
    }
  }
  // The classic bound for a float dot product of length kk, summed in any order:
  // |err| <= kk * 2^-24 * sum |a*b| (to first order). A term left out is far above it.
  auto tolerance = [&](size_t i) { return double(kk) * 0x1p-24 * absSum[i]; };
  std::ostringstream what;
  what << m << "x" << kk << " * " << kk << "x" << n;
  return compare(dc.download(), want, tolerance, what.str());
}

Result checkMatmulShapes(const Kernel& k) {
  Result square = checkMatmul(k, 512, 512, 512);
  if (!square.ok) return square;
  // Sizes that are not multiples of the 16 x 16 tile exercise the edges.
  Result ragged = checkMatmul(k, 333, 250, 77);
  return {ragged.ok, square.detail + "; " + ragged.detail};
}

using Check = std::function<Result(const Kernel&)>;

/// The CPU-checked run of each example kernel, by kernel name.
const std::map<std::string, Check>& checks() {
  static const std::map<std::string, Check> table = {
      {"vector_add", checkVectorAdd},
      {"elementwise_mul", checkElementwiseMul},
      {"saxpy", checkSaxpy},
      {"reduce_sum", checkReduceSum},
      {"matmul_naive", checkMatmulShapes},
      {"matmul_tiled", checkMatmulShapes},
  };
  return table;
}

// ---------------------------------------------------------------------------------------------

int skipAll(size_t kernels, const std::string& why) {
  std::printf("0 passed, 0 failed, %zu skipped: %s\n", kernels, why.c_str());
  return kExitSkipped;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s PTX_FILE_OR_DIR...\n", argv[0]);
    return kExitUsage;
  }
  std::vector<PtxFile> files;
  if (!readPtxInputs("gpu_examples", {argv + 1, argv + argc}, files)) return kExitUsage;
  size_t kernels = 0;
  for (const auto& f : files) kernels += f.entries.size();

  // A machine without a driver or a GPU skips everything and says why.
  if (std::string why = findDevice(); !why.empty()) return skipAll(kernels, why);

  int passed = 0, failed = 0, skipped = 0;
  Device device;
  try {
    device = openDevice();
    std::printf("%s\n", describe(device).c_str());
  } catch (const std::exception& e) {
    std::printf("0 passed, %zu failed: %s\n", kernels, e.what());
    return kExitFailed;
  }

  auto report = [](const char* status, const std::string& kernel, const std::string& detail) {
    std::printf("%-4s  %-16s %s\n", status, kernel.c_str(), detail.c_str());
    std::fflush(stdout);
  };
  for (const auto& f : files) {
    CUmodule module = nullptr;
    try {
      module = loadModule(f.text);
    } catch (const std::exception& e) {
      for (const auto& entry : f.entries)
        report("FAIL", entry.name, f.path.string() + ": " + e.what());
      failed += static_cast<int>(f.entries.size());
      continue;
    }
    for (const auto& entry : f.entries) {
      auto it = checks().find(entry.name);
      if (it == checks().end()) {
        report("skip", entry.name, "no CPU reference for this kernel");
        ++skipped;
        continue;
      }
      try {
        Kernel k{nullptr, entry};
        check(driver().cuModuleGetFunction(&k.function, module, entry.name.c_str()),
              "cuModuleGetFunction");
        const Result result = it->second(k);
        report(result.ok ? "ok" : "FAIL", entry.name, result.detail);
        (result.ok ? passed : failed)++;
      } catch (const std::exception& e) {
        report("FAIL", entry.name, e.what());
        ++failed;
      }
    }
    driver().cuModuleUnload(module);
  }
  driver().cuDevicePrimaryCtxRelease(device.device);

  std::printf("%d passed, %d failed", passed, failed);
  if (skipped) std::printf(", %d skipped", skipped);
  std::printf("\n");
  return failed ? kExitFailed : 0;
}
