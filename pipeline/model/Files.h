// Reading the user's files safely: only regular files, only up to a bound. And the one
// eviction policy of kernelscope's on-disk caches.
//
// Anything kernelscope reads because a path named it (the kernel given to the CLI, a
// workspace's kernelscope.toml, a crate's Cargo.toml) may be a FIFO that never delivers, a
// device that never ends (/dev/zero) or a directory. Those are refused with a message, and
// a file larger than the bound is refused rather than read into memory.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ks {

/// The largest kernel source, kernelscope.toml or Cargo.toml read (16 MiB).
inline constexpr uintmax_t kMaxInputFileBytes = uintmax_t{16} << 20;

struct FileText {
  std::string text;
  std::string error;     // non-empty: why nothing was read ("is a FIFO, not a regular file", ...)
  bool missing = false;  // the file does not exist
  bool ok() const { return error.empty(); }
};

/// The text of `path` if it is a regular file of at most `maxBytes`; otherwise the
/// reason. Never blocks: the file is opened non-blocking and checked before reading.
FileText readRegularFile(const std::filesystem::path& path,
                         uintmax_t maxBytes = kMaxInputFileBytes);

/// The largest file a tool writes that kernelscope reads (rustc's MIR and IR, nvdisasm's SASS:
/// tens of MB for a file of many kernels).
inline constexpr uintmax_t kMaxToolOutputBytes = uintmax_t{1} << 30;

/// A file a tool wrote, whole, read in one go as readRegularFile does; empty when it is
/// missing or cannot be read.
std::string readWholeFile(const std::filesystem::path& path);

/// What stands for a file when only a change of it matters (cache keys): the text of a
/// regular file up to `readAtMost` bytes, and for a larger one its size, modification time
/// and inode (a 1 GB data file in a path dependency is not read on every compile); a
/// marker for what is missing or not a regular file.
std::string fileFingerprint(const std::filesystem::path& path,
                            uintmax_t readAtMost = uintmax_t{1} << 20);

/// Why `path` (when it exists) is not something readRegularFile reads; nullopt when it is
/// a regular file within the bound, or absent.
std::optional<std::string> unreadableFileProblem(const std::filesystem::path& path,
                                                 uintmax_t maxBytes = kMaxInputFileBytes);

/// `name` + `.tmp-PID`: where this process builds `name` before renaming it into place, in
/// the form evictLeastRecentlyUsed knows when the process is killed first.
std::string stagingName(const std::string& name);

/// Adds `file` to the files a compile read (`sourceFiles`: a change to any of them makes
/// its result stale) unless it is listed already.
void addSourceFile(std::vector<std::filesystem::path>& sourceFiles, std::filesystem::path file);

/// Keeps a cache directory whose entries are its subdirectories (the rlib cache, the cargo
/// mirrors and target dirs) within `maxBytes`, counting every file under an entry (symlinks
/// not followed). An entry's last use is its directory's modification time (its users touch
/// it); those used longest ago go first, never `keep`, one used in the last ten minutes (a
/// compile may be using it) nor a staging directory (`.tmp-` in its name). With `ours`, only
/// the subdirectories it recognises are counted and removed: what else is there was not made
/// by kernelscope. Staging paths (`NAME.tmp-PID...`, stagingName) whose maker has ended, or
/// that are a day old, are removed whatever the bound: a killed kernelscope leaves them.
/// Returns how many entries were removed.
size_t evictLeastRecentlyUsed(const std::filesystem::path& dir, uintmax_t maxBytes,
                              const std::filesystem::path& keep = {},
                              const std::function<bool(const std::filesystem::path&)>& ours = {});

/// A cache's bound in bytes: the environment variable `variable` in MiB, else `defaultMiB`.
uintmax_t cacheBoundBytes(const char* variable, uintmax_t defaultMiB);

/// Writes `text` beside `path` and renames it over `path`: a reader sees the old file or the
/// new one, whole, and a failed write (a full disk) leaves the old one and no staging file.
/// The problem, or "".
std::string writeFileAtomically(const std::filesystem::path& path, std::string_view text);

}  // namespace ks
