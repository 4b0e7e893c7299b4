// JobRunner: work the io thread hands off (a change summary's diff, a pass-by-pass run, a
// GPU job), run on threads the runner owns and gives back as soon as they run out of work.
//
// Jobs start in the order given, on at most `maxThreads` threads at once; the others wait.
// A thread that finds the queue empty ends: it joins the threads that ended before it, and
// is itself joined by the next one to end, the next run() or the destructor. So the runner
// holds its running threads and at most one that ended, however long the session. The owner cancels
// its jobs before destroying the runner: the destructor waits for the ones running and drops those
// not started.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace ks::server {

class JobRunner {
 public:
  /// `maxThreads`: how many jobs run at once (0: as many as are given).
  explicit JobRunner(size_t maxThreads);
  ~JobRunner();
  JobRunner(const JobRunner&) = delete;
  JobRunner& operator=(const JobRunner&) = delete;

  /// Queues `job`; it runs on a thread of the runner. Any thread.
  void run(std::function<void()> job);
  /// The threads the runner holds now (running, or ended and not joined yet). Any thread.
  size_t threads() const;

 private:
  void work();
  /// Joins the threads that have ended (never the calling one: it is not among them yet);
  /// `mutex_` held by `lock`, released while joining.
  void reap(std::unique_lock<std::mutex>& lock);

  const size_t maxThreads_;
  mutable std::mutex mutex_;
  std::deque<std::function<void()>> queue_;
  std::map<std::thread::id, std::thread> threads_;
  std::vector<std::thread::id> ended_;  // threads that ran out of work
  size_t working_ = 0;                  // threads taking jobs from the queue
  size_t running_ = 0;                  // of those, the ones running a job
  bool stopping_ = false;
};

}  // namespace ks::server
