// CompileCache: see CompileCache.h.
#include "CompileCache.h"

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

}  // namespace

std::string compileKey(const Toolchain& tc, const CompileInput& input, const CompileOptions& opts) {
  Hasher a, b;  // two seeds make a 128-bit key: collisions are not a concern
  b.h ^= 0x9e3779b97f4a7c15ull;
  std::string text;
  if (input.text) {
    text = *input.text;
  } else {
    std::ifstream in(input.path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    text = in ? s.str() : "\x01unreadable";
  }
  std::ostringstream o;
  o << tc.fingerprint() << '|' << input.path.string() << '|' << opts.arch << '|' << opts.optLevel << '|'
    << opts.remarks << '|' << opts.toolTimeout.count();
  for (Stage s : opts.stages) o << '|' << stageName(s);
  for (const auto& f : opts.extraRustcFlags) o << '|' << f;
  for (Hasher* h : {&a, &b}) {
    h->add(o.str());
    h->add(text);
  }
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(a.h),
                static_cast<unsigned long long>(b.h));
  return buf;
}

std::shared_ptr<const CompileResult> CompileCache::find(const std::string& key) {
  std::lock_guard lock(mutex_);
  auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->second;
}

void CompileCache::insert(const std::string& key, std::shared_ptr<const CompileResult> result) {
  // A cancelled compile says nothing about its key; don't remember it.
  if (!result || result->cancelled || capacity_ == 0) return;
  std::lock_guard lock(mutex_);
  if (auto it = index_.find(key); it != index_.end()) {
    it->second->second = std::move(result);
    lru_.splice(lru_.begin(), lru_, it->second);
    return;
  }
  lru_.emplace_front(key, std::move(result));
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
