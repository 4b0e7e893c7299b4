// CompileCache: see CompileCache.h.
#include "CompileCache.h"

#include "Files.h"

#include <algorithm>
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
  std::unique_lock lock(mutex_);
  auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  for (const auto& [path, hash] : it->second->second.files)
    if (stableDigest({fileFingerprint(path)}) != hash) {  // a module or dependency changed on disk
      erase(it->second);
      return nullptr;
    }
  lru_.splice(lru_.begin(), lru_, it->second);
  if (it->second->second.result) return it->second->second.result;
  // Parked: brought back without the lock (it takes a while), then kept as it was before.
  const Unpark unpark = it->second->second.unpark;
  lock.unlock();
  auto result = unpark();
  lock.lock();
  it = index_.find(key);
  if (it == index_.end() || it->second->second.result) return result;  // gone, or back already
  if (!result) {  // its bytes no longer read back
    erase(it->second);
    return nullptr;
  }
  Cached& cached = it->second->second;
  uncount(cached);
  cached.unpark = nullptr;
  measure(cached, std::move(result));
  count(cached);
  result = cached.result;
  evictBeyondCapacity();
  return result;
}

namespace {

size_t stringBytes(const std::string& s) {
  return sizeof s + (s.capacity() > 15 ? s.capacity() : 0);
}

/// The heap of shared texts (SharedString), each counted once: an artifact's chains share
/// their frames' files and functions, the remarks their functions and messages.
class SharedTextBytes {
 public:
  size_t operator()(const SharedString& s) {
    // make_shared's block: the string and the counts.
    return counted_.insert(s.id()).second ? stringBytes(s) + 2 * sizeof(long) : 0;
  }

 private:
  std::unordered_set<const void*> counted_{nullptr};
};

size_t frameBytes(const Frame& f, SharedTextBytes& texts) {
  return sizeof f + texts(f.file) + texts(f.function);
}

size_t chainBytes(const std::vector<Frame>& chain, SharedTextBytes& texts) {
  // make_shared's block (the vector and the counts) and the frames' own allocation.
  size_t n = sizeof chain + 2 * sizeof(long) + (chain.capacity() - chain.size()) * sizeof(Frame);
  for (const Frame& f : chain) n += frameBytes(f, texts);
  return n;
}

/// The chains of `a`, each counted once (its lines share them), and how many there are.
std::pair<size_t, size_t> chainsBytes(const Artifact& a) {
  std::unordered_set<const void*> counted{nullptr};
  SharedTextBytes texts;
  size_t n = 0;
  for (const ArtifactLine& l : a.lines())
    if (counted.insert(l.location.id()).second) n += chainBytes(l.location, texts);
  return {n, counted.size() - 1};
}

size_t sourceLinesBytes(const SourceLine& l, const std::vector<SourceLine>& callSites) {
  size_t n = stringBytes(l.file) + callSites.capacity() * sizeof(SourceLine);
  for (const SourceLine& c : callSites) n += stringBytes(c.file) - sizeof(std::string);
  return n;
}

/// What the costs hold: a cost per SASS line, the accesses and branches with their lines.
size_t costsBytes(const SassCosts& c) {
  size_t n = sizeof c + c.lines.capacity() * sizeof(InstructionCost);
  for (const MemoryAccess& a : c.access.accesses)
    n += sizeof a + stringBytes(a.function) + sourceLinesBytes(a.line, a.callSites) +
         stringBytes(a.op) + stringBytes(a.space) + stringBytes(a.type) +
         stringBytes(a.symbolicStride) - 6 * sizeof(std::string);
  for (const DivergentBranch& b : c.access.branches)
    n += sizeof b + stringBytes(b.function) + sourceLinesBytes(b.line, b.callSites) -
         2 * sizeof(std::string);
  for (const LocalArray& a : c.arrays)
    n += sizeof a + stringBytes(a.function) + stringBytes(a.name);
  return n;
}

/// What `r` holds besides its stages' artifacts.
size_t footprintBesidesArtifacts(const CompileResult& r) {
  size_t n = sizeof r + (r.costs ? costsBytes(*r.costs) : 0);
  for (const Diagnostic& d : r.diagnostics) n += sizeof d + d.message.capacity();
  SharedTextBytes texts;
  for (const Remark& m : r.remarks) {
    n += sizeof m + stringBytes(m.pass) + stringBytes(m.name) - 2 * sizeof(std::string) +
         texts(m.function) + texts(m.message);
    for (const auto* f : {&m.location, &m.userLocation})
      if (*f) n += frameBytes(**f, texts) - sizeof(Frame);
  }
  std::unordered_set<const std::string*> cubins;  // a group's kernels share theirs
  for (const auto& [kernel, cubin] : r.cubins) {
    n += stringBytes(kernel) + 4 * sizeof(void*);  // a map node
    if (cubin && cubins.insert(cubin.get()).second) n += cubin->size();
  }
  n += stringBytes(r.cubinProblem);
  for (const LinkedFunction& f : r.linkedFunctions)
    n += stringBytes(f.symbol) + stringBytes(f.demangled) + stringBytes(f.library);
  return n;
}

bool sameFunction(const ArtifactFunction& a, const ArtifactFunction& b) {
  return a.symbol == b.symbol && a.demangled == b.demangled && a.firstLine == b.firstLine &&
         a.lastLine == b.lastLine && a.isKernel == b.isKernel && a.definition == b.definition;
}

bool sameArtifact(const Artifact& a, const Artifact& b) {
  if (a.stage != b.stage || a.text() != b.text() || a.functions.size() != b.functions.size())
    return false;
  for (size_t i = 0; i < a.functions.size(); ++i)
    if (!sameFunction(a.functions[i], b.functions[i])) return false;
  const auto al = a.lines(), bl = b.lines();
  for (size_t i = 0; i < al.size(); ++i)  // as many lines: the texts are equal
    if (al[i].kind != bl[i].kind || al[i].source != bl[i].source ||
        al[i].function != bl[i].function || !(al[i].location == bl[i].location))
      return false;
  return true;
}

}  // namespace

size_t footprint(const Artifact& a, bool mapped) {
  const auto [chainBytes, chains] = chainsBytes(a);
  size_t n = sizeof a + a.bytesHeld() + chainBytes;
  // The line map keeps an origin index per line, an origin per distinct chain (sharing the
  // chain; its user frames, which share their texts: about 160 bytes), and each line again
  // under the source lines it is on or inlined through (about two of them).
  if (mapped) n += a.lines().size() * 3 * sizeof(uint32_t) + chains * 160;
  return n;
}

size_t footprint(const CompileResult& r) {
  size_t n = footprintBesidesArtifacts(r);
  std::unordered_set<const Artifact*> counted;
  for (const auto& [stage, outcome] : r.stages)
    if (counted.insert(outcome.artifact.get()).second)
      n += footprint(*outcome.artifact, outcome.available);
  return n;
}

size_t shareUnchangedArtifacts(CompileResult& result, const CompileResult& earlier) {
  size_t shared = 0;
  for (auto& [stage, outcome] : result.stages) {
    const StageOutcome* then = earlier.stage(stage);
    if (!then || then->available != outcome.available || then->artifact == outcome.artifact ||
        !sameArtifact(*then->artifact, *outcome.artifact))
      continue;
    outcome.artifact = then->artifact;
    ++shared;
  }
  return shared;
}

size_t CompileCache::measure(Cached& cached, std::shared_ptr<const CompileResult> result) {
  cached.ownBytes = footprintBesidesArtifacts(*result);
  cached.artifacts.clear();
  size_t total = cached.ownBytes;
  for (const auto& [stage, outcome] : result->stages) {
    const Artifact* artifact = outcome.artifact.get();
    const size_t bytes = footprint(*artifact, outcome.available);
    if (std::none_of(cached.artifacts.begin(), cached.artifacts.end(),
                     [artifact](const auto& a) { return a.first == artifact; }))
      total += bytes;
    cached.artifacts.emplace_back(artifact, bytes);
  }
  cached.result = std::move(result);
  return total;
}

void CompileCache::insert(const std::string& key, std::shared_ptr<const CompileResult> result) {
  // Only code is remembered: a failure may be a killed or timed-out tool, worth retrying.
  if (!result || !result->succeeded || result->cancelled) return;
  Cached cached;
  for (const auto& f : result->sourceFiles)
    cached.files.emplace_back(f, stableDigest({fileFingerprint(f)}));
  const size_t total = measure(cached, std::move(result));
  std::lock_guard lock(mutex_);
  if (total > capacity_) return;
  if (auto it = index_.find(key); it != index_.end()) erase(it->second);
  count(cached);
  lru_.emplace_front(key, std::move(cached));
  index_[key] = lru_.begin();
  evictBeyondCapacity();
}

void CompileCache::count(const Cached& cached) {
  (cached.result ? bytes_ : parkedBytes_) += cached.ownBytes;
  for (const auto& [artifact, bytes] : cached.artifacts) {
    KeptArtifact& kept = artifacts_[artifact];
    if (kept.users++ == 0) {
      kept.bytes = bytes;
      bytes_ += bytes;
    }
  }
}

void CompileCache::uncount(const Cached& cached) {
  (cached.result ? bytes_ : parkedBytes_) -= cached.ownBytes;
  for (const auto& [artifact, bytes] : cached.artifacts) {
    auto it = artifacts_.find(artifact);
    if (--it->second.users > 0) continue;
    bytes_ -= it->second.bytes;
    artifacts_.erase(it);
  }
}

void CompileCache::erase(std::list<Entry>::iterator it) {
  uncount(it->second);
  index_.erase(it->first);
  lru_.erase(it);
}

void CompileCache::evictBeyondCapacity() {
  // The least recent of each kind first: a parked result frees next to nothing of the
  // results' bound, and a live one nothing of the parked results'.
  auto evict = [this](const size_t& kept, size_t bound, bool parked) {
    for (auto it = lru_.end(); kept > bound && it != lru_.begin();) {
      auto here = std::prev(it);
      if (!here->second.result == parked)
        erase(here);
      else
        it = here;
    }
  };
  evict(bytes_, capacity_, false);
  evict(parkedBytes_, capacity_ / kParkedShare, true);
}

void CompileCache::park(const CompileResult* result, Unpark unpark, size_t bytes) {
  std::lock_guard lock(mutex_);
  auto it = std::find_if(lru_.begin(), lru_.end(),
                         [result](const Entry& e) { return e.second.result.get() == result; });
  if (it == lru_.end()) return;
  Cached& cached = it->second;
  uncount(cached);
  cached.result = nullptr;
  cached.artifacts.clear();
  cached.ownBytes = bytes;
  cached.unpark = std::move(unpark);
  count(cached);
  evictBeyondCapacity();
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

size_t CompileCache::parkedBytes() const {
  std::lock_guard lock(mutex_);
  return parkedBytes_;
}

}  // namespace ks
