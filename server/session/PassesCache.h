// kernelscope/passes: the optimization passes that changed a kernel (pipeline/compare/Passes.h),
// computed on demand — it is one more rustc run — once per Snapshot and kernel.
//
// The run is a background job (BackgroundJobs.h) whose result is posted back to the io thread,
// where every request waiting for it is answered. A request can be cancelled
// ($/cancelRequest); the run itself is cancelled (its rustc killed) when nobody waits for it
// any more, or when its Snapshot is no longer kept.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "BackgroundJobs.h"
#include "Compile.h"
#include "Passes.h"
#include "Scheduler.h"
#include "Workspace.h"

namespace ks::server {

using PassesFunction =
    std::function<PassesResult(const CompileInput&, const CompileOptions&,
                               const std::string& kernel, const CancellationToken&)>;

class PassesCache {
 public:
  /// Called with the result, or with nullptr when the request was cancelled.
  using Reply = std::function<void(const PassesResult*)>;

  /// `runInline`: compute on the calling thread (tests and the lit-test mode).
  PassesCache(PassesFunction, PostFunction, bool runInline);

  /// Answers `reply` with the passes of `kernel` (a symbol) in `snapshot`, from the cache
  /// or once they are computed from `input` and `options`.
  void get(const std::shared_ptr<const Snapshot>& snapshot, const CompileInput& input,
           const CompileOptions& options, const std::string& kernel, const std::string& requestId,
           Reply reply);
  /// Drops a waiting request (answering it as cancelled); false when it is not waiting.
  bool cancel(const std::string& requestId);
  /// The threads held for runs (running, or ended and not joined yet).
  size_t threads() const { return runs_.threads(); }

 private:
  struct Entry {
    std::weak_ptr<const Snapshot> snapshot;
    std::shared_ptr<const PassesResult> result;          // null while running
    std::string run;                                     // its job's id (runs_)
    std::vector<std::pair<std::string, Reply>> waiting;  // request id, reply
  };
  using Key = std::pair<const Snapshot*, std::string>;
  /// The run of `entry` finished. A run cancelled and replaced by a newer request's run for
  /// the same key finds another entry there and leaves it alone.
  void finish(const Key&, const std::shared_ptr<Entry>& entry, std::shared_ptr<const PassesResult>);
  void prune();  // forgets the entries of Snapshots that are gone, cancelling their runs

  PassesFunction compute_;
  std::map<Key, std::shared_ptr<Entry>> entries_;
  uint64_t started_ = 0;
  BackgroundJobs runs_;  // last: destroyed first, cancelling the runs and waiting for them
};

}  // namespace ks::server
