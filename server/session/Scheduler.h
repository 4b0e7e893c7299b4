// Scheduler: when compiles run. Debounces edits, coalesces bursts, cancels stale work.
//
// Per key (a crate, or a file on its own) there is at most one pending compile (a newer
// request replaces it) and at most one running compile; a newer revision cancels the
// running one through its CancellationToken, which kills the tool's process group.
// Compiles run on a pool of worker threads bounded by the cores; their outcomes are
// posted back to the io thread.
// The debounce adapts to how long compiles take, like clangd: rebuild when the user
// pauses, not on every keystroke. Called on the io thread except where noted.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "Compile.h"

namespace ks::server {

/// A compile's result as a compile function hands it over: shared with the compile cache
/// and every Snapshot, never copied. Converts from a result made on the spot (tests).
struct SharedResult {
  SharedResult(CompileResult r) : result(std::make_shared<const CompileResult>(std::move(r))) {}
  SharedResult(std::shared_ptr<const CompileResult> r) : result(std::move(r)) {}
  std::shared_ptr<const CompileResult> result;
};
using CompileFunction = std::function<SharedResult(const CompileInput&, const CompileOptions&,
                                                   const CancellationToken&)>;
using PostFunction = std::function<void(std::function<void()>)>;

/// How long to wait after an edit before compiling.
struct DebouncePolicy {
  std::chrono::milliseconds min{50}, max{500};
  double rebuildRatio = 1.0;  // debounce = ratio * recent compile time, clamped to [min, max]
  std::optional<std::chrono::milliseconds> fixed;  // when set, always this (tests, settings)

  /// The debounce after compiles that took `history` (oldest first).
  std::chrono::milliseconds compute(const std::vector<std::chrono::milliseconds>& history) const;
};

struct SchedulerOptions {
  /// Worker threads. 0 runs each compile on the io thread from a posted task (tests and
  /// the lit-test mode: deterministic and single-threaded).
  unsigned workers = std::max(1u, std::thread::hardware_concurrency());
  DebouncePolicy debounce;
};

struct CompileRequest {
  std::string key;  // what compiles: a crate (its Cargo.toml) or a file on its own (its path)
  /// Grows with every change of what is compiled; a request with the same key and revision
  /// as the running one is the same compile.
  int revision = 0;
  /// The open documents this compile serves (one crate's open files), by path, with their
  /// revisions.
  std::map<std::string, int> documents;
  CompileInput input;
  CompileOptions options;
  bool immediate = false;  // open and save compile at once; edits are debounced
};

/// Where the scheduler reports. All run on the io thread.
struct SchedulerListener {
  std::function<void(const CompileRequest&)> started;
  /// Not called for a compile that was cancelled.
  std::function<void(const CompileRequest&, std::shared_ptr<const CompileResult>,
                     std::chrono::milliseconds)>
      finished;
  /// Stages a running compile published before it finished (StageListener in Compile.h):
  /// the result so far, with CompileResult::pending. Not called once it was cancelled.
  std::function<void(const CompileRequest&, std::shared_ptr<const CompileResult>,
                     std::chrono::milliseconds)>
      published;
  /// A compile that was cancelled (superseded or its document closed).
  std::function<void(const CompileRequest&)> cancelled;
};

class Scheduler {
 public:
  Scheduler(CompileFunction, PostFunction, SchedulerListener, SchedulerOptions = {});
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  /// Queues a compile; replaces the key's pending one and cancels its running one.
  /// Returns false (and does nothing) when that very revision is already compiling.
  bool schedule(CompileRequest);
  /// Drops the key's pending compile and cancels its running one (its documents closed).
  void cancel(const std::string& key);
  /// True when nothing is pending, running, or posted but not yet delivered. Any thread.
  bool idle() const;
  void setDebounce(DebouncePolicy);

  struct Stats {
    int started = 0;    // compiles handed to the compile function
    int cancelled = 0;  // compiles cancelled while running
  };
  Stats stats() const;

 private:
  struct Shared;  // state shared with posted tasks, which may outlive the scheduler
  struct Running {
    int revision;
    CancellationToken token;
  };
  struct Pending {
    CompileRequest request;
    std::chrono::steady_clock::time_point due;
  };

  void workerLoop();
  void runInline(const std::string& key);
  /// Runs one compile (any thread) and posts its outcome.
  void execute(CompileRequest request, CancellationToken token);
  std::chrono::milliseconds debounceLocked(const std::string& key) const;

  CompileFunction compile_;
  PostFunction post_;
  SchedulerListener listener_;
  SchedulerOptions options_;
  std::shared_ptr<Shared> shared_;

  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::map<std::string, Pending> pending_;
  std::map<std::string, Running> running_;
  std::map<std::string, std::vector<std::chrono::milliseconds>> history_;
  Stats stats_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace ks::server
