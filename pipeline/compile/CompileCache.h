// CompileCache: the results of recent compiles, by what they were compiled from.
//
// The key covers what the caller hands the compiler: the source text (and unsaved texts of
// other files), the toolchain fingerprint, the environment that decides the tools
// (compileEnvironment) and the options. The other files a result was
// built from (modules, path dependencies: CompileResult::sourceFiles) are checked on every
// hit, so a change on disk is never answered from the cache. The same key is never
// compiled twice while its result is cached (an undo, or switching an arch back and forth,
// is answered at once). A result parked by its holder (Engine::park) is kept parked and
// brought back by the next find of its key.
#pragma once

#include <functional>
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

/// About how many bytes `result` holds (its artifacts, line map, diagnostics and remarks),
/// each artifact counted once however many stages or results share it.
size_t footprint(const CompileResult&);
/// About how many bytes `artifact` holds: its text, line index, lines and chains, and with
/// `mapped` its stage's part of a line map.
size_t footprint(const Artifact&, bool mapped);

/// Makes each stage of `result` whose artifact is equal to that stage's in `earlier` (text,
/// lines, locations and functions) share `earlier`'s artifact instead of holding a copy: an
/// edit that leaves a stage unchanged (an option the code does not depend on, a comment past
/// the last line of code, MIR across an arch switch) costs no memory for it. Returns the
/// stages shared.
size_t shareUnchangedArtifacts(CompileResult& result, const CompileResult& earlier);

/// The bound of the language server's cache unless the user sets `compileCacheMB`.
inline constexpr size_t kDefaultCompileCacheMB = 64;

/// Keeps the most recently used results while their footprints add up to at most
/// `capacityBytes` (a result larger than that is not kept), evicting the least recent. An
/// artifact that several kept results share (shareUnchangedArtifacts) counts once. Parked
/// results are bounded apart, by their parked bytes, at a kParkedShare-th of that: each edit
/// of a large file parks one (about 3% of it), and a bound shared with the live results let
/// them pile up to the whole of it.
class CompileCache {
 public:
  explicit CompileCache(size_t capacityBytes = kDefaultCompileCacheMB << 20)
      : capacity_(capacityBytes) {}

  std::shared_ptr<const CompileResult> find(const std::string& key);
  void insert(const std::string& key, std::shared_ptr<const CompileResult>);
  /// What a parked entry gives back: the result as it was, or nullptr when it cannot.
  using Unpark = std::function<std::shared_ptr<const CompileResult>()>;
  /// Keeps `result`'s entry, if there is one, as `unpark` instead, counted as `bytes` (a
  /// parked result, Engine::park); the next find of its key brings it back.
  void park(const CompileResult* result, Unpark unpark, size_t bytes);
  /// A new bound; results beyond it are evicted at once, least recent first.
  void setCapacity(size_t capacityBytes);
  size_t size() const;
  /// The footprints of the results kept, added up (parked ones: parkedBytes).
  size_t bytes() const;
  /// The parked results' bytes, added up.
  size_t parkedBytes() const;
  static constexpr size_t kParkedShare = 8;

 private:
  struct Cached {
    std::shared_ptr<const CompileResult> result;  // nullptr while parked
    Unpark unpark;                                // set while parked
    size_t ownBytes = 0;                          // its footprint besides its artifacts
    std::vector<std::pair<const Artifact*, size_t>> artifacts;  // each stage's, its footprint
    std::vector<std::pair<std::filesystem::path, std::string>> files;  // path, content hash
  };
  /// An artifact of the kept results, counted in bytes_ once.
  struct KeptArtifact {
    size_t bytes = 0;
    size_t users = 0;  // the stages of kept results that hold it
  };
  using Entry = std::pair<std::string, Cached>;
  /// Sets `cached`'s result and what it counts (besides its files); returns its footprint,
  /// each artifact once.
  static size_t measure(Cached& cached, std::shared_ptr<const CompileResult> result);
  // With mutex_ held:
  void count(const Cached&);
  void uncount(const Cached&);
  void erase(std::list<Entry>::iterator);
  void evictBeyondCapacity();

  mutable std::mutex mutex_;
  size_t capacity_;
  size_t bytes_ = 0;
  size_t parkedBytes_ = 0;
  std::list<Entry> lru_;  // most recent first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
  std::unordered_map<const Artifact*, KeptArtifact> artifacts_;
};

}  // namespace ks
