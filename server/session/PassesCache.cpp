// kernelscope/passes: the cache of runs per Snapshot and kernel. See PassesCache.h.
#include "PassesCache.h"

namespace ks::server {

PassesCache::PassesCache(PassesFunction compute, PostFunction post, bool runInline)
    : compute_(std::move(compute)), runs_(std::move(post), runInline) {}

void PassesCache::prune() {
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (it->second->snapshot.expired()) {
      runs_.cancel(it->second->run);
      for (auto& [id, reply] : it->second->waiting) reply(nullptr);
      it = entries_.erase(it);
    } else {
      ++it;
    }
  }
}

void PassesCache::get(const std::shared_ptr<const Snapshot>& snapshot, const CompileInput& input,
                      const CompileOptions& options, const std::string& kernel,
                      const std::string& requestId, Reply reply) {
  prune();
  const Key key{snapshot.get(), kernel};
  auto& entry = entries_[key];
  if (entry && entry->result) return reply(entry->result.get());
  const bool start = !entry;
  if (start) {
    entry = std::make_shared<Entry>();
    entry->snapshot = snapshot;
  }
  entry->waiting.emplace_back(requestId, std::move(reply));
  if (!start) return;  // a run for it is in flight already
  entry->run = "passes " + std::to_string(++started_);
  runs_.start<PassesResult>(
      entry->run,
      [compute = compute_, input, options, kernel](const CancellationToken& token) {
        return compute(input, options, kernel, token);
      },
      [this, key, run = entry](PassesResult result) {
        finish(key, run, std::make_shared<const PassesResult>(std::move(result)));
      });
}

void PassesCache::finish(const Key& key, const std::shared_ptr<Entry>& run,
                         std::shared_ptr<const PassesResult> result) {
  auto it = entries_.find(key);
  if (it == entries_.end() || it->second != run) return;  // pruned, or cancelled and started again
  std::shared_ptr<Entry> e = it->second;
  auto waiting = std::move(e->waiting);
  e->waiting.clear();
  if (result->cancelled) {
    entries_.erase(it);  // not a result: the next request runs it again
  } else {
    e->result = result;
  }
  for (auto& [id, reply] : waiting) reply(result->cancelled ? nullptr : result.get());
}

bool PassesCache::cancel(const std::string& requestId) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    auto& waiting = it->second->waiting;
    for (auto w = waiting.begin(); w != waiting.end(); ++w) {
      if (w->first != requestId) continue;
      Reply reply = std::move(w->second);
      waiting.erase(w);
      if (waiting.empty() && !it->second->result) {  // nobody waits: stop its rustc
        runs_.cancel(it->second->run);
        entries_.erase(it);
      }
      reply(nullptr);
      return true;
    }
  }
  return false;
}

}  // namespace ks::server
