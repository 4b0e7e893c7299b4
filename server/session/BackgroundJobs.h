// BackgroundJobs: work the io thread hands off by id and hears back from on the io thread:
// kernelscope/passes runs (PassesCache) and GPU jobs (GpuRuns).
//
// Each job runs on a thread of a JobRunner (on the calling thread in the deterministic test
// mode) with a CancellationToken of its own; what it returns is posted to the io thread, where
// its `done` runs once. cancel() cancels the token, which kills the job's processes (a rustc,
// gpu-exec and with it ncu); `done` still comes, once the job has ended and its temporary
// folders are gone. Nothing a job posts runs once its owner is destroyed. Used on the io thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "Compile.h"
#include "JobRunner.h"
#include "Scheduler.h"

namespace ks::server {

class BackgroundJobs {
 public:
  /// `runInline`: run each job on the calling thread (tests and the lit-test mode).
  BackgroundJobs(PostFunction post, bool runInline);
  ~BackgroundJobs();  // cancels the jobs in flight and waits for their threads
  BackgroundJobs(const BackgroundJobs&) = delete;
  BackgroundJobs& operator=(const BackgroundJobs&) = delete;

  /// Runs `work` as job `id`; `done` gets what it returned, on the io thread.
  template <class T>
  void start(const std::string& id, std::function<T(const CancellationToken&)> work,
             std::function<void(T)> done) {
    startJob(id, [work = std::move(work), done = std::move(done)](const CancellationToken& token) {
      auto out = std::make_shared<T>(work(token));
      return Completion([done, out] { done(std::move(*out)); });
    });
  }
  /// Cancels job `id` (its `done` still comes); false when none is in flight.
  bool cancel(const std::string& id);
  bool running() const { return !jobs_.empty(); }
  /// Runs a function on the io thread from a job's thread (at once when inline), never after
  /// the owner is gone: a job's progress.
  PostFunction toIoThread() const;
  /// The threads held for jobs (running, or ended and not joined yet).
  size_t threads() const { return runner_.threads(); }

 private:
  using Completion = std::function<void()>;
  struct Job {
    CancellationToken token;
    uint64_t serial = 0;  // a job started again under the same id is another one
  };
  struct Shared {
    bool alive = true;  // read and written on the io thread only
  };
  void startJob(const std::string& id, std::function<Completion(const CancellationToken&)> work);
  void finish(const std::string& id, uint64_t serial, const Completion&);

  PostFunction post_;
  bool runInline_;
  std::shared_ptr<Shared> shared_ = std::make_shared<Shared>();
  std::map<std::string, Job> jobs_;
  uint64_t started_ = 0;
  JobRunner runner_{0};  // last: destroyed first, waiting for the jobs its destructor cancelled
};

}  // namespace ks::server
