// Occupancy: the per-architecture limits of an SM and the theoretical occupancy of a kernel.
//
// Occupancy is the share of an SM's warp slots a kernel can keep resident. It follows from
// the kernel's registers per thread and shared memory per block (ptxas reports both), the
// block size of the launch, and the limits of the architecture. The rules and figures are
// those of NVIDIA's occupancy calculator (cuda_occupancy.h of the CUDA toolkit) and the
// CUDA programming guide's table of technical specifications per compute capability;
// tests/gpu/occupancy_check.cpp compares the result with the CUDA driver on real hardware.
// Plain arithmetic: no tools, no GPU.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "Diagnostics.h"

namespace ks {

/// What one streaming multiprocessor of an architecture offers.
struct ArchLimits {
  uint32_t sm = 0;              // 90 for sm_90
  uint32_t maxWarpsPerSm = 0;   // resident warps
  uint32_t maxBlocksPerSm = 0;  // resident blocks
  uint32_t maxThreadsPerBlock = 1024;
  uint32_t registersPerSm = 65536;  // 32-bit registers
  uint32_t registersPerBlock = 65536;
  uint32_t maxRegistersPerThread = 255;
  uint32_t registerAllocationUnit = 256;   // registers are given to a warp in units of this many
  uint32_t warpAllocationGranularity = 4;  // SM sub-partitions: registers are split between them,
                                           // and a block's warps are spread over them
  uint32_t sharedPerSm = 0;                // bytes, the largest shared memory carveout
  uint32_t sharedPerBlock = 48 * 1024;     // bytes a block may use without opting in
  uint32_t sharedPerBlockOptIn = 0;        // bytes a block may use when it opts in
  uint32_t sharedAllocationUnit = 0;       // bytes: a block's shared memory is rounded up to this
  uint32_t reservedSharedPerBlock = 0;     // bytes the driver keeps per block (1 KiB from sm_80)
  /// The shared memory sizes an SM can be configured to (bytes).
  std::vector<uint32_t> sharedCarveouts;
  /// Named barriers per resident-block slot (sm_90 on); 0: barriers are no limit.
  uint32_t barrierSlotsPerBlockSlot = 0;
};

/// The limits of an architecture ("sm_90", "sm_90a", "sm_100f"); nullopt for one we have no
/// figures for.
std::optional<ArchLimits> archLimits(std::string_view arch);

/// What limits the number of resident blocks.
enum class OccupancyLimit : uint8_t { Registers, SharedMemory, Warps, Blocks, Barriers };
std::string_view occupancyLimitName(OccupancyLimit);  // "registers", "shared memory", ...

/// What a kernel asks of an SM per block.
struct OccupancyInput {
  uint32_t blockSize = 256;    // threads per block
  uint32_t registers = 0;      // per thread
  uint32_t staticShared = 0;   // bytes per block, as ptxas reports
  uint32_t dynamicShared = 0;  // bytes per block, given at launch
  uint32_t barriers = 0;       // named barriers the kernel uses
  /// The shared memory the SM is configured to (a carveout, bytes); unset: the driver's
  /// default, the largest carveout.
  std::optional<uint32_t> carveout;
};

/// The theoretical occupancy at one block size.
struct Occupancy {
  uint32_t blockSize = 0;
  uint32_t blocksPerSm = 0;  // resident blocks; 0 means the block cannot launch at all
  uint32_t warpsPerSm = 0;   // resident warps
  uint32_t maxWarpsPerSm = 0;
  /// The most blocks each resource allows on its own.
  uint32_t blocksByRegisters = 0, blocksByShared = 0, blocksByWarps = 0, blocksByBlocks = 0,
           blocksByBarriers = 0;
  std::vector<OccupancyLimit> limitedBy;  // every resource that allows no more than blocksPerSm
  uint32_t registersPerBlock = 0;         // as allocated
  uint32_t sharedPerBlock = 0;            // as allocated, bytes (with the reserved part)

  /// Resident warps over warp slots, 0..1.
  double fraction() const { return maxWarpsPerSm ? double(warpsPerSm) / maxWarpsPerSm : 0.0; }
  /// "75%"
  std::string percent() const;
  /// "registers" or "warps, blocks": the resources that set the limit.
  std::string limitText() const;
};

/// The occupancy of a block of `in.blockSize` threads on `arch`.
Occupancy computeOccupancy(const ArchLimits& arch, const OccupancyInput& in);

/// A kernel's occupancy at the requested block size and at the best one.
struct KernelOccupancy {
  std::string arch;
  Occupancy atBlockSize;
  Occupancy best;  // the smallest block size (a multiple of 32) that reaches the highest occupancy
};

/// The occupancy of a kernel with these resources; nullopt for an unknown architecture.
std::optional<KernelOccupancy> kernelOccupancy(std::string_view arch,
                                               const KernelResources& resources,
                                               uint32_t blockSize = 256,
                                               uint32_t dynamicShared = 0);

}  // namespace ks
