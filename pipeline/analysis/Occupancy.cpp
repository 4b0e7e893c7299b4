// Occupancy: per-architecture SM limits and the theoretical occupancy of a kernel.
//
// The arithmetic follows NVIDIA's occupancy calculator (cuda_occupancy.h, CUDA 13.0): each
// resource (registers, shared memory, warp slots, block slots, named barriers) allows some
// number of resident blocks, and the least of them is the answer. The figures per
// architecture are the arch catalogue's (GpuArch.h).
#include "Occupancy.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "GpuArch.h"

namespace ks {

namespace {

constexpr uint32_t KiB = 1024;
constexpr uint32_t kUnlimited = std::numeric_limits<uint32_t>::max();
constexpr uint32_t kWarpSize = 32;

uint32_t divideRoundUp(uint32_t x, uint32_t y) { return (x + y - 1) / y; }
uint32_t roundUp(uint32_t x, uint32_t y) { return y * divideRoundUp(x, y); }

}  // namespace

std::optional<ArchLimits> archLimits(std::string_view arch) {
  const GpuArchInfo* info = gpuArch(arch);  // the catalogue's figures
  if (!info || !info->figures) return std::nullopt;
  const SmFigures& f = *info->figures;
  ArchLimits a;
  a.sm = info->sm;
  a.maxWarpsPerSm = f.maxWarps;
  a.maxBlocksPerSm = f.maxBlocks;
  a.sharedPerSm = f.sharedKiB * KiB;
  a.sharedPerBlockOptIn = f.optInKiB * KiB;
  for (uint32_t k : f.carveoutsKiB) a.sharedCarveouts.push_back(k * KiB);
  // Volta and Turing allocate shared memory in 256-byte units; Ampere and later in
  // 128-byte units and keep 1 KiB per block for the system.
  a.sharedAllocationUnit = a.sm >= 80 ? 128 : 256;
  a.reservedSharedPerBlock = a.sm >= 80 ? 1 * KiB : 0;
  // From Hopper on, named barriers limit resident blocks: two per block slot, one on
  // the consumer Blackwell parts.
  if (a.sm >= 90) a.barrierSlotsPerBlockSlot = a.sm >= 120 ? 1 : 2;
  return a;
}

std::string_view occupancyLimitName(OccupancyLimit l) {
  switch (l) {
    case OccupancyLimit::Registers:
      return "registers";
    case OccupancyLimit::SharedMemory:
      return "shared memory";
    case OccupancyLimit::Warps:
      return "warps";
    case OccupancyLimit::Blocks:
      return "blocks";
    case OccupancyLimit::Barriers:
      return "barriers";
  }
  return "registers";
}

std::string Occupancy::percent() const {
  return std::to_string(static_cast<int>(std::lround(fraction() * 100))) + "%";
}

std::string Occupancy::limitText() const {
  std::string out;
  for (OccupancyLimit l : limitedBy)
    out += (out.empty() ? "" : ", ") + std::string(occupancyLimitName(l));
  return out;
}

Occupancy computeOccupancy(const ArchLimits& arch, const OccupancyInput& in) {
  Occupancy o;
  o.blockSize = in.blockSize;
  o.maxWarpsPerSm = arch.maxWarpsPerSm;
  if (in.blockSize == 0) return o;
  const uint32_t warpsPerBlock = divideRoundUp(in.blockSize, kWarpSize);

  // Warp slots, and the block size limit.
  o.blocksByWarps = in.blockSize > arch.maxThreadsPerBlock ? 0 : arch.maxWarpsPerSm / warpsPerBlock;
  o.blocksByBlocks = arch.maxBlocksPerSm;

  // Registers go to warps in allocation units, and are split between the sub-partitions:
  // a warp lives in one, so the warps per SM are the warps one sub-partition holds times
  // the number of sub-partitions. A block must also fit the per-block register limit with
  // its warps rounded up to whole sub-partition rows (the hardware's own check).
  const uint32_t regsPerWarp = roundUp(in.registers * kWarpSize, arch.registerAllocationUnit);
  o.registersPerBlock = regsPerWarp * warpsPerBlock;
  const uint32_t regsAssumedPerBlock =
      regsPerWarp * roundUp(warpsPerBlock, arch.warpAllocationGranularity);
  if (in.registers > arch.maxRegistersPerThread || o.registersPerBlock > arch.registersPerBlock ||
      regsAssumedPerBlock > arch.registersPerBlock) {
    o.blocksByRegisters = 0;
  } else if (regsPerWarp == 0) {
    o.blocksByRegisters = kUnlimited;
  } else {
    const uint32_t warpsPerSubPartition =
        arch.registersPerSm / arch.warpAllocationGranularity / regsPerWarp;
    o.blocksByRegisters = warpsPerSubPartition * arch.warpAllocationGranularity / warpsPerBlock;
  }

  // Shared memory: the block's static and dynamic bytes plus the reserved part, rounded to
  // the allocation unit, out of the SM's carveout. A carveout smaller than one block is
  // raised to the next size that holds it, as the driver does.
  const uint32_t wanted = in.staticShared + in.dynamicShared + arch.reservedSharedPerBlock;
  o.sharedPerBlock = roundUp(wanted, arch.sharedAllocationUnit);
  const uint32_t blockLimit =
      (wanted > arch.sharedPerBlock + arch.reservedSharedPerBlock ? arch.sharedPerBlockOptIn
                                                                  : arch.sharedPerBlock) +
      arch.reservedSharedPerBlock;
  if (o.sharedPerBlock > blockLimit) {
    o.blocksByShared = 0;
  } else if (o.sharedPerBlock == 0) {
    o.blocksByShared = kUnlimited;
  } else {
    uint32_t perSm = in.carveout.value_or(arch.sharedPerSm);
    if (perSm < o.sharedPerBlock) {
      perSm = arch.sharedPerSm;
      for (uint32_t c : arch.sharedCarveouts)
        if (c >= o.sharedPerBlock) {
          perSm = c;
          break;
        }
    }
    o.blocksByShared = perSm / o.sharedPerBlock;
  }

  // Named barriers (Hopper on): a fixed number per block slot, shared by the blocks.
  o.blocksByBarriers = arch.barrierSlotsPerBlockSlot && in.barriers
                           ? arch.maxBlocksPerSm * arch.barrierSlotsPerBlockSlot / in.barriers
                           : kUnlimited;

  o.blocksPerSm = std::min({o.blocksByRegisters, o.blocksByShared, o.blocksByWarps,
                            o.blocksByBlocks, o.blocksByBarriers});
  const std::pair<OccupancyLimit, uint32_t> limits[] = {
      {OccupancyLimit::Registers, o.blocksByRegisters},
      {OccupancyLimit::SharedMemory, o.blocksByShared},
      {OccupancyLimit::Warps, o.blocksByWarps},
      {OccupancyLimit::Blocks, o.blocksByBlocks},
      {OccupancyLimit::Barriers, o.blocksByBarriers}};
  for (const auto& [limit, blocks] : limits)
    if (blocks == o.blocksPerSm) o.limitedBy.push_back(limit);
  o.warpsPerSm = o.blocksPerSm * warpsPerBlock;
  return o;
}

std::optional<KernelOccupancy> kernelOccupancy(std::string_view arch,
                                               const KernelResources& resources, uint32_t blockSize,
                                               uint32_t dynamicShared) {
  auto limits = archLimits(arch);
  if (!limits) return std::nullopt;
  OccupancyInput in;
  in.registers = resources.registers;
  in.staticShared = resources.sharedMemory;
  in.dynamicShared = dynamicShared;
  in.barriers = resources.barriers;
  KernelOccupancy k;
  k.arch = std::string(arch);
  in.blockSize = blockSize;
  k.atBlockSize = computeOccupancy(*limits, in);
  for (uint32_t size = kWarpSize; size <= limits->maxThreadsPerBlock; size += kWarpSize) {
    in.blockSize = size;
    Occupancy o = computeOccupancy(*limits, in);
    if (size == kWarpSize || o.warpsPerSm > k.best.warpsPerSm) k.best = std::move(o);
  }
  return k;
}

}  // namespace ks
