// The on-disk cache of toolchain discovery (discoverToolchain, Toolchain.h).
//
// Discovery runs every candidate tool (`rustc -vV`, `ptxas --version`, ...) and reads the
// sysroot's archives: 0.1-0.3 s, on every CLI run. Its result is kept under
// `<cache>/toolchain/` with the state (lstat and stat: type, size, modification time, inode)
// of every path discovery looked at: the tools, the directories searched (PATH's among them),
// the sysroot's files. A cached result is used only while every one of those paths is as it
// was; anything else (a new tool on PATH, an upgraded rustc, a rebuilt core, a damaged or
// unreadable cache file) discovers afresh.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "Toolchain.h"

namespace ks {

/// The paths discovery looked at, whose state a cached result depends on.
class DiscoveryWitnesses {
 public:
  void add(const std::filesystem::path& p) { paths_.push_back(p); }
  const std::vector<std::filesystem::path>& paths() const { return paths_; }

 private:
  std::vector<std::filesystem::path> paths_;
};

/// The cached toolchain in `file`, when every path it was discovered from is unchanged.
std::optional<Toolchain> loadCachedToolchain(const std::filesystem::path& file);

/// Writes `tc` and the state of `witnesses` to `file` (whole, through a rename); a cache
/// that cannot be written is left alone (discovery then runs each time).
void storeCachedToolchain(const std::filesystem::path& file, const Toolchain& tc,
                          const DiscoveryWitnesses& witnesses);

}  // namespace ks
