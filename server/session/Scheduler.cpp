// Scheduler: debounce, coalescing, cancellation and the worker pool.
#include "Scheduler.h"

#include <algorithm>
#include <atomic>

namespace ks::server {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

namespace {
// Compile times remembered per document for the adaptive debounce.
constexpr size_t kHistory = 5;
}  // namespace

milliseconds DebouncePolicy::compute(const std::vector<milliseconds>& history) const {
  if (fixed) return *fixed;
  if (history.empty()) return max;
  std::vector<milliseconds> sorted = history;
  std::sort(sorted.begin(), sorted.end());
  auto median = sorted[sorted.size() / 2];
  auto scaled =
      milliseconds(static_cast<long long>(static_cast<double>(median.count()) * rebuildRatio));
  return std::clamp(scaled, min, max);
}

struct Scheduler::Shared {
  std::atomic<bool> alive{true};
  std::atomic<int> outstanding{0};  // posted tasks not yet run
};

Scheduler::Scheduler(CompileFunction compile, PostFunction post, SchedulerListener listener,
                     SchedulerOptions options)
    : compile_(std::move(compile)),
      post_(std::move(post)),
      listener_(std::move(listener)),
      options_(options),
      shared_(std::make_shared<Shared>()) {
  for (unsigned i = 0; i < options_.workers; ++i) workers_.emplace_back([this] { workerLoop(); });
}

Scheduler::~Scheduler() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    for (auto& [key, running] : running_) running.token.cancel();
  }
  cv_.notify_all();
  for (auto& w : workers_) w.join();
  shared_->alive = false;
}

void Scheduler::setDebounce(DebouncePolicy policy) {
  std::lock_guard lock(mutex_);
  options_.debounce = policy;
}

milliseconds Scheduler::debounceLocked(const std::string& key) const {
  auto it = history_.find(key);
  return options_.debounce.compute(it == history_.end() ? std::vector<milliseconds>{} : it->second);
}

bool Scheduler::schedule(CompileRequest request) {
  std::string key = request.key;
  {
    std::lock_guard lock(mutex_);
    if (auto it = running_.find(key); it != running_.end()) {
      if (it->second.revision == request.revision) return false;  // already compiling it
      if (it->second.revision < request.revision) it->second.token.cancel();
    }
    auto due = request.immediate ? Clock::now() : Clock::now() + debounceLocked(key);
    pending_[key] = Pending{std::move(request), due};
  }
  if (options_.workers == 0) {
    // Run from the io thread's queue; a later request for the same key that arrives
    // first replaces this one, which then finds nothing pending.
    std::shared_ptr<Shared> shared = shared_;
    ++shared->outstanding;
    post_([this, shared, key] {
      if (shared->alive) runInline(key);
      --shared->outstanding;
    });
    return true;
  }
  cv_.notify_all();
  return true;
}

void Scheduler::cancel(const std::string& key) {
  std::lock_guard lock(mutex_);
  pending_.erase(key);
  if (auto it = running_.find(key); it != running_.end()) it->second.token.cancel();
}

bool Scheduler::idle() const {
  std::lock_guard lock(mutex_);
  return pending_.empty() && running_.empty() && shared_->outstanding == 0;
}

Scheduler::Stats Scheduler::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void Scheduler::runInline(const std::string& key) {
  CompileRequest request;
  CancellationToken token;
  {
    std::lock_guard lock(mutex_);
    auto it = pending_.find(key);
    if (it == pending_.end()) return;
    request = std::move(it->second.request);
    pending_.erase(it);
    running_[key] = Running{request.revision, token};
    ++stats_.started;
  }
  execute(std::move(request), token);
}

void Scheduler::workerLoop() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    auto now = Clock::now();
    std::optional<Clock::time_point> nextDue;
    const std::string* chosen = nullptr;
    Clock::time_point chosenDue;
    for (auto& [key, p] : pending_) {
      if (running_.count(key)) continue;  // waits for the running compile to stop
      if (p.due <= now) {
        if (!chosen || p.due < chosenDue) {
          chosen = &key;
          chosenDue = p.due;
        }
      } else if (!nextDue || p.due < *nextDue) {
        nextDue = p.due;
      }
    }
    if (chosen) {
      auto node = pending_.extract(*chosen);
      CompileRequest request = std::move(node.mapped().request);
      CancellationToken token;
      running_[request.key] = Running{request.revision, token};
      ++stats_.started;
      lock.unlock();
      execute(std::move(request), token);
      lock.lock();
      continue;
    }
    if (nextDue)
      cv_.wait_until(lock, *nextDue);
    else
      cv_.wait(lock);
  }
}

void Scheduler::execute(CompileRequest request, CancellationToken token) {
  std::shared_ptr<Shared> shared = shared_;
  auto postTask = [&](std::function<void()> fn) {
    ++shared->outstanding;
    post_([shared, fn = std::move(fn)] {
      if (shared->alive) fn();
      --shared->outstanding;
    });
  };
  auto sharedRequest = std::make_shared<const CompileRequest>(std::move(request));
  const CompileRequest& req = *sharedRequest;
  const std::string& key = req.key;
  const int revision = req.revision;
  postTask([this, sharedRequest] {
    if (listener_.started) listener_.started(*sharedRequest);
  });

  auto start = Clock::now();
  CompileOptions options = req.options;
  if (listener_.published)
    options.onStages = [&](std::shared_ptr<const CompileResult> partial) {
      if (token.cancelled()) return;
      auto elapsed = std::chrono::duration_cast<milliseconds>(Clock::now() - start);
      postTask([this, sharedRequest, partial = std::move(partial), elapsed, token] {
        if (!token.cancelled()) listener_.published(*sharedRequest, partial, elapsed);
      });
    };
  std::shared_ptr<const CompileResult> result;
  try {
    result = compile_(req.input, options, token).result;
  } catch (const std::exception& e) {
    auto failed = std::make_shared<CompileResult>();
    Diagnostic d;
    d.source = "kernelscope";
    d.message = std::string("internal error while compiling: ") + e.what();
    failed->diagnostics.push_back(std::move(d));
    result = std::move(failed);
  }
  if (!result) result = std::make_shared<const CompileResult>();
  auto elapsed = std::chrono::duration_cast<milliseconds>(Clock::now() - start);
  bool cancelled = token.cancelled();

  // The outcome counts as outstanding before the compile stops counting as running, so
  // idle() never sees a gap between the two; it is posted after, so that its listener
  // already sees the scheduler without this compile.
  {
    std::lock_guard lock(mutex_);
    ++shared->outstanding;
    if (auto it = running_.find(key); it != running_.end() && it->second.revision == revision)
      running_.erase(it);
    if (cancelled) {
      ++stats_.cancelled;
    } else {
      auto& h = history_[key];
      h.push_back(elapsed);
      if (h.size() > kHistory) h.erase(h.begin());
    }
  }
  cv_.notify_all();
  post_([this, shared, sharedRequest, result, elapsed, cancelled] {
    if (shared->alive) {
      if (!cancelled && listener_.finished) listener_.finished(*sharedRequest, result, elapsed);
      if (cancelled && listener_.cancelled) listener_.cancelled(*sharedRequest);
    }
    --shared->outstanding;
  });
}

}  // namespace ks::server
