// CompileCache: the results of recent compiles, by what they were compiled from.
//
// The key covers everything that changes generated code: the source text, the toolchain
// fingerprint and the options. The same key is never compiled twice while its result is
// cached (an undo, or switching an arch back and forth, is answered at once).
#pragma once

#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "Compile.h"

namespace ks {

/// A stable hash of everything a compile of `input` under `options` depends on. Reads the
/// file when `input.text` is empty; an unreadable file gives a key of its own.
std::string compileKey(const Toolchain&, const CompileInput&, const CompileOptions&);

class CompileCache {
 public:
  explicit CompileCache(size_t capacity = 32) : capacity_(capacity) {}

  std::shared_ptr<const CompileResult> find(const std::string& key);
  void insert(const std::string& key, std::shared_ptr<const CompileResult>);
  size_t size() const;

 private:
  using Entry = std::pair<std::string, std::shared_ptr<const CompileResult>>;
  mutable std::mutex mutex_;
  size_t capacity_;
  std::list<Entry> lru_;  // most recent first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
};

}  // namespace ks
