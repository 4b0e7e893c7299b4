// Sweeps: one kernel launched under every combination of some spec variables' values
// (`run --sweep block=64,128,256 --sweep n=1<<20,1<<24`), each configuration's time next to
// the occupancy the static model (Occupancy.h) predicts for its block and shared memory, the
// fastest named, and the outputs compared across configurations.
//
// The kernel is compiled once; each configuration is the spec with `NAME = VALUE` items added
// last (later items override earlier ones), evaluated against the kernel's parameters like any
// spec, and run by its own gpu-exec child. With a runner that spreads work (`srun` on a Slurm
// cluster), `parallel` configurations run at once, each a job step of its own.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "GpuService.h"
#include "Occupancy.h"

namespace ks::gpu {

/// One swept variable: `block=64,128,256` (values split at top-level commas, so
/// `block=[8, 8],[16, 16]` is two values).
struct SweepAxis {
  std::string name;
  std::vector<std::string> values;
};

/// Reads `NAME=V1,V2,...`; returns the problem ("" when `out` was filled).
std::string parseSweepAxis(std::string_view text, SweepAxis& out);

/// The most configurations a sweep may have (the product of its axes' lengths).
inline constexpr size_t kMaxSweepConfigurations = 256;

struct SweepPoint {
  std::vector<std::pair<std::string, std::string>> values;  // each axis's name and value here
  std::optional<LaunchPlan> plan;
  RunResult run;
  std::string error;  // why this configuration did not run (a spec error, a fault); "" when it ran
  /// The static model's occupancy at this block and dynamic shared memory; unset for an
  /// architecture without figures.
  std::optional<Occupancy> predicted;
  double medianMs = 0;
  bool outputsDiffer = false;  // its outputs are not the reference configuration's
  bool ran() const { return error.empty() && run.ok; }
  /// "block = 128, n = 1 << 20"
  std::string label() const;
};

struct SweepOutcome {
  bool cancelled = false;
  std::vector<std::string> details;  // the compile's errors
  std::string error;                 // why nothing ran
  std::vector<std::string> notes;
  std::string kernel;
  std::string arch;
  std::vector<SweepPoint> points;  // in the axes' order, the last axis fastest
  /// The point the others' outputs are checked against: the kernel's own launch (its spec
  /// without the swept values) when the sweep has it, else the outputs most points agree on.
  std::optional<size_t> reference;
  bool referenceIsOwn = false;
  /// The fastest point whose outputs are the reference's (a configuration that computes
  /// something else is never the best).
  std::optional<size_t> best;
  /// "out at block = 128; block = 512": each output buffer that differs from the reference's,
  /// with the configurations where; empty when all agree.
  std::vector<std::string> differing;
  /// What "equal" meant: integers exactly, floats within a relative tolerance (a different
  /// grid adds in another order).
  std::string equalityRule;
  bool ok() const { return !cancelled && error.empty() && details.empty(); }
};

/// Runs `req` (a run, not a profile) under every configuration of `axes`.
SweepOutcome runSweep(Engine&, const GpuRequest& req, const std::vector<SweepAxis>& axes,
                      size_t parallel = 1, const GpuProgress& = {}, const CancellationToken& = {});

}  // namespace ks::gpu
