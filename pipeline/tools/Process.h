// Process runner: the one way kernelscope starts an external tool.
//
// argv only (never a shell), an optional private working directory, a time limit, a cap
// on captured output, and cancellation that kills the whole process group. Used for
// rustc, ptxas, nvdisasm, nvcc and cargo alike.
#pragma once

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ks {

/// Shared flag that asks running work to stop. Cheap to copy; safe across threads.
class CancellationToken {
 public:
  CancellationToken() : flag_(std::make_shared<std::atomic<bool>>(false)) {}
  void cancel() const { flag_->store(true); }
  bool cancelled() const { return flag_->load(); }

 private:
  std::shared_ptr<std::atomic<bool>> flag_;
};

struct ProcessSpec {
  std::vector<std::string> argv;  // argv[0] is the program: a path, or a name looked up on PATH
  std::vector<std::pair<std::string, std::string>>
      env;                    // added to (or replacing in) our environment
  std::filesystem::path cwd;  // empty: inherit
  std::string stdinText;
  std::chrono::milliseconds timeout{60000};
  size_t outputCap = 64u << 20;    // bytes kept per stream; the rest is dropped and flagged
  std::optional<size_t> errorCap;  // bytes kept of stderr, when it differs from outputCap
  CancellationToken cancel;
  /// On a cancel or timeout: 0 kills the process group at once (SIGKILL); more sends SIGTERM
  /// first and SIGKILL this long after, for a program that passes the stop on (a runner such
  /// as srun, which cancels its job step on SIGTERM).
  std::chrono::milliseconds termGrace{0};
};

struct ProcessResult {
  bool started = false;  // false: could not exec (see error)
  int exitCode = -1;     // valid when the process exited normally
  int signal = 0;        // non-zero when killed by a signal
  bool timedOut = false;
  bool cancelled = false;
  bool truncated = false;  // output exceeded outputCap
  std::string out, err;
  std::string error;  // why it did not start, in words
  std::chrono::milliseconds elapsed{0};

  bool ok() const { return started && signal == 0 && exitCode == 0 && !timedOut && !cancelled; }
  /// "exit status 1", "killed by signal 9 (SIGKILL)", "timed out after 60 s", ...
  std::string describe() const;
};

ProcessResult runProcess(const ProcessSpec&);

/// What starts a compile's tools: runProcess, unless the toolchain was given another
/// (Toolchain::runner) that answers from recorded output, so that a test of the compile's
/// steps needs no rustc, ptxas or nvdisasm.
class ToolRunner {
 public:
  virtual ~ToolRunner() = default;
  virtual ProcessResult run(const ProcessSpec&) const = 0;
};

/// A path removed with its contents when this goes out of scope, and also when SIGINT,
/// SIGTERM or SIGHUP ends the process (installTerminationCleanup): staging directories,
/// partial cache entries.
class RemovedOnExit {
 public:
  explicit RemovedOnExit(std::filesystem::path);
  ~RemovedOnExit();
  RemovedOnExit(const RemovedOnExit&) = delete;
  RemovedOnExit& operator=(const RemovedOnExit&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  friend class TempDir;
  struct AlreadyRegistered {};
  RemovedOnExit(std::filesystem::path, AlreadyRegistered);  // TempDir registers it itself
  std::filesystem::path path_;
};

/// A private temporary directory (mode 0700) in $TMPDIR (else /tmp), removed with its
/// contents on destruction or termination (RemovedOnExit). Its name is the prefix, then
/// this process's id, start time and pid namespace, so that a later kernelscope can tell
/// when its maker is gone (removeTempDirsOfEndedProcesses). Throws std::runtime_error
/// with a message for the user when it cannot be made (TMPDIR missing or not writable).
class TempDir {
 public:
  explicit TempDir(std::string_view prefix = "kernelscope");
  const std::filesystem::path& path() const { return dir_->path(); }

 private:
  std::unique_ptr<RemovedOnExit> dir_;
};

/// Removes the temporary directories (TempDir's, in $TMPDIR, else /tmp) of kernelscope
/// processes that are gone: those killed outright (SIGKILL, a crash), which nothing of
/// theirs could remove. Only directories of this user whose name says which kernelscope
/// made them and that it no longer runs (its pid is free or runs a later process); never
/// anything else. Called once at start.
void removeTempDirsOfEndedProcesses();

/// Makes SIGINT, SIGTERM and SIGHUP end the process cleanly: the process groups of
/// running tools are killed and every RemovedOnExit path is removed, then the process
/// dies of the signal as it would have. Call once, first thing in main(), before any
/// thread starts (the signals are blocked in every thread and taken by one of its own).
void installTerminationCleanup();

/// For a process that ends on its own while work is running (the language server after
/// `exit`, or when its editor is gone): kills the process group of every running tool and
/// starts no more (runProcess reports them cancelled), so the threads that wait for tools
/// unwind at once, removing their temporary directories on the way, instead of finishing
/// their work first (a build of the nvptx64 core takes a minute). Cannot be undone.
void stopAllTools();

/// For a command-line run (after installTerminationCleanup): ends kernelscope as SIGTERM
/// does (tools killed, temporary files removed) as soon as whoever reads its standard output
/// or error goes away (an editor window that closed, `| head`), instead of a death by
/// SIGPIPE at its next write, which would leave them. SIGPIPE itself is then ignored: a write
/// to a closed pipe (also to a tool's stdin) fails instead of killing the process.
void endWhenOutputReaderGoes();

/// Looks `name` up on PATH; nullopt when not found or not executable.
std::optional<std::filesystem::path> findOnPath(std::string_view name);

}  // namespace ks
