// Nsight Compute's CLI (ncu): how kernelscope calls it and reads its CSV.
//
// A profile is two ncu runs of one launch: the SourceCounters section's source page with
// SASS (per-instruction stall samples by reason, instructions executed, threads, L2 sectors,
// shared-memory bank conflicts), and the raw page for the kernel's duration, achieved
// occupancy and DRAM throughput. ncu prints quoted CSV; its rows follow the cubin's
// instructions in the order `nvdisasm -c` lists them. The CSV reader is hand-written: it is a
// few lines of RFC 4180 and no CSV library is among kernelscope's dependencies.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ks::gpu {

/// One SASS instruction's counters.
struct NcuInstruction {
  std::string address;
  std::string source;                    // the SASS text as ncu prints it
  double stallSamples = 0;               // Warp Stall Sampling (All Samples)
  double executed = 0;                   // Instructions Executed (warp level)
  double threadsExecuted = 0;            // Thread Instructions Executed
  double l2Sectors = 0;                  // L2 Theoretical Sectors Global
  double l2SectorsIdeal = 0;             // ... Ideal
  double sharedConflicts = 0;            // L1 Conflicts Shared N-Way
  double l2SectorsLocal = 0;             // L2 Theoretical Sectors Local
  double divergentBranches = 0;          // Divergent Branches
  std::map<std::string, double> stalls;  // reason (without "stall_") -> samples, non-zero only
};

struct NcuSourceProfile {
  std::string kernel;
  std::vector<NcuInstruction> instructions;
};

/// Reads `ncu --page source --csv --print-source sass` output (other lines, such as ncu's
/// ==PROF== messages or the program's own output, are skipped). Returns the problem or "".
std::string parseNcuSourceCsv(std::string_view text, NcuSourceProfile& out);

/// The kernel-level figures of a profile.
struct NcuKernelMetrics {
  std::optional<double> durationNs;
  std::optional<double> achievedOccupancyPct;
  std::optional<double> dramThroughputPct;
  std::optional<double> dramBytes;
};

/// The metrics asked for in the raw-page run (their names as ncu's --metrics takes them).
extern const char* const kNcuKernelMetrics;

/// Reads `ncu --page raw --csv --metrics kNcuKernelMetrics` output. Returns the problem or "".
std::string parseNcuMetricsCsv(std::string_view text, NcuKernelMetrics& out);

/// The Nsight Compute CLI on this machine: `configured` if set, else $CUDA_HOME/bin/ncu,
/// /usr/local/cuda/bin/ncu, then PATH. Empty when none is found.
std::filesystem::path findNcu(const std::string& configured);

/// The argv of an ncu run over `program` (for the source page, or the metrics).
std::vector<std::string> ncuArgv(const std::filesystem::path& ncu, const std::string& kernel,
                                 bool sourcePage, const std::vector<std::string>& program);

}  // namespace ks::gpu
