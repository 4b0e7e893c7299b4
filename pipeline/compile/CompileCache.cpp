// CompileCache: see CompileCache.h.
#include "CompileCache.h"

#include "Files.h"

#include <fstream>
#include <sstream>

namespace ks {

namespace {

struct Hasher {
  uint64_t h = 1469598103934665603ull;
  void add(std::string_view s) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    h = (h ^ 0xff) * 1099511628211ull;  // a separator, so "ab"+"c" differs from "a"+"bc"
  }
};

std::string contentHash(const std::string& text) {
  Hasher h;
  h.add(text);
  return std::to_string(h.h);
}

}  // namespace

std::string stableDigest(const std::vector<std::string_view>& parts) {
  Hasher a, b;  // two seeds make a 128-bit key: collisions are not a concern
  b.h ^= 0x9e3779b97f4a7c15ull;
  for (Hasher* h : {&a, &b})
    for (auto part : parts) h->add(part);
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(a.h),
                static_cast<unsigned long long>(b.h));
  return buf;
}

std::string compileKey(const Toolchain& tc, const CompileInput& input, const CompileOptions& opts) {
  std::string text;
  if (input.text) {
    text = *input.text;
  } else {
    text = fileFingerprint(input.path, kMaxInputFileBytes);
  }
  std::ostringstream o;
  o << tc.fingerprint() << '|' << input.path.string() << '|' << opts.arch << '|' << opts.optLevel
    << '|' << opts.remarks << '|' << opts.workspaceTrusted << '|' << opts.occupancyBlockSize << '|'
    << opts.toolTimeout.count() << '|' << (opts.profile ? profileName(*opts.profile) : "default");
  for (Stage s : opts.stages) o << '|' << stageName(s);
  for (const auto& f : opts.extraRustcFlags) o << '|' << f;
  for (const auto& [path, overlay] : input.overlays) o << '|' << path.string() << '=' << contentHash(overlay);
  return stableDigest({o.str(), text});
}

std::shared_ptr<const CompileResult> CompileCache::find(const std::string& key) {
  std::lock_guard lock(mutex_);
  auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  for (const auto& [path, hash] : it->second->second.files)
    if (contentHash(fileFingerprint(path)) != hash) {  // a module or dependency changed on disk
      lru_.erase(it->second);
      index_.erase(it);
      return nullptr;
    }
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->second.result;
}

void CompileCache::insert(const std::string& key, std::shared_ptr<const CompileResult> result) {
  // Only code is remembered: a failure may be a killed or timed-out tool, worth retrying.
  if (!result || !result->succeeded || result->cancelled || capacity_ == 0) return;
  Cached cached;
  for (const auto& f : result->sourceFiles)
    cached.files.emplace_back(f, contentHash(fileFingerprint(f)));
  cached.result = std::move(result);
  std::lock_guard lock(mutex_);
  if (auto it = index_.find(key); it != index_.end()) {
    it->second->second = std::move(cached);
    lru_.splice(lru_.begin(), lru_, it->second);
    return;
  }
  lru_.emplace_front(key, std::move(cached));
  index_[key] = lru_.begin();
  while (lru_.size() > capacity_) {
    index_.erase(lru_.back().first);
    lru_.pop_back();
  }
}

size_t CompileCache::size() const {
  std::lock_guard lock(mutex_);
  return lru_.size();
}

}  // namespace ks
