// The registers live at each SASS instruction (`nvdisasm -plr -lrm count`, read by
// readLiveRegisters in Costs.h), disassembled per function and kept by the function's code.
//
// Measured on a 40-kernel file (sm_90, nvdisasm 11.8, CPU seconds): `-plr` over the whole
// cubin takes 5.8 s, more than ptxas (1.6 s) and the SASS listing (1.2 s) together; over one
// function (`-fun`) it takes 0.75 s, most of it nvdisasm's own start. An edit changes the
// code of the kernels it touches only, so a function whose `.text` section holds the same
// bytes as before is not analysed again: only the changed ones go to nvdisasm (`-fun`, the
// missing functions split into as many runs as there are cores), and the counts of the
// others come from the cache. A kernel's section holds the functions ptxas placed in it
// (`$kernel$callee`), so its bytes are all the code its counts depend on. The counts are
// those of one run over the whole cubin, row for row (LiveRangesTest compares them on every
// example). Internal to pipeline/.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

#include "Compile.h"
#include "Process.h"

namespace ks {

/// What nvdisasm printed, cut to what readLiveRegisters reads (the section lines, the table's
/// header and each instruction's address and counts), for every function of `cubin`:
/// `run.out` holds the table, `run.elapsed` the time of the runs that were needed. Not `ok()`
/// when a run failed (its result as it ended) or the cubin could not be read.
struct LiveRangeRun {
  ProcessResult run;
  size_t functions = 0;  // the cubin's functions with a section of their own
  size_t analysed = 0;   // of those, how many nvdisasm analysed (the others were cached)
};
LiveRangeRun liveRanges(const Toolchain&, const ResolvedOptions&, const CancellationToken&,
                        const std::filesystem::path& cubin);

/// The cache's size in bytes and entries; clearLiveRangeCache() empties it (tests).
size_t liveRangeCacheBytes();
void clearLiveRangeCache();

}  // namespace ks
