// What the GPU tests share beyond the CUDA driver wrapper (pipeline/gpu-exec/Driver.h, the one
// kernelscope runs kernels with): their exit statuses, device 0 opened with its primary context,
// and the PTX inputs and their kernels.
//
// Shared by gpu_examples (runs the example kernels) and occupancy_check (asks the driver
// for occupancy). The driver is opened at run time (dlopen of libcuda.so.1), so the
// programs build without a GPU, a driver or cuda.h and need nothing at run time but the PTX
// files and libcuda; without them they skip and say why. Header-only: each test is one .cpp.
#pragma once

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "Driver.h"

namespace ks::gpu {

namespace fs = std::filesystem;

constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;
constexpr int kExitSkipped = 77;  // CTest's SKIP_RETURN_CODE

/// Device 0 with its primary context current.
struct Device {
  CUdevice device = 0;
  CUcontext context = nullptr;
  std::string name;
  int major = 0, minor = 0, driverVersion = 0;
};

/// Loads the driver and finds a device: returns the reason to skip, "" when there is one.
inline std::string findDevice() {
  if (std::string why = loadDriver(); !why.empty()) return why;
  if (CUresult r = driver().cuInit(0); r != kCudaSuccess) return "cuInit: " + errorText(r);
  int devices = 0;
  if (driver().cuDeviceGetCount(&devices) != kCudaSuccess || devices == 0) return "no CUDA device";
  return {};
}

/// Opens device 0 and makes its primary context current; throws DriverError.
inline Device openDevice() {
  const Driver& cu = driver();
  Device d;
  check(cu.cuDeviceGet(&d.device, 0), "cuDeviceGet");
  std::array<char, 256> name{};
  check(cu.cuDeviceGetName(name.data(), name.size(), d.device), "cuDeviceGetName");
  d.name = name.data();
  check(cu.cuDeviceGetAttribute(&d.major, kAttrComputeCapabilityMajor, d.device),
        "cuDeviceGetAttribute");
  check(cu.cuDeviceGetAttribute(&d.minor, kAttrComputeCapabilityMinor, d.device),
        "cuDeviceGetAttribute");
  check(cu.cuDriverGetVersion(&d.driverVersion), "cuDriverGetVersion");
  check(cu.cuDevicePrimaryCtxRetain(&d.context, d.device), "cuDevicePrimaryCtxRetain");
  check(cu.cuCtxSetCurrent(d.context), "cuCtxSetCurrent");
  return d;
}

/// "device 0: NVIDIA H200 (sm_90), CUDA driver 13.0"
inline std::string describe(const Device& d) {
  return "device 0: " + d.name + " (sm_" + std::to_string(d.major) + std::to_string(d.minor) +
         "), CUDA driver " + std::to_string(d.driverVersion / 1000) + "." +
         std::to_string(d.driverVersion % 1000 / 10);
}

// ---------------------------------------------------------------------------------------------
// Kernels as found in the PTX text.

/// One `.entry` of a PTX file: its name and the byte size of each parameter.
struct Entry {
  std::string name;
  std::vector<size_t> paramSizes;
};

/// Finds the kernels (`.entry NAME(.param .TYPE ... , ...)`) of a PTX text.
inline std::vector<Entry> findEntries(const std::string& ptx) {
  static const std::regex entryRe(R"(\.entry\s+([A-Za-z_$][\w$]*)\s*\(([^)]*)\))");
  static const std::regex paramRe(R"(\.param\s+\.[a-z]+?(\d+)\b)");
  std::vector<Entry> entries;
  for (std::sregex_iterator it(ptx.begin(), ptx.end(), entryRe), end; it != end; ++it) {
    Entry e{(*it)[1].str(), {}};
    const std::string params = (*it)[2].str();
    for (std::sregex_iterator p(params.begin(), params.end(), paramRe); p != end; ++p)
      e.paramSizes.push_back(std::stoul((*p)[1].str()) / 8);
    entries.push_back(std::move(e));
  }
  return entries;
}

struct PtxFile {
  fs::path path;
  std::string text;
  std::vector<Entry> entries;
};

/// Reads the PTX files named by `args` (a directory means every *.ptx in it); says what is
/// wrong on stderr, prefixed with `program`, and returns false on bad input.
inline bool readPtxInputs(const char* program, const std::vector<std::string>& args,
                          std::vector<PtxFile>& files) {
  std::vector<fs::path> paths;
  for (const auto& arg : args) {
    fs::path p = arg;
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<fs::path> inDir;
      for (const auto& e : fs::directory_iterator(p, ec))
        if (e.path().extension() == ".ptx") inDir.push_back(e.path());
      std::sort(inDir.begin(), inDir.end());
      if (inDir.empty()) {
        std::fprintf(stderr, "%s: no .ptx files in %s\n", program, p.c_str());
        return false;
      }
      paths.insert(paths.end(), inDir.begin(), inDir.end());
    } else {
      paths.push_back(p);
    }
  }
  for (const auto& p : paths) {
    std::ifstream in(p, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "%s: cannot read %s\n", program, p.c_str());
      return false;
    }
    std::ostringstream text;
    text << in.rdbuf();
    PtxFile f{p, text.str(), {}};
    f.entries = findEntries(f.text);
    if (f.entries.empty()) {
      std::fprintf(stderr, "%s: %s has no .entry (not PTX?)\n", program, p.c_str());
      return false;
    }
    files.push_back(std::move(f));
  }
  return true;
}

/// Loads a PTX text as a module; on failure the exception carries the JIT's error log.
inline CUmodule loadModule(const std::string& ptx) {
  std::array<char, 8192> log{};
  std::array<int, 2> options = {kJitErrorLogBuffer, kJitErrorLogBufferSizeBytes};
  std::array<void*, 2> values = {log.data(), reinterpret_cast<void*>(log.size())};
  CUmodule module = nullptr;
  CUresult r = driver().cuModuleLoadDataEx(&module, ptx.c_str(), options.size(), options.data(),
                                           values.data());
  if (r != kCudaSuccess) {
    std::string jitLog = log.data();
    while (!jitLog.empty() && std::isspace(static_cast<unsigned char>(jitLog.back())))
      jitLog.pop_back();
    throw std::runtime_error("cuModuleLoadDataEx: " + errorText(r) +
                             (jitLog.empty() ? "" : ": " + jitLog));
  }
  return module;
}

}  // namespace ks::gpu
