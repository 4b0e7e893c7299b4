// The occupancy calculator: each limit on its own, the best block size, the figures the
// CUDA driver gave on an H200 (tests/gpu/occupancy_check.cpp, recorded in the README), and
// occupancy in compiles and `explain`.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "Occupancy.h"
#include "TestSupport.h"

using namespace ks;

namespace {

/// Resident blocks per SM of `arch` for a block of `blockSize` threads.
Occupancy check(std::string_view arch, uint32_t blockSize, uint32_t registers, uint32_t shared = 0,
                uint32_t dynamic = 0) {
  auto limits = archLimits(arch);
  REQUIRE(limits);
  OccupancyInput in;
  in.blockSize = blockSize;
  in.registers = registers;
  in.staticShared = shared;
  in.dynamicShared = dynamic;
  return computeOccupancy(*limits, in);
}

}  // namespace

TEST_CASE("architectures: the figures of each compute capability") {
  for (const auto& arch :
       {"sm_70", "sm_72", "sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_100", "sm_120"})
    CHECK(archLimits(arch).has_value());
  CHECK(archLimits("sm_90a")->sm == 90);
  CHECK(archLimits("sm_100f")->sm == 100);
  CHECK_FALSE(archLimits("sm_52").has_value());
  CHECK_FALSE(archLimits("compute_90").has_value());
  CHECK(archLimits("sm_75")->maxWarpsPerSm == 32);
  CHECK(archLimits("sm_86")->maxWarpsPerSm == 48);
  CHECK(archLimits("sm_89")->maxBlocksPerSm == 24);
  CHECK(archLimits("sm_90")->sharedPerSm == 228 * 1024);
  CHECK(archLimits("sm_80")->reservedSharedPerBlock == 1024);
  CHECK(archLimits("sm_70")->reservedSharedPerBlock == 0);
}

TEST_CASE("warps: small kernels fill the SM with big enough blocks") {
  Occupancy o = check("sm_90", 256, 16);
  CHECK(o.blocksPerSm == 8);
  CHECK(o.warpsPerSm == 64);
  CHECK(o.percent() == "100%");
  CHECK(o.limitText() == "warps");
  CHECK(check("sm_90", 1024, 16).blocksPerSm == 2);
  CHECK(check("sm_75", 1024, 16).blocksPerSm == 1);  // Turing holds 32 warps
  CHECK(check("sm_90", 1056, 16).blocksPerSm == 0);  // more than 1024 threads never launch
}

TEST_CASE("blocks: tiny blocks run out of block slots") {
  Occupancy o = check("sm_90", 32, 16);
  CHECK(o.blocksPerSm == 32);
  CHECK(o.percent() == "50%");
  CHECK(o.limitText() == "blocks");
  CHECK(check("sm_89", 32, 16).blocksPerSm == 24);
  CHECK(check("sm_86", 32, 16).blocksPerSm == 16);
}

TEST_CASE("registers: allocated per warp in units of 256, split over four sub-partitions") {
  // 32 registers: 1024 per warp, 16 warps per sub-partition, 64 per SM.
  Occupancy full = check("sm_90", 256, 32);
  CHECK(full.warpsPerSm == 64);
  CHECK(full.limitText() == "registers, warps");
  // 40 registers: 1280 per warp, 12 warps per sub-partition (not 65536 / 1280 = 51).
  Occupancy forty = check("sm_90", 256, 40);
  CHECK(forty.blocksPerSm == 6);
  CHECK(forty.percent() == "75%");
  CHECK(forty.limitText() == "registers");
  // 37 registers round up to 1280 per warp as well (the H200 gave 75% for a 37-register kernel).
  CHECK(check("sm_90", 256, 37).percent() == "75%");
  CHECK(check("sm_90", 256, 64).percent() == "50%");
  CHECK(check("sm_90", 256, 69).percent() == "38%");
  // 255 registers: 8192 per warp, two warps per sub-partition; a 288-thread block needs
  // 12 warps' worth (its 9 warps rounded to the sub-partitions) and does not fit at all.
  CHECK(check("sm_86", 256, 255).blocksPerSm == 1);
  CHECK(check("sm_86", 288, 255).blocksPerSm == 0);
  CHECK(check("sm_90", 256, 256).blocksPerSm == 0);  // beyond 255 per thread
}

TEST_CASE("shared memory: allocation unit, the reserved kilobyte, carveouts") {
  // 48 KiB + 1 KiB reserved per block out of A100's 164 KiB: three blocks.
  Occupancy a100 = check("sm_80", 256, 16, 48 * 1024);
  CHECK(a100.sharedPerBlock == 49 * 1024);
  CHECK(a100.blocksPerSm == 3);
  CHECK(a100.limitText() == "shared memory");
  // Volta reserves nothing and rounds to 256 bytes: 96 KiB / 12.25 KiB = 7 blocks.
  CHECK(check("sm_70", 128, 16, 12 * 1024 + 1).blocksPerSm == 7);
  // Dynamic shared memory counts like static.
  CHECK(check("sm_90", 128, 16, 2048, 20 * 1024).blocksPerSm == 9);
  // Past the 48 KiB a block gets without opting in, the opt-in limit applies.
  CHECK(check("sm_90", 128, 16, 0, 100 * 1024).blocksPerSm == 2);
  CHECK(check("sm_86", 128, 16, 0, 100 * 1024).blocksPerSm == 0);  // more than 99 KiB

  auto limits = archLimits("sm_90");
  OccupancyInput in;
  in.blockSize = 64;
  in.registers = 16;
  in.staticShared = 10 * 1024;  // 11 KiB with the reserve
  in.carveout = 32 * 1024;
  CHECK(computeOccupancy(*limits, in).blocksPerSm == 2);
  in.carveout = 8 * 1024;  // too small for one block: raised to the next carveout, 16 KiB
  CHECK(computeOccupancy(*limits, in).blocksPerSm == 1);
}

TEST_CASE("barriers: from Hopper on, named barriers share the block slots") {
  auto limits = archLimits("sm_90");
  OccupancyInput in;
  in.blockSize = 64;
  in.registers = 16;
  in.barriers = 16;
  Occupancy o = computeOccupancy(*limits, in);
  CHECK(o.blocksPerSm == 4);
  CHECK(o.limitText() == "barriers");
  in.barriers = 1;
  CHECK(computeOccupancy(*limits, in).blocksPerSm == 32);
}

TEST_CASE("the best block size is the smallest that reaches the highest occupancy") {
  KernelResources r;
  r.registers = 40;
  auto k = kernelOccupancy("sm_90", r, 256);
  REQUIRE(k);
  CHECK(k->atBlockSize.percent() == "75%");
  CHECK(k->best.blockSize == 64);  // 32 threads run out of block slots at 50%
  CHECK(k->best.percent() == "75%");
  r.registers = 69;
  k = kernelOccupancy("sm_90", r, 256);
  CHECK(k->best.blockSize == 32);
  CHECK_FALSE(kernelOccupancy("sm_61", r).has_value());
}

TEST_CASE("the H200's driver: every example and generated kernel, as recorded") {
  // Registers and static shared memory as the driver's JIT reported them, and its
  // occupancy at 256 threads and best block size (tests/gpu/occupancy_check.cpp).
  struct Recorded {
    const char* kernel;
    uint32_t registers, shared;
    const char* at256;
    uint32_t best;
  };
  const Recorded recorded[] = {
      {"elementwise_mul", 18, 0, "100%", 64}, {"matmul_naive", 32, 0, "100%", 64},
      {"matmul_tiled", 32, 2048, "100%", 64}, {"reduce_sum", 18, 1024, "100%", 64},
      {"saxpy", 10, 0, "100%", 64},           {"vector_add", 12, 0, "100%", 64},
      {"pressure_32", 37, 0, "75%", 64},      {"pressure_48", 53, 0, "50%", 64},
      {"pressure_64", 69, 0, "38%", 32},      {"pressure_80", 85, 0, "25%", 32},
      {"pressure_96", 101, 0, "25%", 32},     {"pressure_128", 133, 0, "13%", 32},
      {"pressure_168", 173, 0, "13%", 32},    {"pressure_200", 205, 0, "13%", 32},
      {"pressure_240", 245, 0, "13%", 32},
  };
  for (const auto& r : recorded) {
    CAPTURE(r.kernel);
    KernelResources res;
    res.registers = r.registers;
    res.sharedMemory = r.shared;
    auto k = kernelOccupancy("sm_90", res, 256);
    REQUIRE(k);
    CHECK(k->atBlockSize.percent() == r.at256);
    CHECK(k->best.blockSize == r.best);
  }
}

TEST_CASE("compiles carry each kernel's occupancy; explain shows it") {
  test::requireToolchain();
  const auto& r = test::compiled(test::sourceDir() / "examples/matmul_tiled.rs");
  REQUIRE(r.kernels.size() == 1);
  REQUIRE(r.kernels[0].occupancy);
  CHECK(r.kernels[0].occupancy->atBlockSize.blockSize == 256);
  CHECK(r.kernels[0].occupancy->atBlockSize.blocksPerSm > 0);

  auto out = test::runKernelscope(
      {"explain", "examples/matmul_tiled.rs", "--stages", "ptx", "--block-size", "1024"});
  INFO(out.out << out.err);
  CHECK(out.exitCode == 0);
  CHECK(out.out.find("occ@1024") != std::string::npos);
  auto json =
      test::runKernelscope({"explain", "examples/matmul_tiled.rs", "--stages", "ptx", "--json"});
  REQUIRE(json.exitCode == 0);
  auto k = nlohmann::json::parse(json.out)["kernels"][0];
  CHECK(k["occupancy"]["blockSize"] == 256);
  CHECK(k["occupancy"]["maxWarpsPerSM"] == 64);
  CHECK(!k["occupancy"]["limiter"].get<std::string>().empty());
  CHECK(k["bestOccupancy"]["blockSize"].get<int>() % 32 == 0);
}
