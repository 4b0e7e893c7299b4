// CompileCache: see CompileCache.h.
#include "CompileCache.h"

#include "Files.h"

#include <fstream>
#include <sstream>
#include <unordered_set>

namespace ks {

std::string compileKey(const Toolchain& tc, const CompileInput& input,
                       const ResolvedOptions& opts) {
  std::string text;
  if (input.text) {
    text = *input.text;
  } else {
    text = fileFingerprint(input.path, kMaxInputFileBytes);
  }
  std::ostringstream o;
  o << tc.fingerprint() << '|' << compileEnvironment() << '|' << input.path.string() << '|'
    << opts.arch << '|' << opts.optLevel << '|' << opts.remarks << '|' << opts.costs << '|'
    << opts.workspaceTrusted << '|' << opts.occupancyBlockSize << '|' << opts.toolTimeout.count()
    << '|' << profileName(opts.profile);
  for (Stage s : opts.stages) o << '|' << stageName(s);
  for (const auto& f : opts.extraRustcFlags) o << '|' << f;
  // A crate directory's files are the result's own (its dep-info); an rlib is read whole.
  for (const auto& e : opts.externCrates)
    o << "|extern " << e.name << '=' << e.path.string() << '='
      << stableDigest({fileFingerprint(e.path)});
  for (const auto& [path, overlay] : input.overlays)
    o << '|' << path.string() << '=' << stableDigest({overlay});
  return stableDigest({o.str(), text});
}

std::shared_ptr<const CompileResult> CompileCache::find(const std::string& key) {
  std::lock_guard lock(mutex_);
  auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  for (const auto& [path, hash] : it->second->second.files)
    if (stableDigest({fileFingerprint(path)}) != hash) {  // a module or dependency changed on disk
      lru_.erase(it->second);
      index_.erase(it);
      return nullptr;
    }
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->second.result;
}

namespace {

size_t stringBytes(const std::string& s) {
  return sizeof s + (s.capacity() > 15 ? s.capacity() : 0);
}

size_t chainBytes(const std::vector<Frame>& chain) {
  size_t n = chain.capacity() * sizeof(Frame);
  for (const Frame& f : chain)
    n += stringBytes(f.file) + stringBytes(f.function) - 2 * sizeof(std::string);
  return n;
}

/// The chains of `a` not counted yet: lines, stages and the line map share them.
size_t chainsBytes(const Artifact& a, std::unordered_set<const void*>& counted) {
  size_t n = 0;
  for (const ArtifactLine& l : a.lines())
    if (counted.insert(l.location.id()).second) n += chainBytes(l.location);
  return n;
}

}  // namespace

size_t footprint(const CompileResult& r) {
  size_t n = sizeof r;
  std::unordered_set<const void*> counted{nullptr};
  for (const auto& [stage, outcome] : r.stages) {
    const Artifact& a = *outcome.artifact;
    n += sizeof a + a.bytesHeld();
    size_t chains = chainsBytes(a, counted);
    n += chains;
    // The line map keeps an origin index per line and an origin (sharing the chain, with
    // the user frames) per distinct chain: at most about the chains' size again.
    if (outcome.available) n += a.lines().size() * sizeof(uint32_t) + chains;
  }
  for (const Diagnostic& d : r.diagnostics) n += sizeof d + d.message.capacity();
  for (const Remark& m : r.remarks) n += sizeof m + m.message.capacity();
  if (r.cubin) n += r.cubin->size();
  n += stringBytes(r.cubinProblem);
  for (const LinkedFunction& f : r.linkedFunctions)
    n += stringBytes(f.symbol) + stringBytes(f.demangled) + stringBytes(f.library);
  return n;
}

void CompileCache::insert(const std::string& key, std::shared_ptr<const CompileResult> result) {
  // Only code is remembered: a failure may be a killed or timed-out tool, worth retrying.
  if (!result || !result->succeeded || result->cancelled) return;
  Cached cached;
  cached.bytes = footprint(*result);
  for (const auto& f : result->sourceFiles)
    cached.files.emplace_back(f, stableDigest({fileFingerprint(f)}));
  cached.result = std::move(result);
  std::lock_guard lock(mutex_);
  if (cached.bytes > capacity_) return;
  if (auto it = index_.find(key); it != index_.end()) {
    bytes_ -= it->second->second.bytes;
    lru_.erase(it->second);
    index_.erase(it);
  }
  bytes_ += cached.bytes;
  lru_.emplace_front(key, std::move(cached));
  index_[key] = lru_.begin();
  evictBeyondCapacity();
}

void CompileCache::evictBeyondCapacity() {
  while (bytes_ > capacity_ && !lru_.empty()) {
    bytes_ -= lru_.back().second.bytes;
    index_.erase(lru_.back().first);
    lru_.pop_back();
  }
}

void CompileCache::setCapacity(size_t capacityBytes) {
  std::lock_guard lock(mutex_);
  capacity_ = capacityBytes;
  evictBeyondCapacity();
}

size_t CompileCache::size() const {
  std::lock_guard lock(mutex_);
  return lru_.size();
}

size_t CompileCache::bytes() const {
  std::lock_guard lock(mutex_);
  return bytes_;
}

}  // namespace ks
