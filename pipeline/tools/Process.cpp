// Process runner: vfork/exec with its own process group, poll-driven capture, limits.
//
// The child gets its own process group so that cancellation and time limits kill
// everything it started (rustc spawns no helpers today, cargo does). Everything that
// allocates happens before vfork(), because the server calls this from worker threads and
// the child shares the parent's memory until it execs. vfork, not fork: fork copies the
// page tables of a process that holds LLVM and megabytes of results, and every page the
// parent's threads write afterwards faults once (copy on write); under AddressSanitizer,
// with its shadow memory, that was an eighth of the suites' own time.
#include "Process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <thread>

#if KS_HAVE_LLVM
#include <llvm/ADT/SmallVector.h>
#include <llvm/Support/Program.h>
#endif

extern char** environ;

namespace ks {

namespace {

using Clock = std::chrono::steady_clock;

struct Pipe {
  int fd[2] = {-1, -1};
  bool open() { return ::pipe2(fd, O_CLOEXEC) == 0; }
  void closeRead() { closeFd(0); }
  void closeWrite() { closeFd(1); }
  void closeFd(int i) {
    if (fd[i] >= 0) ::close(fd[i]);
    fd[i] = -1;
  }
  ~Pipe() {
    closeFd(0);
    closeFd(1);
  }
};

std::vector<std::string> buildEnvironment(const ProcessSpec& spec, const std::string& toolTmp) {
  std::map<std::string, std::string> vars;
  for (char** e = environ; e && *e; ++e) {
    std::string_view kv(*e);
    size_t eq = kv.find('=');
    if (eq != std::string_view::npos)
      vars[std::string(kv.substr(0, eq))] = std::string(kv.substr(eq + 1));
  }
  if (!toolTmp.empty()) vars["TMPDIR"] = toolTmp;
  for (const auto& [k, v] : spec.env) vars[k] = v;
  std::vector<std::string> out;
  out.reserve(vars.size());
  for (const auto& [k, v] : vars) out.push_back(k + "=" + v);
  return out;
}

/// What a terminating signal must clean up: running tools' process groups and paths.
struct CleanupRegistry {
  std::mutex mutex;
  std::set<pid_t> groups;
  std::multiset<std::string> paths;
  std::atomic<bool> toolsStopped{false};  // stopAllTools: no tool runs from now on

  void killGroupsLocked() const {
    for (pid_t group : groups) ::kill(-group, SIGKILL);
  }
};
CleanupRegistry& registry() {
  static auto* r = new CleanupRegistry;  // never destroyed: the signal thread may outlive main
  return *r;
}

std::string signalName(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : std::to_string(sig);
}

}  // namespace

std::string ProcessResult::describe() const {
  if (!started) return "could not start: " + error;
  if (cancelled) return "cancelled";
  if (timedOut) {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.1f", static_cast<double>(elapsed.count()) / 1000.0);
    return std::string("timed out after ") + seconds + " s (its time limit)";
  }
  if (signal) return "killed by signal " + std::to_string(signal) + " (" + signalName(signal) + ")";
  return "exit status " + std::to_string(exitCode);
}

std::optional<std::filesystem::path> findOnPath(std::string_view name) {
  if (name.find('/') != std::string_view::npos) {
    std::filesystem::path p(name);
    if (::access(p.c_str(), X_OK) == 0) return p;
    return std::nullopt;
  }
  const char* path = std::getenv("PATH");
#if KS_HAVE_LLVM
  // LLVM's lookup, given the same directories (the usual ones when PATH is unset).
  llvm::SmallVector<llvm::StringRef, 16> dirs;
  llvm::StringRef(path ? path : "/usr/local/bin:/usr/bin:/bin").split(dirs, ':', -1, false);
  if (auto found = llvm::sys::findProgramByName(llvm::StringRef(name.data(), name.size()), dirs))
    return std::filesystem::path(*found);
  return std::nullopt;
#else
  // The GPU runner's build has no LLVM (pipeline/gpu-exec/CMakeLists.txt): the same walk by hand.
  std::string_view rest = path ? path : "/usr/local/bin:/usr/bin:/bin";
  while (!rest.empty()) {
    size_t colon = rest.find(':');
    std::string_view dir = rest.substr(0, colon);
    rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
    if (dir.empty()) continue;
    std::filesystem::path candidate = std::filesystem::path(dir) / name;
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
  }
  return std::nullopt;
#endif
}

namespace {

/// argv, environment and working directory for execve(), built before vfork(): the child
/// shares the parent's memory and may not allocate. Not movable, since argv and envp point into
/// the strings it owns.
struct ExecImage {
  ExecImage(const ProcessSpec& spec, const std::filesystem::path& program,
            const std::string& toolTmp)
      : program(program.string()),
        args(spec.argv),
        env(buildEnvironment(spec, toolTmp)),
        cwd(spec.cwd.string()) {
    for (auto& s : args) argv.push_back(s.data());
    argv.push_back(nullptr);
    for (auto& s : env) envp.push_back(s.data());
    envp.push_back(nullptr);
  }
  ExecImage(const ExecImage&) = delete;
  ExecImage& operator=(const ExecImage&) = delete;

  std::string program;
  std::vector<std::string> args, env;
  std::vector<char*> argv, envp;
  std::string cwd;
};

/// The child's stdin, stdout and stderr, and the status pipe on which it reports an errno
/// when chdir() or execve() fails (the pipe closes unread on a successful exec).
struct ChildPipes {
  Pipe in, out, err, status;
  bool open() { return in.open() && out.open() && err.open() && status.open(); }
  void closeChildEnds() {
    in.closeRead();
    out.closeWrite();
    err.closeWrite();
    status.closeWrite();
  }
};

/// The child after vfork(), every signal blocked: its own process group, death with its
/// parent, the parent's pipes as its standard streams, then execve(). Async-signal-safe
/// calls only, and nothing written to memory but its own stack (the parent's, shared).
[[noreturn]] void execChild(const ExecImage& image, const ChildPipes& pipes, pid_t parent) {
  // A handler of the parent's (LLVM installs some) would run on the shared memory if its
  // signal came before the exec: each goes back to the default while signals are blocked
  // (the child's handler table is its own copy).
  for (int sig = 1; sig < NSIG; ++sig) {
    struct sigaction action {};
    if (::sigaction(sig, nullptr, &action) == 0 && action.sa_handler != SIG_DFL &&
        action.sa_handler != SIG_IGN) {
      action = {};
      action.sa_handler = SIG_DFL;
      ::sigaction(sig, &action, nullptr);
    }
  }
  ::setpgid(0, 0);
  // The tool dies with kernelscope even when kernelscope is killed outright (SIGKILL, a
  // crash), which no handler of ours sees. The kernel sends it when the forking thread ends;
  // that thread waits for this child in runProcess, so it outlives it. The tool's own
  // children (cargo's rustc) are not covered: the kernel has no such signal for a whole
  // group; they die with the group when the tool ends, is cancelled or kernelscope ends in
  // order, but finish their work when kernelscope is killed outright.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);  // kernelscope died before the prctl
  // Every signal unblocked, those installTerminationCleanup blocks too: the tool must die of them.
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::dup2(pipes.in.fd[0], 0);
  ::dup2(pipes.out.fd[1], 1);
  ::dup2(pipes.err.fd[1], 2);
  ::signal(SIGPIPE, SIG_DFL);  // ignored by the server (endWhenOutputReaderGoes)
  if (image.cwd.empty() || ::chdir(image.cwd.c_str()) == 0)
    ::execve(image.program.c_str(), image.argv.data(), image.envp.data());
  int e = errno;
  (void)!::write(pipes.status.fd[1], &e, sizeof e);
  ::_exit(127);
}

/// Starts the child with vfork(): the calling thread waits until the child has exec'd or
/// ended. Every signal is blocked around it, so that none runs a handler in the child
/// before execChild has reset them; the thread's mask is restored after. A function of its
/// own, so that no local of the caller lives across the second return.
pid_t startChild(const ExecImage& image, const ChildPipes& pipes) {
  const pid_t parent = ::getpid();
  sigset_t all, before;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &before);
  const pid_t pid = ::vfork();
  if (pid == 0) execChild(image, pipes, parent);
  const int vforkErrno = errno;
  ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
  errno = vforkErrno;
  return pid;
}

/// Keeps a running child's process group in the registry, so that a terminating signal
/// kills it (installTerminationCleanup).
class RegisteredGroup {
 public:
  explicit RegisteredGroup(pid_t pid) : pid_(pid) {
    std::lock_guard lock(registry().mutex);
    registry().groups.insert(pid_);
    // Forked as stopAllTools ran: it ends at once, as if it had been running then.
    if (registry().toolsStopped) ::kill(-pid_, SIGKILL);
  }
  ~RegisteredGroup() {
    std::lock_guard lock(registry().mutex);
    registry().groups.erase(pid_);
  }
  RegisteredGroup(const RegisteredGroup&) = delete;
  RegisteredGroup& operator=(const RegisteredGroup&) = delete;

 private:
  pid_t pid_;
};

/// The parent's side of a started child, until it has exited and its output is read:
/// feeds its stdin without blocking on a child that does not read it, captures stdout and
/// stderr up to the cap, and kills the whole group when cancelled or at the deadline.
class ChildSupervisor {
 public:
  ChildSupervisor(const ProcessSpec& spec, pid_t pid, ChildPipes& pipes, ProcessResult& result)
      : spec_(spec),
        pid_(pid),
        pipes_(pipes),
        result_(result),
        streams_{pipes.out.fd[0], pipes.err.fd[0]},
        sinks_{&result.out, &result.err} {
    if (spec.stdinText.empty()) {
      pipes_.in.closeWrite();
    } else {
      stdinFd_ = pipes_.in.fd[1];
      ::fcntl(stdinFd_, F_SETFL, O_NONBLOCK);
    }
  }

  /// Runs until the child has exited and its pipes are drained; returns its wait status.
  int run(Clock::time_point deadline) {
    while (streams_[0] >= 0 || streams_[1] >= 0 || !exited_) {
      enforceLimits(deadline);
      reap();
      if (exited_ && Clock::now() >= drainUntil_) break;
      transferOnce();
    }
    if (!exited_) ::waitpid(pid_, &waitStatus_, 0);
    return waitStatus_;
  }

 private:
  void enforceLimits(Clock::time_point deadline) {
    if (exited_) return;
    if (termSent_ && !killed_ && Clock::now() >= killAt_) {
      ::kill(-pid_, SIGKILL);
      killed_ = true;
    }
    if (killed_ || termSent_) return;
    if (spec_.cancel.cancelled() || registry().toolsStopped) {
      result_.cancelled = true;
      killGroup();
    } else if (Clock::now() >= deadline) {
      result_.timedOut = true;
      killGroup();
    }
  }

  void killGroup() {
    if (spec_.termGrace.count() > 0) {
      // SIGTERM first, SIGKILL after the grace: a program that must pass the stop on (srun
      // cancels its job step on SIGTERM; killed outright, it leaves the step running).
      ::kill(-pid_, SIGTERM);
      termSent_ = true;
      killAt_ = Clock::now() + spec_.termGrace;
      return;
    }
    ::kill(-pid_, SIGKILL);
    killed_ = true;
  }

  void reap() {
    if (exited_) return;
    // Seen exited without being reaped (WNOWAIT): until it is reaped its pid, which is its
    // group's id, cannot be taken by another process, so what it left running in its
    // group (a build tool's compilers) is killed safely. Every process of a tool ends with it.
    siginfo_t info{};
    if (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) != 0 ||
        info.si_pid != pid_)
      return;
    ::kill(-pid_, SIGKILL);
    ::waitpid(pid_, &waitStatus_, 0);
    exited_ = true;
    // Grandchildren may hold the pipes open: drain for a short while only.
    drainUntil_ = Clock::now() + std::chrono::milliseconds(200);
  }

  /// One poll() over the open pipes, then whatever they are ready for.
  void transferOnce() {
    pollfd pfd[3];
    int n = 0;
    for (int fd : streams_)
      if (fd >= 0) pfd[n++] = {fd, POLLIN, 0};
    if (stdinFd_ >= 0) pfd[n++] = {stdinFd_, POLLOUT, 0};
    if (n == 0) {
      if (!exited_) ::usleep(2000);
      return;
    }
    if (::poll(pfd, n, exited_ ? 10 : 20) <= 0) return;
    for (int k = 0; k < n; ++k) {
      if (!pfd[k].revents) continue;
      if (pfd[k].fd == stdinFd_)
        writeStdin();
      else
        readStream(pfd[k].fd == streams_[0] ? 0 : 1);
    }
  }

  void writeStdin() {
    const std::string& text = spec_.stdinText;
    ssize_t w = ::write(stdinFd_, text.data() + stdinPos_, text.size() - stdinPos_);
    if (w > 0) stdinPos_ += static_cast<size_t>(w);
    if (w < 0 && errno != EAGAIN) stdinPos_ = text.size();
    if (stdinPos_ >= text.size()) {
      pipes_.in.closeWrite();
      stdinFd_ = -1;
    }
  }

  /// Appends what stream `i` (0 stdout, 1 stderr) has, up to the cap; end of file or an
  /// error stops watching it (the Pipe closes it).
  void readStream(int i) {
    ssize_t got = ::read(streams_[i], buf_, sizeof buf_);
    if (got <= 0) {
      if (!(got < 0 && errno == EINTR)) streams_[i] = -1;
      return;
    }
    std::string& sink = *sinks_[i];
    size_t cap = i == 1 && spec_.errorCap ? *spec_.errorCap : spec_.outputCap;
    size_t room = cap > sink.size() ? cap - sink.size() : 0;
    if (static_cast<size_t>(got) > room) result_.truncated = true;
    sink.append(buf_, std::min(room, static_cast<size_t>(got)));
  }

  const ProcessSpec& spec_;
  pid_t pid_;
  ChildPipes& pipes_;
  ProcessResult& result_;
  int streams_[2];
  std::string* sinks_[2];
  int stdinFd_ = -1;
  size_t stdinPos_ = 0;
  bool exited_ = false, killed_ = false, termSent_ = false;
  Clock::time_point killAt_{};
  int waitStatus_ = 0;
  Clock::time_point drainUntil_{};
  char buf_[65536];
};

}  // namespace

ProcessResult runProcess(const ProcessSpec& spec) {
  ProcessResult result;
  auto started = Clock::now();
  if (spec.argv.empty()) {
    result.error = "empty command";
    return result;
  }
  if (registry().toolsStopped) {
    result.cancelled = true;
    result.error = "kernelscope is exiting";
    return result;
  }
  auto program = findOnPath(spec.argv[0]);
  if (!program) {
    result.error = spec.argv[0] + " not found";
    return result;
  }
  // The tool's TMPDIR is a directory of ours, removed when the tool has ended (its process
  // group included): what a tool or its children leave there when killed (a linker's files
  // under cargo, nvcc's intermediates) goes with it. A TMPDIR the spec sets is kept, and
  // where no directory can be made (TMPDIR missing) the tool gets the environment's.
  std::optional<TempDir> toolTmp;
  if (std::none_of(spec.env.begin(), spec.env.end(),
                   [](const auto& kv) { return kv.first == "TMPDIR"; })) {
    try {
      toolTmp.emplace("kernelscope-tool");
    } catch (const std::runtime_error&) {
    }
  }
  const ExecImage image(spec, *program, toolTmp ? toolTmp->path().string() : std::string());
  ChildPipes pipes;
  if (!pipes.open()) {
    result.error = std::string("pipe: ") + std::strerror(errno);
    return result;
  }

  const pid_t pid = startChild(image, pipes);
  if (pid < 0) {
    result.error = std::string("vfork: ") + std::strerror(errno);
    return result;
  }
  ::setpgid(pid, pid);  // also from the parent, so the group exists before we may kill it
  RegisteredGroup group(pid);
  pipes.closeChildEnds();

  int childErrno = 0;
  if (::read(pipes.status.fd[0], &childErrno, sizeof childErrno) == sizeof childErrno) {
    ::waitpid(pid, nullptr, 0);
    result.error = image.program + ": " + std::strerror(childErrno);
    return result;
  }
  result.started = true;

  int waitStatus = ChildSupervisor(spec, pid, pipes, result).run(started + spec.timeout);
  if (WIFEXITED(waitStatus)) result.exitCode = WEXITSTATUS(waitStatus);
  if (WIFSIGNALED(waitStatus)) result.signal = WTERMSIG(waitStatus);
  result.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started);
  return result;
}

RemovedOnExit::RemovedOnExit(std::filesystem::path path) : path_(std::move(path)) {
  std::lock_guard lock(registry().mutex);
  registry().paths.insert(path_.string());
}

RemovedOnExit::RemovedOnExit(std::filesystem::path path, AlreadyRegistered)
    : path_(std::move(path)) {}

RemovedOnExit::~RemovedOnExit() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
  std::lock_guard lock(registry().mutex);
  if (auto it = registry().paths.find(path_.string()); it != registry().paths.end())
    registry().paths.erase(it);
}

namespace {

/// The directory temporary directories go in: $TMPDIR, else /tmp.
std::string tempBase() {
  const char* tmpdir = std::getenv("TMPDIR");
  return tmpdir && *tmpdir ? tmpdir : "/tmp";
}

/// Who made a temporary directory, as its name says: the process id, the process's start
/// time (clock ticks after boot: a pid used again belongs to a later start) and its pid
/// namespace (a pid of another namespace says nothing about this one's processes).
struct TempDirOwner {
  unsigned long long pid = 0, start = 0, pidNamespace = 0;
  bool operator==(const TempDirOwner&) const = default;
};

/// The start time of process `pid` (field 22 of /proc/PID/stat), nullopt when none runs.
std::optional<unsigned long long> startTimeOf(const std::string& pid) {
  std::ifstream f("/proc/" + pid + "/stat");
  std::string stat((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const size_t paren = stat.rfind(')');  // the command name may hold spaces and parentheses
  if (paren == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(paren + 1));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i)
    if (unsigned long long v = 0;
        i == 22 && std::from_chars(field.data(), field.data() + field.size(), v).ec == std::errc())
      return v;
  return std::nullopt;
}

unsigned long long pidNamespace() {
  struct stat st {};
  return ::stat("/proc/self/ns/pid", &st) == 0 ? st.st_ino : 0;
}

/// This process as TempDirOwner; a start time of 0 when /proc cannot tell it.
TempDirOwner thisProcess() {
  const auto pid = static_cast<unsigned long long>(::getpid());
  return {pid, startTimeOf(std::to_string(pid)).value_or(0), pidNamespace()};
}

/// The owner in the name of a directory TempDir made (`kernelscope…-PID-START-NS-XXXXXX`);
/// nullopt for every other name.
std::optional<TempDirOwner> ownerInName(std::string_view name) {
  if (!name.starts_with("kernelscope")) return std::nullopt;
  unsigned long long fields[3];
  size_t end = name.rfind('-');
  if (end == std::string_view::npos || name.size() - end != 7) return std::nullopt;  // -XXXXXX
  for (int i = 2; i >= 0; --i) {
    const size_t dash = name.rfind('-', end - 1);
    if (dash == std::string_view::npos || dash + 1 == end) return std::nullopt;
    auto [ptr, ec] = std::from_chars(name.data() + dash + 1, name.data() + end, fields[i]);
    if (ec != std::errc() || ptr != name.data() + end) return std::nullopt;
    end = dash;
  }
  return TempDirOwner{fields[0], fields[1], fields[2]};
}

}  // namespace

TempDir::TempDir(std::string_view prefix) {
  const std::string base = tempBase();
  const TempDirOwner self = thisProcess();
  std::string tmpl = base + "/" + std::string(prefix) + "-" + std::to_string(self.pid) + "-" +
                     std::to_string(self.start) + "-" + std::to_string(self.pidNamespace) +
                     "-XXXXXX";
  // Made and registered in one step under the registry's lock: the termination sweep
  // (installTerminationCleanup) either sees the directory or runs before it exists.
  std::lock_guard lock(registry().mutex);
  if (!::mkdtemp(tmpl.data()))
    throw std::runtime_error("cannot make a temporary directory in " + base +
                             (base == "/tmp" ? "" : " (TMPDIR)") + ": " + std::strerror(errno));
  ::chmod(tmpl.c_str(), 0700);
  registry().paths.insert(tmpl);
  dir_ =
      std::unique_ptr<RemovedOnExit>(new RemovedOnExit(tmpl, RemovedOnExit::AlreadyRegistered{}));
}

void removeTempDirsOfEndedProcesses() {
  const TempDirOwner self = thisProcess();
  if (self.start == 0) return;  // without /proc, whether a process runs cannot be told
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(tempBase(), ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    const auto owner = ownerInName(it->path().filename().string());
    // Only ours: a directory (not a link) of this user, named by a process this one can see.
    struct stat st {};
    if (!owner || owner->start == 0 || owner->pidNamespace != self.pidNamespace ||
        ::lstat(it->path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid())
      continue;
    if (startTimeOf(std::to_string(owner->pid)) == owner->start) continue;  // still running
    std::error_code ignored;
    std::filesystem::remove_all(it->path(), ignored);
  }
}

void installTerminationCleanup() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, sig);
  ::pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::thread([set] {
    int sig = 0;
    while (::sigwait(&set, &sig) != 0) {
    }
    // This is an ordinary thread, not a signal handler (the signal is taken by sigwait), so
    // it may lock, allocate and walk directories. It takes the registry's lock for good:
    // a tool started or a TempDir made on another thread from now on waits for the lock
    // until the process is gone, so nothing appears after the sweep that the sweep missed.
    registry().mutex.lock();
    registry().killGroupsLocked();
    // A killed tool may still be inside a write for a moment: remove until nothing comes
    // back (at most a second).
    for (int attempt = 0; attempt < 20; ++attempt) {
      bool left = false;
      std::error_code ec;
      for (const auto& path : registry().paths) {
        std::filesystem::remove_all(path, ec);
        left |= std::filesystem::exists(path, ec);
      }
      if (attempt >= 2 && !left) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    // Die of the signal, as without this handler (exit status 128 + sig in a shell).
    ::signal(sig, SIG_DFL);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, sig);
    ::pthread_sigmask(SIG_UNBLOCK, &only, nullptr);
    ::raise(sig);
    ::_exit(128 + sig);
  }).detach();
}

void stopAllTools() {
  std::lock_guard lock(registry().mutex);
  registry().toolsStopped = true;
  registry().killGroupsLocked();
}

void endWhenOutputReaderGoes() {
  ::signal(SIGPIPE, SIG_IGN);
  std::thread([] {
    // The writing end of a pipe reports POLLERR once its reader has closed it (a socket,
    // POLLHUP); a terminal, /dev/null or a file never does. A closed descriptor is let be.
    pollfd fds[2] = {{1, 0, 0}, {2, 0, 0}};
    for (;;) {
      if (::poll(fds, 2, -1) < 0) {
        if (errno == EINTR) continue;
        return;
      }
      for (pollfd& f : fds) {
        if (f.revents & (POLLERR | POLLHUP)) {
          ::kill(::getpid(), SIGTERM);
          return;
        }
        if (f.revents & POLLNVAL) f.fd = -1;
      }
    }
  }).detach();
}

}  // namespace ks
