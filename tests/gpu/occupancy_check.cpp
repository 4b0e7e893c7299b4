// occupancy_check: kernelscope's occupancy calculator (pipeline/analysis/Occupancy.cpp) against the
// CUDA driver's own answer on a real GPU, for every example kernel and block size.
//
// Each PTX file is loaded as a module (the driver JIT-compiles it for the GPU at hand), and
// for block sizes 32, 64, ..., 1024 and a few dynamic shared memory sizes
// cuOccupancyMaxActiveBlocksPerMultiprocessor says how many blocks fit on an SM.
// kernelscope's calculator is given the registers and static shared memory the driver
// reports for the same compiled function (its ptxas may differ from the one kernelscope
// runs), so the comparison tests the calculator, not the compilers. It must agree
// everywhere. The example kernels use few registers; generated kernels that keep 32 to 240
// values live cover the register limits too.
//
// With --expect FILE (lines `KERNEL REGISTERS SHARED_BYTES BARRIERS`: the resources
// kernelscope's own ptxas reported, e.g. from `kernelscope explain FILE --json`), the
// occupancy kernelscope shows for those resources is printed beside the driver's.
//
// Usage: occupancy_check [--expect FILE] PTX_FILE_OR_DIR...
// Exit status: 0 agreement everywhere, 1 a disagreement or a failure, 2 bad usage,
// 77 no driver or no GPU.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "GpuTestSupport.h"
#include "Occupancy.h"

namespace {

using namespace ks::gpu;

struct Expected {
  uint32_t registers = 0, shared = 0, barriers = 0;
};

std::map<std::string, Expected> readExpected(const std::string& path, bool& ok) {
  std::map<std::string, Expected> out;
  std::ifstream in(path);
  ok = static_cast<bool>(in);
  std::string name;
  Expected e;
  while (in >> name >> e.registers >> e.shared >> e.barriers) out[name] = e;
  return out;
}

int attribute(CUfunction f, FunctionAttribute a) {
  int v = 0;
  check(driver().cuFuncGetAttribute(&v, a, f), "cuFuncGetAttribute");
  return v;
}

/// The block size with the most resident warps (the smallest on a tie) over `blocks`,
/// indexed by block size / 32 - 1.
uint32_t bestBlockSize(const std::vector<uint32_t>& blocks) {
  uint32_t best = 32, bestWarps = 0;
  for (size_t i = 0; i < blocks.size(); ++i) {
    const uint32_t size = 32 * static_cast<uint32_t>(i + 1), warps = blocks[i] * (i + 1);
    if (warps > bestWarps) best = size, bestWarps = warps;
  }
  return best;
}

/// A kernel that keeps `live` loaded values live at once: volatile loads cannot be
/// reordered, and the sum consumes them last-loaded first, so all are held in registers.
std::string pressureKernel(uint32_t live) {
  std::string name = "pressure_" + std::to_string(live);
  std::string ptx = ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry " + name +
                    "(.param .u64 p)\n{\n.reg .b32 %r<" + std::to_string(live + 1) +
                    ">;\n.reg .b64 %rd<3>;\n" +
                    "ld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd2, %rd1;\n";
  for (uint32_t i = 0; i < live; ++i)
    ptx += "ld.volatile.global.u32 %r" + std::to_string(i) + ", [%rd2+" + std::to_string(4 * i) +
           "];\n";
  for (uint32_t i = live - 1; i-- > 0;)
    ptx += "add.u32 %r" + std::to_string(live - 1) + ", %r" + std::to_string(live - 1) + ", %r" +
           std::to_string(i) + ";\n";
  ptx += "st.global.u32 [%rd2], %r" + std::to_string(live - 1) + ";\nret;\n}\n";
  return ptx;
}

std::string percent(uint32_t warps, uint32_t maxWarps) {
  return std::to_string((warps * 100 + maxWarps / 2) / maxWarps) + "%";
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> inputs;
  std::string expectPath;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--expect" && i + 1 < argc)
      expectPath = argv[++i];
    else
      inputs.push_back(arg);
  }
  if (inputs.empty()) {
    std::fprintf(stderr, "usage: %s [--expect FILE] PTX_FILE_OR_DIR...\n", argv[0]);
    return kExitUsage;
  }
  std::vector<PtxFile> files;
  if (!readPtxInputs("occupancy_check", inputs, files)) return kExitUsage;
  std::map<std::string, Expected> expected;
  if (!expectPath.empty()) {
    bool ok = false;
    expected = readExpected(expectPath, ok);
    if (!ok) {
      std::fprintf(stderr, "occupancy_check: cannot read %s\n", expectPath.c_str());
      return kExitUsage;
    }
  }
  if (std::string why = findDevice(); !why.empty()) {
    std::printf("skipped: %s\n", why.c_str());
    return kExitSkipped;
  }

  int agreed = 0, disagreed = 0;
  try {
    Device device = openDevice();
    std::printf("%s\n", describe(device).c_str());
    const std::string arch = "sm_" + std::to_string(device.major) + std::to_string(device.minor);
    auto limits = ks::archLimits(arch);
    if (!limits) {
      std::printf("FAIL  kernelscope has no occupancy figures for %s\n", arch.c_str());
      return kExitFailed;
    }
    int threadsPerSm = 0;
    check(driver().cuDeviceGetAttribute(&threadsPerSm, kAttrMaxThreadsPerMultiprocessor,
                                        device.device),
          "cuDeviceGetAttribute");
    const uint32_t maxWarps = static_cast<uint32_t>(threadsPerSm) / 32;
    if (maxWarps != limits->maxWarpsPerSm)
      std::printf("note: the device has %u warp slots per SM, kernelscope's %s figures %u\n",
                  maxWarps, arch.c_str(), limits->maxWarpsPerSm);

    std::printf("%-4s  %-16s %5s %5s %6s %8s  %-17s %-17s %s\n", "", "kernel", "regs", "11.8",
                "smem", "agree", "@256 driver/ours", "best driver/ours", "kernelscope (11.8 regs)");
    for (uint32_t live : {32u, 48u, 64u, 80u, 96u, 128u, 168u, 200u, 240u}) {
      PtxFile generated{"(generated)", pressureKernel(live), {}};
      generated.entries = findEntries(generated.text);
      files.push_back(std::move(generated));
    }
    // Dynamic shared memory per block at launch: within the 48 KiB a kernel gets without
    // opting in, with the static part and the 1 KiB reserve.
    const uint32_t dynamicSizes[] = {0, 1000, 8 * 1024, 20 * 1024, 40 * 1024};
    for (const auto& f : files) {
      CUmodule module = loadModule(f.text);
      for (const auto& entry : f.entries) {
        CUfunction fn = nullptr;
        check(driver().cuModuleGetFunction(&fn, module, entry.name.c_str()), "cuModuleGetFunction");
        ks::OccupancyInput in;
        in.registers = static_cast<uint32_t>(attribute(fn, kFuncAttrNumRegs));
        in.staticShared = static_cast<uint32_t>(attribute(fn, kFuncAttrSharedSizeBytes));
        auto exp = expected.find(entry.name);
        if (exp != expected.end()) in.barriers = exp->second.barriers;

        std::vector<uint32_t> driverBlocks, ourBlocks;  // without dynamic shared memory
        std::string mismatches;
        size_t compared = 0, differing = 0;
        for (uint32_t dynamic : dynamicSizes) {
          if (in.staticShared + dynamic + limits->reservedSharedPerBlock >
              limits->sharedPerBlock + limits->reservedSharedPerBlock)
            continue;
          in.dynamicShared = dynamic;
          for (uint32_t size = 32; size <= 1024; size += 32) {
            int blocks = 0;
            check(driver().cuOccupancyMaxActiveBlocksPerMultiprocessor(
                      &blocks, fn, static_cast<int>(size), dynamic),
                  "cuOccupancyMaxActiveBlocksPerMultiprocessor");
            in.blockSize = size;
            const uint32_t ours = ks::computeOccupancy(*limits, in).blocksPerSm;
            if (dynamic == 0) {
              driverBlocks.push_back(static_cast<uint32_t>(blocks));
              ourBlocks.push_back(ours);
            }
            ++compared;
            if (ours != static_cast<uint32_t>(blocks)) {
              ++differing;
              mismatches += " " + std::to_string(size) + "/" + std::to_string(dynamic) +
                            "B:" + std::to_string(blocks) + "/" + std::to_string(ours);
            }
          }
        }
        const size_t at256 = 256 / 32 - 1;
        const std::string atBlock = percent(driverBlocks[at256] * 8, maxWarps) + "/" +
                                    percent(ourBlocks[at256] * 8, maxWarps);
        const std::string best = std::to_string(bestBlockSize(driverBlocks)) + "/" +
                                 std::to_string(bestBlockSize(ourBlocks));
        std::string shown = "-", ptxasRegs = "-";
        if (exp != expected.end()) {
          ks::KernelResources r;
          r.registers = exp->second.registers;
          r.sharedMemory = exp->second.shared;
          r.barriers = exp->second.barriers;
          auto k = ks::kernelOccupancy(arch, r, 256);
          shown = k->atBlockSize.percent() + " @256 (" + k->atBlockSize.limitText() + "), best " +
                  k->best.percent() + " @" + std::to_string(k->best.blockSize);
          ptxasRegs = std::to_string(exp->second.registers);
        }
        const bool ok = differing == 0;
        (ok ? agreed : disagreed)++;
        const std::string counts =
            std::to_string(compared - differing) + "/" + std::to_string(compared);
        std::printf("%-4s  %-16s %5u %5s %6u %8s  %-17s %-17s %s%s\n", ok ? "ok" : "FAIL",
                    entry.name.c_str(), in.registers, ptxasRegs.c_str(), in.staticShared,
                    counts.c_str(), atBlock.c_str(), best.c_str(), shown.c_str(),
                    ok ? "" : ("; differ at size/dynamic:driver/ours" + mismatches).c_str());
      }
      driver().cuModuleUnload(module);
    }
    driver().cuDevicePrimaryCtxRelease(device.device);
  } catch (const std::exception& e) {
    std::printf("FAIL  %s\n", e.what());
    return kExitFailed;
  }
  std::printf("%d kernels agree at every block size, %d disagree\n", agreed, disagreed);
  return disagreed ? kExitFailed : 0;
}
