// Process runner: fork/exec with its own process group, poll-driven capture, limits.
//
// The child gets its own process group so that cancellation and time limits kill
// everything it started (rustc spawns no helpers today, cargo does). Everything that
// allocates happens before fork(), because the server calls this from worker threads.
#include "Process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <set>
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

std::vector<std::string> buildEnvironment(const ProcessSpec& spec) {
  std::map<std::string, std::string> vars;
  for (char** e = environ; e && *e; ++e) {
    std::string_view kv(*e);
    size_t eq = kv.find('=');
    if (eq != std::string_view::npos)
      vars[std::string(kv.substr(0, eq))] = std::string(kv.substr(eq + 1));
  }
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
  // The GPU runner's build has no LLVM (gpu/CMakeLists.txt): the same walk by hand.
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

ProcessResult runProcess(const ProcessSpec& spec) {
  ProcessResult result;
  auto started = Clock::now();
  if (spec.argv.empty()) {
    result.error = "empty command";
    return result;
  }
  auto program = findOnPath(spec.argv[0]);
  if (!program) {
    result.error = spec.argv[0] + " not found";
    return result;
  }

  // Everything the child needs, prepared before fork().
  std::vector<std::string> envStrings = buildEnvironment(spec);
  std::vector<char*> envp, argv;
  for (auto& s : envStrings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argStrings = spec.argv;
  for (auto& s : argStrings) argv.push_back(s.data());
  argv.push_back(nullptr);
  std::string programPath = program->string();
  std::string cwd = spec.cwd.string();

  Pipe in, out, err, status;
  if (!in.open() || !out.open() || !err.open() || !status.open()) {
    result.error = std::string("pipe: ") + std::strerror(errno);
    return result;
  }

  pid_t pid = ::fork();
  if (pid < 0) {
    result.error = std::string("fork: ") + std::strerror(errno);
    return result;
  }
  if (pid == 0) {
    // Child: async-signal-safe calls only. The signals installTerminationCleanup blocks
    // are unblocked again: the tool must die of them.
    ::setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::dup2(in.fd[0], 0);
    ::dup2(out.fd[1], 1);
    ::dup2(err.fd[1], 2);
    ::signal(SIGPIPE, SIG_DFL);
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) {
      int e = errno;
      (void)!::write(status.fd[1], &e, sizeof e);
      ::_exit(127);
    }
    ::execve(programPath.c_str(), argv.data(), envp.data());
    int e = errno;
    (void)!::write(status.fd[1], &e, sizeof e);
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also from the parent, so the group exists before we may kill it
  {
    std::lock_guard lock(registry().mutex);
    registry().groups.insert(pid);
  }
  struct Unregister {
    pid_t pid;
    ~Unregister() {
      std::lock_guard lock(registry().mutex);
      registry().groups.erase(pid);
    }
  } unregister{pid};
  in.closeRead();
  out.closeWrite();
  err.closeWrite();
  status.closeWrite();

  int childErrno = 0;
  if (::read(status.fd[0], &childErrno, sizeof childErrno) == sizeof childErrno) {
    ::waitpid(pid, nullptr, 0);
    result.error = programPath + ": " + std::strerror(childErrno);
    return result;
  }
  result.started = true;

  // Feed stdin without blocking on a child that does not read it.
  size_t stdinPos = 0;
  int stdinFd = in.fd[1];
  if (spec.stdinText.empty()) {
    in.closeWrite();
    stdinFd = -1;
  } else {
    ::fcntl(stdinFd, F_SETFL, O_NONBLOCK);
  }

  auto deadline = started + spec.timeout;
  bool exited = false, killed = false;
  int waitStatus = 0;
  Clock::time_point drainUntil{};
  int fds[2] = {out.fd[0], err.fd[0]};
  std::string* sinks[2] = {&result.out, &result.err};
  char buf[65536];

  auto killGroup = [&] {
    if (!killed && !exited) ::kill(-pid, SIGKILL);
    killed = true;
  };

  while (fds[0] >= 0 || fds[1] >= 0 || !exited) {
    if (!killed && !exited) {
      if (spec.cancel.cancelled()) {
        result.cancelled = true;
        killGroup();
      } else if (Clock::now() >= deadline) {
        result.timedOut = true;
        killGroup();
      }
    }
    if (!exited) {
      pid_t r = ::waitpid(pid, &waitStatus, WNOHANG);
      if (r == pid) {
        exited = true;
        // Grandchildren may hold the pipes open: drain for a short while only.
        drainUntil = Clock::now() + std::chrono::milliseconds(200);
      }
    }
    if (exited && Clock::now() >= drainUntil) break;

    pollfd pfd[3];
    int n = 0;
    for (int i = 0; i < 2; ++i)
      if (fds[i] >= 0) pfd[n++] = {fds[i], POLLIN, 0};
    if (stdinFd >= 0) pfd[n++] = {stdinFd, POLLOUT, 0};
    if (n == 0) {
      if (!exited) ::usleep(2000);
      continue;
    }
    int ready = ::poll(pfd, n, exited ? 10 : 20);
    if (ready <= 0) continue;
    for (int k = 0; k < n; ++k) {
      if (!pfd[k].revents) continue;
      if (pfd[k].fd == stdinFd) {
        ssize_t w =
            ::write(stdinFd, spec.stdinText.data() + stdinPos, spec.stdinText.size() - stdinPos);
        if (w > 0) stdinPos += static_cast<size_t>(w);
        if (w < 0 && errno != EAGAIN) stdinPos = spec.stdinText.size();
        if (stdinPos >= spec.stdinText.size()) {
          in.closeWrite();
          stdinFd = -1;
        }
        continue;
      }
      int i = pfd[k].fd == fds[0] ? 0 : 1;
      ssize_t got = ::read(fds[i], buf, sizeof buf);
      if (got <= 0) {
        if (got < 0 && errno == EINTR) continue;
        fds[i] = -1;  // closed by the Pipe destructor
        continue;
      }
      std::string& sink = *sinks[i];
      size_t room = spec.outputCap > sink.size() ? spec.outputCap - sink.size() : 0;
      if (static_cast<size_t>(got) > room) result.truncated = true;
      sink.append(buf, std::min(room, static_cast<size_t>(got)));
    }
  }
  if (!exited) ::waitpid(pid, &waitStatus, 0);
  if (WIFEXITED(waitStatus)) result.exitCode = WEXITSTATUS(waitStatus);
  if (WIFSIGNALED(waitStatus)) result.signal = WTERMSIG(waitStatus);
  result.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started);
  return result;
}

RemovedOnExit::RemovedOnExit(std::filesystem::path path) : path_(std::move(path)) {
  std::lock_guard lock(registry().mutex);
  registry().paths.insert(path_.string());
}

RemovedOnExit::~RemovedOnExit() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
  std::lock_guard lock(registry().mutex);
  if (auto it = registry().paths.find(path_.string()); it != registry().paths.end())
    registry().paths.erase(it);
}

TempDir::TempDir(std::string_view prefix) {
  const char* tmpdir = std::getenv("TMPDIR");
  std::string base = tmpdir && *tmpdir ? tmpdir : "/tmp";
  std::string tmpl = base + "/" + std::string(prefix) + "-XXXXXX";
  if (!::mkdtemp(tmpl.data()))
    throw std::runtime_error("cannot make a temporary directory in " + base +
                             (tmpdir && *tmpdir ? " (TMPDIR)" : "") + ": " + std::strerror(errno));
  ::chmod(tmpl.c_str(), 0700);
  dir_ = std::make_unique<RemovedOnExit>(tmpl);
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
    {
      std::lock_guard lock(registry().mutex);
      for (pid_t group : registry().groups) ::kill(-group, SIGKILL);
      // A killed tool may still be inside a write for a moment: remove until nothing
      // comes back (at most a second).
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

}  // namespace ks
