// KernelImages: what ptxas and nvdisasm made of each group of kernels, kept by its PTX.
//
// The back end (internal/PtxBackend.h) assembles the kernels in groups of about ten, each in
// a PTX module of its own (the header, the `.file` table, the kernels with the functions and
// globals they reach: internal/KernelModules.h), one ptxas and one nvdisasm each, in
// parallel up to the cores (more groups than cores: one merged module per core, each
// group's image cut from it, its cubin the merged one). A KernelImageCache keeps what they printed
// and the cubin, keyed by that module's text, the tools and their options: a group whose code an
// edit left alone is neither assembled nor disassembled again. In memory (least recently used first
// beyond a bound) and, when given a directory, on disk (one directory per entry, written whole,
// within a bound by evictLeastRecentlyUsed). Safe to call from several threads.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace ks {

/// ptxas's and nvdisasm's work on one group's module.
struct KernelImage {
  std::string report;                   // what ptxas printed (-v: the resources)
  bool relocatable = false;             // assembled with -c: it calls what it lacks
  std::vector<std::string> unresolved;  // what ptxas said it could not resolve
  /// Shared by the groups cut from one merged module (the cache counts it once).
  std::shared_ptr<const std::string> cubin;
  std::optional<std::string> sass;  // nvdisasm -c -g -gi, once it ran
};

class KernelImageCache {
 public:
  /// `dir` empty: memory only.
  explicit KernelImageCache(size_t memoryBytes, std::filesystem::path dir = {},
                            uintmax_t diskBytes = 0);

  /// The image kept under `key` (memory first, then disk); null when there is none.
  std::shared_ptr<const KernelImage> find(const std::string& key);
  /// Keeps `image` under `key`, in memory and on disk.
  void insert(const std::string& key, std::shared_ptr<const KernelImage> image);

  struct Counters {
    std::atomic<size_t> hits{0}, misses{0};
  };
  const Counters& counters() const { return counters_; }

 private:
  using Entry = std::pair<std::string, std::shared_ptr<const KernelImage>>;
  void keepInMemory(const std::string& key, std::shared_ptr<const KernelImage> image);
  std::shared_ptr<const KernelImage> load(const std::string& key) const;
  /// The bytes `image` adds to the memory held, its cubin counted by the first image holding
  /// it; release() takes back what hold() added. Under mutex_.
  size_t hold(const KernelImage& image);
  size_t release(const KernelImage& image);
  void save(const std::string& key, const KernelImage& image) const;

  std::mutex mutex_;
  size_t capacity_, bytes_ = 0;
  std::list<Entry> lru_;  // most recent first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
  std::unordered_map<const std::string*, size_t> cubinHolders_;  // cubin -> images holding it
  std::filesystem::path dir_;
  uintmax_t diskBytes_;
  Counters counters_;
};

/// The bound of an engine's kernel images in memory: about ten groups' (an 80-kernel file's
/// and an edit's new ones); the older ones come back from disk when an edit is undone.
inline constexpr size_t kDefaultKernelImagesMB = 16;
/// The bound of the kernel images on disk unless KERNELSCOPE_KERNEL_CACHE_MB says otherwise.
inline constexpr uintmax_t kDefaultKernelImagesDiskMB = 256;

}  // namespace ks
