#include "Runner.h"

#include <array>
#include <chrono>
#include <cmath>
#include <cstring>
#include <optional>

#include "Cubin.h"
#include "Driver.h"

namespace ks::gpu {

std::optional<RunResult> driverMissing() {
  if (std::string why = loadDriver(); !why.empty())
    return RunResult::failure("no-driver", why + "; " + kNoDriverHint);
  return std::nullopt;
}

namespace {

// The 2-byte float types and bool, as the values fillWith and summarize convert from and to.
struct Half {
  uint16_t bits;
  Half(double v) : bits(halfFromDouble(v)) {}  // NOLINT(google-explicit-constructor)
  explicit operator double() const { return halfToDouble(bits); }
};
struct BFloat16 {
  uint16_t bits;
  BFloat16(double v) : bits(bfloat16FromDouble(v)) {}  // NOLINT(google-explicit-constructor)
  explicit operator double() const { return bfloat16ToDouble(bits); }
};
struct Bool {
  uint8_t value;
  Bool(double v) : value(v != 0) {}  // NOLINT(google-explicit-constructor)
  explicit operator double() const { return value; }
};

template <class T>
void fillWith(std::string& bytes, uint64_t count, auto valueAt) {
  bytes.resize(count * sizeof(T));
  for (uint64_t i = 0; i < count; ++i) {
    T v = T(static_cast<double>(valueAt(i)));
    std::memcpy(bytes.data() + i * sizeof(T), &v, sizeof(T));
  }
}

/// Calls `f` with a value of the C++ type of a numeric element type (not Record).
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
    case ElemType::F16:
      return f(Half(0));
    case ElemType::BF16:
      return f(BFloat16(0));
    case ElemType::F32:
      return f(float());
    case ElemType::F64:
      return f(double());
    case ElemType::Bool:
      return f(Bool(0));
    case ElemType::Record:
      return;
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

/// Why the CUDA driver or a device is unavailable on this machine, or nullopt when both are.
std::optional<RunResult> driverUnavailable() {
  if (std::optional<RunResult> missing = driverMissing()) return missing;
  const Driver& cu = driver();
  if (CUresult r = cu.cuInit(0); r != kCudaSuccess)
    return RunResult::failure(
        "no-device", "the CUDA driver did not start: " + errorText(r) + "; " + kNoDriverHint);
  int count = 0;
  if (cu.cuDeviceGetCount(&count) != kCudaSuccess || count == 0)
    return RunResult::failure("no-device",
                              std::string("no CUDA device on this machine; ") + kNoDriverHint);
  return std::nullopt;
}

/// "kernel NAME (grid (x, y, z), block (x, y, z), N B shared)": how failures name the launch.
std::string describeLaunch(const LaunchPlan& plan) {
  return "kernel " + plan.kernel + " (grid " + dims(plan.grid) + ", block " + dims(plan.block) +
         (plan.sharedBytes ? ", " + std::to_string(plan.sharedBytes) + " B shared" : "") + ")";
}

/// Device 0's primary context, made current, and the module loaded into it; both are
/// released when this goes out of scope.
class DeviceContext {
 public:
  explicit DeviceContext(const Driver& cu) : cu_(cu) {}
  ~DeviceContext() {
    if (module_) cu_.cuModuleUnload(module_);
    if (context_) cu_.cuDevicePrimaryCtxRelease(device_);
  }
  DeviceContext(const DeviceContext&) = delete;
  DeviceContext& operator=(const DeviceContext&) = delete;

  /// Reads device 0's name and properties into `info`, then makes its primary context
  /// current. Throws DriverError.
  void open(DeviceInfo& info) {
    check(cu_.cuDeviceGet(&device_, 0), "cuDeviceGet");
    std::array<char, 256> name{};
    check(cu_.cuDeviceGetName(name.data(), name.size(), device_), "cuDeviceGetName");
    info.name = name.data();
    auto attr = [&](int a) {
      int v = 0;
      cu_.cuDeviceGetAttribute(&v, a, device_);
      return v;
    };
    info.major = attr(kAttrComputeCapabilityMajor);
    info.minor = attr(kAttrComputeCapabilityMinor);
    info.smCount = attr(kAttrMultiprocessorCount);
    info.clockKHz = attr(kAttrClockRateKHz);
    info.memoryClockKHz = attr(kAttrMemoryClockRateKHz);
    info.memoryBusWidthBits = attr(kAttrMemoryBusWidthBits);
    cu_.cuDriverGetVersion(&info.driverVersion);
    check(cu_.cuDevicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain");
    check(cu_.cuCtxSetCurrent(context_), "cuCtxSetCurrent");
  }

  /// Loads the cubin and finds the plan's kernel in it, allowing it the dynamic shared
  /// memory the plan asks for; a failure says why in the user's terms.
  std::optional<RunResult> loadKernel(const std::string& cubin, const LaunchPlan& plan,
                                      const std::string& launch, CUfunction& function) {
    if (CUresult r = cu_.cuModuleLoadData(&module_, cubin.data()); r != kCudaSuccess) {
      module_ = nullptr;
      std::string hint =
          r == 209 || r == 200 ? ": the cubin was built for another GPU (choose its --arch)" : "";
      return RunResult::failure("load", "cannot load the cubin: " + errorText(r) + hint);
    }
    if (cu_.cuModuleGetFunction(&function, module_, plan.kernel.c_str()) != kCudaSuccess)
      return RunResult::failure("load", "the cubin has no kernel named '" + plan.kernel + "'");
    if (plan.sharedBytes > 48 * 1024)
      if (CUresult r = cu_.cuFuncSetAttribute(function, kFuncAttrMaxDynamicSharedSizeBytes,
                                              int(plan.sharedBytes));
          r != kCudaSuccess)
        return RunResult::failure(
            "launch",
            launch + ": " + std::to_string(plan.sharedBytes) +
                " B of dynamic shared memory is more than this GPU allows: " + errorText(r));
    return std::nullopt;
  }

 private:
  const Driver& cu_;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  CUmodule module_ = nullptr;
};

/// The kernel's arguments on the device: a buffer per buffer argument, filled as planned,
/// and the parameter array cuLaunchKernel takes (a pointer to each scalar or device pointer).
struct KernelArguments {
  explicit KernelArguments(size_t count) : memory(count), slots(count) {}
  std::vector<DeviceMemory> memory;
  std::vector<std::vector<uint8_t>> slots;  // a parameter's bytes: a pointer, scalar or struct
  std::vector<void*> params;

  /// Allocates and fills the buffers and builds `params`; a failure says which argument.
  std::optional<RunResult> upload(const Driver& cu, const ExecRequest& request) {
    const LaunchPlan& plan = request.plan;
    try {
      for (size_t i = 0; i < plan.args.size(); ++i) {
        const ArgPlan& a = plan.args[i];
        if (!a.buffer) {
          slots[i] = a.scalar;
          if (slots[i].empty()) slots[i].push_back(0);
          params.push_back(slots[i].data());
          continue;
        }
        if (CUresult r = cu.cuMemAlloc(&memory[i].ptr, a.byteSize()); r != kCudaSuccess) {
          memory[i].ptr = 0;
          return RunResult::failure("memory", "cannot allocate " + std::to_string(a.byteSize()) +
                                                  " bytes for '" + a.name + "': " + errorText(r));
        }
        if (a.fill.kind == Fill::Kind::Zeros) {
          check(cu.cuMemsetD8(memory[i].ptr, 0, a.byteSize()), "cuMemsetD8");
        } else {
          std::string host =
              fillBuffer(a, i < request.argData.size() ? request.argData[i] : std::string());
          check(cu.cuMemcpyHtoD(memory[i].ptr, host.data(), host.size()), "cuMemcpyHtoD");
        }
        slots[i].resize(sizeof(CUdeviceptr));
        std::memcpy(slots[i].data(), &memory[i].ptr, sizeof(CUdeviceptr));
        params.push_back(slots[i].data());
      }
    } catch (const DriverError& e) {
      return RunResult::failure("memory", e.what());
    }
    return std::nullopt;
  }
};

/// Launches of one loaded kernel with its arguments, each failure told as the user's
/// launch failing ("launch": it could not start; "fault": it failed while running).
class KernelLauncher {
 public:
  KernelLauncher(const Driver& cu, CUfunction function, const LaunchPlan& plan,
                 std::vector<void*>& params, std::string launch)
      : cu_(cu), function_(function), plan_(plan), params_(params), launch_(std::move(launch)) {}

  CUresult launch() const {
    return cu_.cuLaunchKernel(function_, plan_.grid[0], plan_.grid[1], plan_.grid[2],
                              plan_.block[0], plan_.block[1], plan_.block[2], plan_.sharedBytes,
                              nullptr, params_.data(), nullptr);
  }

  RunResult faulted(CUresult r, const char* when) const {
    bool launchError = r == 701 /* LAUNCH_OUT_OF_RESOURCES */ || r == 1 /* INVALID_VALUE */;
    return RunResult::failure(
        launchError ? "launch" : "fault",
        launch_ + (launchError ? " could not start " : " failed ") + when + ": " + errorText(r));
  }

  /// A driver call that failed after the first launch: a fault when the context is gone.
  RunResult driverFailed(const DriverError& e) const {
    return RunResult::failure(e.code == 700 || e.code == 716 || e.code == 719 ? "fault" : "launch",
                              launch_ + ": " + e.what());
  }

  /// The first launch, run to completion.
  std::optional<RunResult> runOnce() const {
    if (CUresult r = launch(); r != kCudaSuccess) return faulted(r, "at launch");
    if (CUresult r = cu_.cuCtxSynchronize(); r != kCudaSuccess) return faulted(r, "while running");
    return std::nullopt;
  }

  /// The remaining warm-up launches, then `runs` launches each timed between two events.
  /// Throws DriverError.
  std::optional<RunResult> time(int warmup, int runs, std::vector<double>& timesMs) const {
    for (int i = 1; i < warmup; ++i)
      if (CUresult r = launch(); r != kCudaSuccess) return faulted(r, "at launch");
    Events ev;
    check(cu_.cuEventCreate(&ev.start, 0), "cuEventCreate");
    check(cu_.cuEventCreate(&ev.stop, 0), "cuEventCreate");
    for (int i = 0; i < runs; ++i) {
      check(cu_.cuEventRecord(ev.start, nullptr), "cuEventRecord");
      if (CUresult r = launch(); r != kCudaSuccess) return faulted(r, "at launch");
      check(cu_.cuEventRecord(ev.stop, nullptr), "cuEventRecord");
      if (CUresult r = cu_.cuEventSynchronize(ev.stop); r != kCudaSuccess)
        return faulted(r, "while running");
      float ms = 0;
      check(cu_.cuEventElapsedTime(&ms, ev.start, ev.stop), "cuEventElapsedTime");
      timesMs.push_back(ms);
    }
    return std::nullopt;
  }

 private:
  const Driver& cu_;
  CUfunction function_;
  const LaunchPlan& plan_;
  std::vector<void*>& params_;
  std::string launch_;
};

/// Copies every buffer back after the first launch and summarizes it (with its bytes when
/// the request asks for a dump). Throws DriverError.
void readBuffers(const Driver& cu, const ExecRequest& request, const KernelArguments& args,
                 RunResult& result) {
  const LaunchPlan& plan = request.plan;
  for (size_t i = 0; i < plan.args.size(); ++i) {
    const ArgPlan& a = plan.args[i];
    if (!a.buffer) continue;
    std::string host(a.byteSize(), '\0');
    check(cu.cuMemcpyDtoH(host.data(), args.memory[i].ptr, host.size()), "cuMemcpyDtoH");
    BufferResult b;
    b.name = a.name;
    b.elem = a.elem;
    b.typeName = a.typeName;
    b.count = a.count;
    b.output = a.output;
    summarize(host, a.elem, b);
    if (request.dump) {
      b.blob = static_cast<int>(result.blobs.size());
      result.blobs.push_back(std::move(host));
    }
    result.buffers.push_back(std::move(b));
  }
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
  if (arg.fill.kind == Fill::Kind::Pattern) {
    bytes.reserve(arg.byteSize());
    for (uint64_t i = 0; i < arg.count; ++i)
      bytes.append(reinterpret_cast<const char*>(arg.fill.pattern.data()), arg.fill.pattern.size());
    return bytes;
  }
  if (arg.elem == ElemType::Record) return std::string(arg.byteSize(), '\0');
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
        bool integral = !std::is_floating_point_v<T> && !std::is_same_v<T, Half> &&
                        !std::is_same_v<T, BFloat16>;
        fillWith<T>(bytes, arg.count, [&](uint64_t i) {
          double v = lo + span * uniformAt(arg.fill.seed, i);
          return integral ? std::floor(v) : v;
        });
        break;
      }
      case Fill::Kind::File:
      case Fill::Kind::Pattern:
        break;
    }
  });
  return bytes;
}

void summarize(const std::string& bytes, ElemType elem, BufferResult& out) {
  dispatch(elem, [&](auto zero) {
    using T = decltype(zero);
    auto at = [&](uint64_t i) {
      T v = zero;
      std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
      return static_cast<double>(v);
    };
    uint64_t n = bytes.size() / sizeof(T);
    double sum = 0;
    for (uint64_t i = 0; i < n; ++i) sum += at(i);
    out.checksum = sum;
    out.first.clear();
    for (uint64_t i = 0; i < n && i < 8; ++i) out.first.push_back(at(i));
  });
}

RunResult execute(const ExecRequest& request) {
  auto started = std::chrono::steady_clock::now();
  // Before the driver: a cubin cut short crashes cuModuleLoadData.
  if (std::string why = checkCubin(request.cubin); !why.empty())
    return RunResult::failure("load", why);
  if (std::optional<RunResult> unavailable = driverUnavailable()) return *unavailable;
  const Driver& cu = driver();
  RunResult result;
  DeviceContext gpu(cu);
  try {
    gpu.open(result.device);
  } catch (const DriverError& e) {
    RunResult f = RunResult::failure("no-device", e.what());
    f.device = result.device;
    return f;
  }
  // Every outcome from here on names the device it ran on.
  auto onDevice = [&](RunResult r) {
    r.device = result.device;
    return r;
  };
  const LaunchPlan& plan = request.plan;
  const std::string launch = describeLaunch(plan);
  CUfunction function = nullptr;
  if (auto f = gpu.loadKernel(request.cubin, plan, launch, function)) return onDevice(*f);
  KernelArguments args(plan.args.size());
  if (auto f = args.upload(cu, request)) return onDevice(*f);
  KernelLauncher launcher(cu, function, plan, args.params, launch);
  if (auto f = launcher.runOnce()) return onDevice(*f);
  try {
    readBuffers(cu, request, args, result);
    if (request.mode != ExecRequest::Mode::LaunchOnce)
      if (auto f = launcher.time(request.warmup, request.runs, result.timesMs)) return onDevice(*f);
  } catch (const DriverError& e) {
    return onDevice(launcher.driverFailed(e));
  }
  result.ok = true;
  result.execMs =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace ks::gpu
