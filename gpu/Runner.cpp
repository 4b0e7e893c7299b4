#include "Runner.h"

#include <array>
#include <chrono>
#include <cmath>
#include <cstring>

#include "Driver.h"

namespace ks::gpu {

namespace {

template <class T>
void fillWith(std::string& bytes, uint64_t count, auto valueAt) {
  bytes.resize(count * sizeof(T));
  auto* p = reinterpret_cast<T*>(bytes.data());
  for (uint64_t i = 0; i < count; ++i) p[i] = static_cast<T>(valueAt(i));
}

template <class F>
void dispatch(ElemType t, F&& f) {
  switch (t) {
    case ElemType::I8:
      return f(int8_t());
    case ElemType::I16:
      return f(int16_t());
    case ElemType::I32:
      return f(int32_t());
    case ElemType::I64:
      return f(int64_t());
    case ElemType::U8:
      return f(uint8_t());
    case ElemType::U16:
      return f(uint16_t());
    case ElemType::U32:
      return f(uint32_t());
    case ElemType::U64:
      return f(uint64_t());
    case ElemType::F32:
      return f(float());
    case ElemType::F64:
      return f(double());
  }
}

/// Device memory freed on scope exit.
struct DeviceMemory {
  CUdeviceptr ptr = 0;
  ~DeviceMemory() {
    if (ptr) driver().cuMemFree(ptr);
  }
};

struct Events {
  CUevent start = nullptr, stop = nullptr;
  ~Events() {
    if (start) driver().cuEventDestroy(start);
    if (stop) driver().cuEventDestroy(stop);
  }
};

std::string dims(const std::array<uint32_t, 3>& d) {
  std::string s = "(";
  for (size_t i = 0; i < 3; ++i) s.append(i ? ", " : "").append(std::to_string(d[i]));
  return s + ")";
}

RunResult failure(std::string kind, std::string message) {
  RunResult r;
  r.errorKind = std::move(kind);
  r.error = std::move(message);
  return r;
}

}  // namespace

double uniformAt(uint64_t seed, uint64_t index) {
  uint64_t z = seed * 0x9E3779B97F4A7C15ull + index + 1;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

std::string fillBuffer(const ArgPlan& arg, const std::string& fileData) {
  if (arg.fill.kind == Fill::Kind::File) return fileData;
  std::string bytes;
  dispatch(arg.elem, [&](auto zero) {
    using T = decltype(zero);
    switch (arg.fill.kind) {
      case Fill::Kind::Zeros:
        fillWith<T>(bytes, arg.count, [](uint64_t) { return 0; });
        break;
      case Fill::Kind::Ones:
        fillWith<T>(bytes, arg.count, [](uint64_t) { return 1; });
        break;
      case Fill::Kind::Constant:
        fillWith<T>(bytes, arg.count, [&](uint64_t) { return arg.fill.value; });
        break;
      case Fill::Kind::Iota:
        fillWith<T>(bytes, arg.count, [](uint64_t i) { return static_cast<double>(i); });
        break;
      case Fill::Kind::Uniform: {
        double lo = arg.fill.lo, span = arg.fill.hi - arg.fill.lo;
        bool integral = !std::is_floating_point_v<T>;
        fillWith<T>(bytes, arg.count, [&](uint64_t i) {
          double v = lo + span * uniformAt(arg.fill.seed, i);
          return integral ? std::floor(v) : v;
        });
        break;
      }
      case Fill::Kind::File:
        break;
    }
  });
  return bytes;
}

void summarize(const std::string& bytes, ElemType elem, BufferResult& out) {
  dispatch(elem, [&](auto zero) {
    using T = decltype(zero);
    const auto* p = reinterpret_cast<const T*>(bytes.data());
    uint64_t n = bytes.size() / sizeof(T);
    double sum = 0;
    for (uint64_t i = 0; i < n; ++i) sum += static_cast<double>(p[i]);
    out.checksum = sum;
    out.first.clear();
    for (uint64_t i = 0; i < n && i < 8; ++i) out.first.push_back(static_cast<double>(p[i]));
  });
}

RunResult execute(const ExecRequest& request) {
  auto started = std::chrono::steady_clock::now();
  if (std::string why = loadDriver(); !why.empty())
    return failure("no-driver", why + "; " + kNoDriverHint);
  const Driver& cu = driver();
  if (CUresult r = cu.cuInit(0); r != kCudaSuccess)
    return failure("no-device",
                   "the CUDA driver did not start: " + errorText(r) + "; " + kNoDriverHint);
  int count = 0;
  if (cu.cuDeviceGetCount(&count) != kCudaSuccess || count == 0)
    return failure("no-device", std::string("no CUDA device on this machine; ") + kNoDriverHint);
  const LaunchPlan& plan = request.plan;
  const std::string launch =
      "kernel " + plan.kernel + " (grid " + dims(plan.grid) + ", block " + dims(plan.block) +
      (plan.sharedBytes ? ", " + std::to_string(plan.sharedBytes) + " B shared" : "") + ")";
  RunResult result;
  CUcontext context = nullptr;
  CUdevice device = 0;
  CUmodule module = nullptr;
  try {
    DeviceInfo& d = result.device;
    check(cu.cuDeviceGet(&device, 0), "cuDeviceGet");
    std::array<char, 256> name{};
    check(cu.cuDeviceGetName(name.data(), name.size(), device), "cuDeviceGetName");
    d.name = name.data();
    auto attr = [&](int a) {
      int v = 0;
      cu.cuDeviceGetAttribute(&v, a, device);
      return v;
    };
    d.major = attr(kAttrComputeCapabilityMajor);
    d.minor = attr(kAttrComputeCapabilityMinor);
    d.smCount = attr(kAttrMultiprocessorCount);
    d.clockKHz = attr(kAttrClockRateKHz);
    d.memoryClockKHz = attr(kAttrMemoryClockRateKHz);
    d.memoryBusWidthBits = attr(kAttrMemoryBusWidthBits);
    cu.cuDriverGetVersion(&d.driverVersion);
    check(cu.cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
    check(cu.cuCtxSetCurrent(context), "cuCtxSetCurrent");
  } catch (const DriverError& e) {
    RunResult f = failure("no-device", e.what());
    f.device = result.device;
    return f;
  }
  const DeviceInfo device0 = result.device;
  auto finish = [&](RunResult r) {
    r.device = device0;
    if (module) cu.cuModuleUnload(module);
    if (context) cu.cuDevicePrimaryCtxRelease(device);
    return r;
  };
  if (CUresult r = cu.cuModuleLoadData(&module, request.cubin.data()); r != kCudaSuccess) {
    module = nullptr;
    std::string hint =
        r == 209 || r == 200 ? ": the cubin was built for another GPU (choose its --arch)" : "";
    return finish(failure("load", "cannot load the cubin: " + errorText(r) + hint));
  }
  CUfunction function = nullptr;
  if (cu.cuModuleGetFunction(&function, module, plan.kernel.c_str()) != kCudaSuccess)
    return finish(failure("load", "the cubin has no kernel named '" + plan.kernel + "'"));
  if (plan.sharedBytes > 48 * 1024)
    if (CUresult r = cu.cuFuncSetAttribute(function, kFuncAttrMaxDynamicSharedSizeBytes,
                                           int(plan.sharedBytes));
        r != kCudaSuccess)
      return finish(
          failure("launch",
                  launch + ": " + std::to_string(plan.sharedBytes) +
                      " B of dynamic shared memory is more than this GPU allows: " + errorText(r)));

  // Buffers, filled; then the parameter pointers.
  std::vector<DeviceMemory> memory(plan.args.size());
  std::vector<std::array<uint8_t, 8>> scalars(plan.args.size());
  std::vector<void*> params;
  try {
    for (size_t i = 0; i < plan.args.size(); ++i) {
      const ArgPlan& a = plan.args[i];
      if (!a.buffer) {
        std::memcpy(scalars[i].data(), a.scalar.data(), std::min<size_t>(a.scalar.size(), 8));
        params.push_back(scalars[i].data());
        continue;
      }
      if (CUresult r = cu.cuMemAlloc(&memory[i].ptr, a.byteSize()); r != kCudaSuccess) {
        memory[i].ptr = 0;
        return finish(failure("memory", "cannot allocate " + std::to_string(a.byteSize()) +
                                            " bytes for '" + a.name + "': " + errorText(r)));
      }
      if (a.fill.kind == Fill::Kind::Zeros) {
        check(cu.cuMemsetD8(memory[i].ptr, 0, a.byteSize()), "cuMemsetD8");
      } else {
        std::string host =
            fillBuffer(a, i < request.argData.size() ? request.argData[i] : std::string());
        check(cu.cuMemcpyHtoD(memory[i].ptr, host.data(), host.size()), "cuMemcpyHtoD");
      }
      std::memcpy(scalars[i].data(), &memory[i].ptr, sizeof(CUdeviceptr));
      params.push_back(scalars[i].data());
    }
  } catch (const DriverError& e) {
    return finish(failure("memory", e.what()));
  }

  auto launchOnce = [&]() -> CUresult {
    return cu.cuLaunchKernel(function, plan.grid[0], plan.grid[1], plan.grid[2], plan.block[0],
                             plan.block[1], plan.block[2], plan.sharedBytes, nullptr, params.data(),
                             nullptr);
  };
  auto faulted = [&](CUresult r, const char* when) {
    bool launchError = r == 701 /* LAUNCH_OUT_OF_RESOURCES */ || r == 1 /* INVALID_VALUE */;
    return finish(failure(
        launchError ? "launch" : "fault",
        launch + (launchError ? " could not start " : " failed ") + when + ": " + errorText(r)));
  };
  if (CUresult r = launchOnce(); r != kCudaSuccess) return faulted(r, "at launch");
  if (CUresult r = cu.cuCtxSynchronize(); r != kCudaSuccess) return faulted(r, "while running");
  result.execMs = 0;
  try {
    for (size_t i = 0; i < plan.args.size(); ++i) {
      const ArgPlan& a = plan.args[i];
      if (!a.buffer) continue;
      std::string host(a.byteSize(), '\0');
      check(cu.cuMemcpyDtoH(host.data(), memory[i].ptr, host.size()), "cuMemcpyDtoH");
      BufferResult b;
      b.name = a.name;
      b.elem = a.elem;
      b.count = a.count;
      b.output = a.output;
      summarize(host, a.elem, b);
      if (request.dump) {
        b.blob = static_cast<int>(result.blobs.size());
        result.blobs.push_back(std::move(host));
      }
      result.buffers.push_back(std::move(b));
    }
    if (request.mode != ExecRequest::Mode::LaunchOnce) {
      for (int i = 1; i < request.warmup; ++i)
        if (CUresult r = launchOnce(); r != kCudaSuccess) return faulted(r, "at launch");
      Events ev;
      check(cu.cuEventCreate(&ev.start, 0), "cuEventCreate");
      check(cu.cuEventCreate(&ev.stop, 0), "cuEventCreate");
      for (int i = 0; i < request.runs; ++i) {
        check(cu.cuEventRecord(ev.start, nullptr), "cuEventRecord");
        if (CUresult r = launchOnce(); r != kCudaSuccess) return faulted(r, "at launch");
        check(cu.cuEventRecord(ev.stop, nullptr), "cuEventRecord");
        if (CUresult r = cu.cuEventSynchronize(ev.stop); r != kCudaSuccess)
          return faulted(r, "while running");
        float ms = 0;
        check(cu.cuEventElapsedTime(&ms, ev.start, ev.stop), "cuEventElapsedTime");
        result.timesMs.push_back(ms);
      }
    }
  } catch (const DriverError& e) {
    return finish(failure(e.code == 700 || e.code == 716 || e.code == 719 ? "fault" : "launch",
                          launch + ": " + e.what()));
  }
  result.ok = true;
  result.execMs =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  memory.clear();
  return finish(std::move(result));
}

}  // namespace ks::gpu
