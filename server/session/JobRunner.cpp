// JobRunner: see JobRunner.h.
#include "JobRunner.h"

namespace ks::server {

JobRunner::JobRunner(size_t maxThreads) : maxThreads_(maxThreads) {}

JobRunner::~JobRunner() {
  std::map<std::thread::id, std::thread> threads;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    queue_.clear();
    threads.swap(threads_);
  }
  for (auto& [id, t] : threads) t.join();
}

void JobRunner::run(std::function<void()> job) {
  std::unique_lock lock(mutex_);
  if (stopping_) return;
  reap(lock);
  queue_.push_back(std::move(job));
  // A thread between jobs takes it; else a new one, unless the bound is reached (then the
  // first thread done with its job takes it).
  if (working_ - running_ >= queue_.size() || (maxThreads_ && working_ >= maxThreads_)) return;
  ++working_;
  std::thread t([this] { work(); });
  threads_.emplace(t.get_id(), std::move(t));
}

void JobRunner::work() {
  std::unique_lock lock(mutex_);
  while (!queue_.empty() && !stopping_) {
    auto job = std::move(queue_.front());
    queue_.pop_front();
    ++running_;
    lock.unlock();
    job();
    job = nullptr;  // what it holds goes before the runner may be destroyed
    lock.lock();
    --running_;
  }
  --working_;
  if (stopping_) return;  // the destructor joins every thread
  // Out of work: it joins the threads that ended before it, and is joined by the next.
  reap(lock);
  ended_.push_back(std::this_thread::get_id());
}

void JobRunner::reap(std::unique_lock<std::mutex>& lock) {
  if (ended_.empty()) return;
  // Taken out of threads_ first: the destructor joins only what is still there.
  std::vector<std::thread> done;
  for (const auto& id : ended_) {
    auto it = threads_.find(id);
    if (it == threads_.end()) continue;
    done.push_back(std::move(it->second));
    threads_.erase(it);
  }
  ended_.clear();
  // They have left work(): joining them takes no longer than their return.
  lock.unlock();
  for (auto& t : done) t.join();
  lock.lock();
}

size_t JobRunner::threads() const {
  std::lock_guard lock(mutex_);
  return threads_.size();
}

}  // namespace ks::server
