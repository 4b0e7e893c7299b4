// The process runner: exit status, signals, time limits, cancellation of the whole
// process group, output caps, stdin, missing programs, private temp dirs.
#include <doctest/doctest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <fstream>
#include <thread>

#include "Process.h"
#include "TestSupport.h"

extern char** environ;

using namespace ks;
using namespace std::chrono_literals;

namespace {
ProcessResult sh(const std::string& script, std::chrono::milliseconds timeout = 10s,
                 CancellationToken cancel = {}) {
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", script};
  spec.timeout = timeout;
  spec.cancel = cancel;
  return runProcess(spec);
}
/// Running, as opposed to gone or a zombie waiting for a reaper.
bool processAlive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string pidField, comm, state;
  if (!(stat >> pidField >> comm >> state)) return false;
  return state != "Z" && state != "X";
}
}  // namespace

TEST_CASE("exit status and both streams are reported") {
  auto r = sh("echo out; echo err >&2; exit 3");
  CHECK(r.started);
  CHECK(r.exitCode == 3);
  CHECK_FALSE(r.ok());
  CHECK(r.out == "out\n");
  CHECK(r.err == "err\n");
  CHECK(r.describe() == "exit status 3");
}

TEST_CASE("a process killed by a signal says which") {
  auto r = sh("kill -SEGV $$");
  CHECK(r.signal == SIGSEGV);
  CHECK(r.describe().find("SIGSEGV") != std::string::npos);
}

TEST_CASE("the time limit kills the whole process group, grandchildren included") {
  auto r = sh("sleep 30 & echo $!; wait", 300ms);
  CHECK(r.timedOut);
  CHECK_FALSE(r.ok());
  CHECK(r.elapsed < 5s);
  pid_t grandchild = std::stoi(r.out);
  std::this_thread::sleep_for(50ms);
  CHECK_FALSE(processAlive(grandchild));
  CHECK(r.describe().find("timed out") != std::string::npos);
}

TEST_CASE("what a tool leaves running in its process group ends with it") {
  // A build tool that exits while its compilers still run (killed, or crashed): they go too.
  auto r = sh("sleep 30 >/dev/null 2>&1 & echo $!");
  CHECK(r.ok());
  pid_t grandchild = std::stoi(r.out);
  std::this_thread::sleep_for(50ms);
  CHECK_FALSE(processAlive(grandchild));
}

TEST_CASE("a tool's temporary files go with it, even when it is killed") {
  // A tool's TMPDIR is a private directory of ours: what it (or a linker under it) leaves
  // there when it is killed and cannot clean up is removed as the tool ends.
  TempDir outer("kernelscope-tooltmp-test");
  const char* saved = std::getenv("TMPDIR");
  const std::string before = saved ? saved : "";
  ::setenv("TMPDIR", outer.path().c_str(), 1);
  auto r = sh("echo \"$TMPDIR\"; touch \"$TMPDIR/cc1.res\"; kill -KILL $$");
  auto ok = sh("echo \"$TMPDIR\"; touch \"$TMPDIR/left.o\"");
  ProcessSpec own;
  own.argv = {"/bin/sh", "-c", "echo \"$TMPDIR\""};
  own.env = {{"TMPDIR", outer.path().string()}};
  auto kept = runProcess(own);
  if (saved)
    ::setenv("TMPDIR", before.c_str(), 1);
  else
    ::unsetenv("TMPDIR");
  CHECK(r.signal == SIGKILL);
  CHECK(ok.ok());
  const std::string toolTmp = r.out.substr(0, r.out.find('\n'));
  CHECK(toolTmp.starts_with(outer.path().string() + "/kernelscope-tool"));
  CHECK(ok.out.substr(0, ok.out.find('\n')) != toolTmp);  // a directory per run
  CHECK_FALSE(std::filesystem::exists(toolTmp));
  CHECK(std::filesystem::is_empty(outer.path()));   // nothing of either run is left
  CHECK(kept.out == outer.path().string() + "\n");  // a TMPDIR the spec sets is kept
}

TEST_CASE("cancellation from another thread kills the process") {
  CancellationToken token;
  std::thread canceller([token] {
    std::this_thread::sleep_for(100ms);
    token.cancel();
  });
  auto r = sh("sleep 30", 20s, token);
  canceller.join();
  CHECK(r.cancelled);
  CHECK(r.elapsed < 5s);
}

TEST_CASE("output beyond the cap is dropped and flagged") {
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", "head -c 100000 /dev/zero"};
  spec.outputCap = 1000;
  auto r = runProcess(spec);
  CHECK(r.ok());
  CHECK(r.truncated);
  CHECK(r.out.size() == 1000);
}

TEST_CASE("stdin is fed, and a large input does not deadlock") {
  ProcessSpec spec;
  spec.argv = {"wc", "-c"};
  spec.stdinText = std::string(1 << 20, 'x');
  auto r = runProcess(spec);
  CHECK(r.ok());
  CHECK(std::stoul(r.out) == (1u << 20));
}

TEST_CASE("a missing program is reported, not run through a shell") {
  ProcessSpec spec;
  spec.argv = {"no-such-tool-kernelscope", "--version"};
  auto r = runProcess(spec);
  CHECK_FALSE(r.started);
  CHECK(r.error.find("not found") != std::string::npos);
  spec.argv = {"echo", "$(touch /tmp/ks-injected)", ";", "rm", "-rf", "/"};
  r = runProcess(spec);
  CHECK(r.ok());
  CHECK(r.out == "$(touch /tmp/ks-injected) ; rm -rf /\n");
}

TEST_CASE("temp dirs are private and removed") {
  std::filesystem::path p;
  {
    TempDir t("kernelscope-test");
    p = t.path();
    struct stat st {};
    REQUIRE(::stat(p.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0700);
    std::ofstream(p / "f") << "x";
  }
  CHECK_FALSE(std::filesystem::exists(p));
}

namespace {
/// A process id that no process has now: a child that has ended and been reaped.
pid_t endedPid() {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  ::waitpid(pid, nullptr, 0);
  return pid;
}

/// Sets TMPDIR for the scope.
struct TmpdirSet {
  explicit TmpdirSet(const std::filesystem::path& dir) {
    if (const char* v = std::getenv("TMPDIR")) before = v;
    ::setenv("TMPDIR", dir.c_str(), 1);
  }
  ~TmpdirSet() { before ? ::setenv("TMPDIR", before->c_str(), 1) : ::unsetenv("TMPDIR"); }
  std::optional<std::string> before;
};
}  // namespace

TEST_CASE("temp dirs of kernelscope processes that are gone are removed, nothing else") {
  TempDir tmp("kernelscope-test");
  TmpdirSet inTmp(tmp.path());
  TempDir live("kernelscope-live");  // this process's: PREFIX-PID-START-NS-XXXXXX
  const std::string name = live.path().filename().string();
  std::vector<std::string> part;
  for (size_t at = 0, dash; at != std::string::npos;
       at = dash == std::string::npos ? dash : dash + 1)
    part.push_back(name.substr(at, (dash = name.find('-', at)) - at));
  REQUIRE(part.size() == 6);
  REQUIRE(part[2] == std::to_string(::getpid()));
  const std::string start = part[3], ns = part[4], self = part[2],
                    gone = std::to_string(endedPid());
  auto dir = [&](const std::string& n) {
    std::filesystem::create_directories(tmp.path() / n / "target");
    std::ofstream(tmp.path() / n / "target" / "f") << "x";
    return tmp.path() / n;
  };
  const auto ended = dir("kernelscope-core-" + gone + "-" + start + "-" + ns + "-a1B2c3");
  const auto reused =
      dir("kernelscope-rustc-" + self + "-" + std::to_string(std::stoull(start) + 1) + "-" + ns +
          "-a1B2c3");  // this pid, a process before this one
  const auto otherNs = dir("kernelscope-core-" + gone + "-" + start + "-1" + ns + "-a1B2c3");
  const auto notOurs = dir("cargo-" + gone + "-" + start + "-" + ns + "-a1B2c3");
  const auto unnamed = dir("kernelscope-notes");
  const auto outside = dir("outside");
  std::filesystem::create_directory_symlink(
      outside, tmp.path() / ("kernelscope-core-" + gone + "-" + start + "-" + ns + "-zzzzzz"));

  removeTempDirsOfEndedProcesses();
  CHECK_FALSE(std::filesystem::exists(ended));
  CHECK_FALSE(std::filesystem::exists(reused));
  CHECK(std::filesystem::exists(live.path()));
  CHECK(std::filesystem::exists(otherNs / "target" / "f"));
  CHECK(std::filesystem::exists(notOurs / "target" / "f"));
  CHECK(std::filesystem::exists(unnamed / "target" / "f"));
  CHECK(std::filesystem::exists(outside / "target" / "f"));
}

void ks::test::churnTempDirsUntilSignalled() {
  installTerminationCleanup();
  for (int i = 0; i < 4; ++i)
    std::thread([] {
      for (;;) TempDir churn("kernelscope-churn");
    }).detach();
  for (;;) ::pause();
}

namespace {
/// Starts this test binary as a TempDir churner (churnTempDirsUntilSignalled) in `tmpdir`.
pid_t startChurner(const std::filesystem::path& tmpdir) {
  std::vector<std::string> env = {"KS_TEST_TEMPDIR_CHURN=1", "TMPDIR=" + tmpdir.string()};
  for (char** e = environ; *e; ++e)
    if (!std::string_view(*e).starts_with("TMPDIR=")) env.emplace_back(*e);
  std::vector<char*> envp;
  for (auto& v : env) envp.push_back(v.data());
  envp.push_back(nullptr);
  std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  char* argv[] = {self.data(), nullptr};
  pid_t pid = -1;
  REQUIRE(::posix_spawn(&pid, self.c_str(), nullptr, nullptr, argv, envp.data()) == 0);
  return pid;
}
}  // namespace

TEST_CASE("a temp dir made while SIGTERM's sweep runs is removed all the same") {
  // Four threads make and remove temp dirs without pause; SIGTERM comes in the middle.
  // Any directory one of them made around the sweep would be left in its TMPDIR.
  for (int round = 0; round < 6; ++round) {
    TempDir tmp("kernelscope-test");
    const pid_t churner = startChurner(tmp.path());
    for (int wait = 0; wait < 500 && std::filesystem::is_empty(tmp.path()); ++wait)
      std::this_thread::sleep_for(10ms);
    std::this_thread::sleep_for(50ms);
    ::kill(churner, SIGTERM);
    int status = 0;
    REQUIRE(::waitpid(churner, &status, 0) == churner);
    CHECK((WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM));
    std::vector<std::string> left;
    for (const auto& e : std::filesystem::directory_iterator(tmp.path()))
      left.push_back(e.path().filename().string());
    CHECK_MESSAGE(left.empty(), "round " << round << " left " << left.size() << " directories");
  }
}
