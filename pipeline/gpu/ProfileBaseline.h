// Profile baselines across edits: each profile of a kernel is kept (per file, kernel and
// spec, in kernelscope's cache directory), and the next one shows per source line what
// changed since: stall samples and share, instructions, L2 sectors. Lines are matched
// through the edit as a diff matches them (EditScript.h, Myers over the two source texts),
// so a line that moved keeps its history and a new line has none.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "LineProfile.h"

namespace ks::gpu {

/// What is kept of one profile: the kernel file's text then, and its lines' counters.
struct ProfileSnapshot {
  std::string file;    // the kernel file (absolute)
  std::string kernel;  // its symbol
  std::string spec;    // the evaluated spec's items, "k = v; ..."
  std::string source;  // the file's text when it was profiled
  double totalSamples = 0;
  struct Line {
    uint32_t line = 0;  // 1-based, in `source`
    double stallSamples = 0;
    double share = 0;  // of the kernel's stall samples
    size_t instructions = 0;
    double l2Sectors = 0;
  };
  std::vector<Line> lines;  // lines of `file` with counters
};

ProfileSnapshot snapshotOf(const KernelLineProfile&, const std::string& file,
                           const std::string& source, const std::string& spec);
std::string encodeSnapshot(const ProfileSnapshot&);
/// Reads a kept snapshot, or `profile --json`'s output (its "snapshot"); "" when done.
std::string decodeSnapshot(std::string_view text, ProfileSnapshot& out);

/// One line of the new profile against the baseline.
struct LineDelta {
  uint32_t line = 0;                   // in the new source
  std::optional<uint32_t> beforeLine;  // the matched line of the baseline's source
  ProfileSnapshot::Line before, after;
  /// "−40% stalls since last profile" (`since`: "last profile", "baseline").
  std::string hint(const std::string& since) const;
  /// The change in stall samples, relative (-0.4: 40% fewer); nullopt without a baseline.
  std::optional<double> stallChange() const;
};

/// Every line with counters in either profile, in the new source's order (lines only the
/// baseline had, deleted by the edit, have line 0 and come last).
std::vector<LineDelta> compareProfiles(const ProfileSnapshot& before, const ProfileSnapshot& after);

/// Where the last profile of (file, kernel, spec) is kept under `cacheDir`.
std::filesystem::path keptProfilePath(const std::filesystem::path& cacheDir,
                                      const ProfileSnapshot&);
/// Keeps `s` as the last profile of its (file, kernel, spec), the directory bounded to
/// kMaxKeptProfiles (the oldest go). Returns the problem ("" when kept).
std::string keepProfile(const std::filesystem::path& cacheDir, const ProfileSnapshot& s);
inline constexpr size_t kMaxKeptProfiles = 200;

}  // namespace ks::gpu
