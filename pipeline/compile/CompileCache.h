// CompileCache: the results of recent compiles, by what they were compiled from.
//
// The key covers what the caller hands the compiler: the source text (and unsaved texts of
// other files), the toolchain fingerprint, the environment that decides the tools
// (compileEnvironment) and the options. The other files a result was
// built from (modules, path dependencies: CompileResult::sourceFiles) are checked on every
// hit, so a change on disk is never answered from the cache. The same key is never
// compiled twice while its result is cached (an undo, or switching an arch back and forth,
// is answered at once).
#pragma once

#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "Compile.h"
#include "StableHash.h"

namespace ks {

/// A stable hash of everything a compile of `input` under `options` depends on. Reads the
/// file when `input.text` is empty; an unreadable file gives a key of its own.
std::string compileKey(const Toolchain&, const CompileInput&, const ResolvedOptions&);

/// About how many bytes `result` holds (its artifacts, line map, diagnostics and remarks).
size_t footprint(const CompileResult&);

/// The bound of the language server's cache unless the user sets `compileCacheMB`.
inline constexpr size_t kDefaultCompileCacheMB = 64;

/// Keeps the most recently used results while their footprints add up to at most
/// `capacityBytes` (a result larger than that is not kept), evicting the least recent.
class CompileCache {
 public:
  explicit CompileCache(size_t capacityBytes = kDefaultCompileCacheMB << 20)
      : capacity_(capacityBytes) {}

  std::shared_ptr<const CompileResult> find(const std::string& key);
  void insert(const std::string& key, std::shared_ptr<const CompileResult>);
  /// A new bound; results beyond it are evicted at once, least recent first.
  void setCapacity(size_t capacityBytes);
  size_t size() const;
  /// The footprints of the results kept, added up.
  size_t bytes() const;

 private:
  struct Cached {
    std::shared_ptr<const CompileResult> result;
    size_t bytes = 0;
    std::vector<std::pair<std::filesystem::path, std::string>> files;  // path, content hash
  };
  using Entry = std::pair<std::string, Cached>;
  void evictBeyondCapacity();  // with mutex_ held

  mutable std::mutex mutex_;
  size_t capacity_;
  size_t bytes_ = 0;
  std::list<Entry> lru_;  // most recent first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
};

}  // namespace ks
