// JobRunner: jobs run in order within its bound, threads that run out of work are given
// back, and destruction waits for the jobs running; the pass-by-pass runs and GPU jobs on it.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>
#include <vector>

#include "BackgroundJobs.h"
#include "FakeTransport.h"
#include "GpuRuns.h"
#include "JobRunner.h"
#include "PassesCache.h"

namespace ks::test {

using server::JobRunner;

namespace {

/// Waits until `condition` holds; false after 10 s.
template <class Condition>
bool waitFor(Condition condition) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

}  // namespace

TEST_CASE("a one-thread JobRunner runs its jobs one at a time, in the order given") {
  std::vector<int> order;
  std::atomic<int> running{0}, most{0}, done{0};
  {
    JobRunner runner(1);
    for (int i = 0; i < 20; ++i)
      runner.run([&, i] {
        int now = ++running;
        most = std::max(most.load(), now);
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        order.push_back(i);  // one job at a time: no lock needed
        --running;
        ++done;
      });
    CHECK(runner.threads() <= 1);
    REQUIRE(waitFor([&] { return done == 20; }));
  }
  CHECK(most == 1);
  std::vector<int> expected(20);
  for (int i = 0; i < 20; ++i) expected[i] = i;
  CHECK(order == expected);
}

TEST_CASE("an unbounded JobRunner runs its jobs at once") {
  // Two jobs that each wait for the other finish only when they run side by side.
  std::promise<void> a, b;
  std::shared_future<void> aStarted = a.get_future().share(), bStarted = b.get_future().share();
  std::atomic<int> done{0};
  JobRunner runner(0);
  runner.run([&] {
    a.set_value();
    if (bStarted.wait_for(std::chrono::seconds(10)) == std::future_status::ready) ++done;
  });
  runner.run([&] {
    b.set_value();
    if (aStarted.wait_for(std::chrono::seconds(10)) == std::future_status::ready) ++done;
  });
  REQUIRE(waitFor([&] { return done == 2; }));
}

TEST_CASE("a JobRunner gives back the threads of finished jobs: a long session holds none") {
  JobRunner runner(0);
  std::atomic<int> done{0};
  for (int i = 0; i < 100; ++i) {
    runner.run([&] { ++done; });
    REQUIRE(waitFor([&] { return done == i + 1; }));
  }
  // None of the 100 threads is held but the last to end (and one ending beside it, when a
  // job was still returning as the next one came).
  CHECK(waitFor([&] { return runner.threads() <= 2; }));
}

TEST_CASE("destroying a JobRunner waits for the job running and drops those not started") {
  std::atomic<bool> release{false}, finished{false};
  std::atomic<int> started{0};
  auto runner = std::make_unique<JobRunner>(1);
  runner->run([&] {
    ++started;
    while (!release) std::this_thread::yield();
    finished = true;
  });
  runner->run([&] { ++started; });
  REQUIRE(waitFor([&] { return started == 1; }));
  std::thread releaser([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    release = true;
  });
  runner.reset();
  CHECK(finished);
  CHECK(started == 1);
  releaser.join();
}

// Its users: a long session's pass-by-pass runs and GPU jobs hold no threads once done.

TEST_CASE(
    "a background job cancelled by id answers once it has ended; none answers after its "
    "owner is gone") {
  FakeTransport transport;
  // Runs until cancelled, as a rustc or gpu-exec does, and says whether it saw the cancel.
  auto untilCancelled = [](const CancellationToken& token) {
    while (!token.cancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return true;
  };
  std::vector<bool> answers;
  {
    server::BackgroundJobs jobs([&](std::function<void()> fn) { transport.post(std::move(fn)); },
                                /*runInline=*/false);
    jobs.start<bool>("1", untilCancelled, [&](bool cancelled) { answers.push_back(cancelled); });
    CHECK(jobs.running());
    CHECK_FALSE(jobs.cancel("2"));
    CHECK(jobs.cancel("1"));
    REQUIRE(transport.drainUntil([&] { return answers.size() == 1; }));
    CHECK(answers.front());
    CHECK_FALSE(jobs.running());
    CHECK_FALSE(jobs.cancel("1"));
    // Still running when its owner goes: cancelled and waited for, its answer dropped.
    jobs.start<bool>("3", untilCancelled, [&](bool cancelled) { answers.push_back(cancelled); });
  }
  CHECK(transport.drainUntil([] { return true; }));
  CHECK(answers.size() == 1);
}

TEST_CASE("many kernelscope/passes runs leave no threads behind") {
  FakeTransport transport;
  std::atomic<int> calls{0};
  server::PassesCache cache(
      [&](const CompileInput&, const CompileOptions&, const std::string& kernel,
          const CancellationToken&) {
        ++calls;
        PassesResult r;
        r.kernel = r.demangled = kernel;
        return r;
      },
      [&](std::function<void()> fn) { transport.post(std::move(fn)); }, /*runInline=*/false);
  auto result = std::make_shared<CompileResult>();
  std::vector<std::shared_ptr<const server::Snapshot>> kept;  // each run is of a new Snapshot
  int answered = 0;
  for (int i = 0; i < 50; ++i) {
    auto s = std::make_shared<server::Snapshot>();
    s->revision = i + 1;
    s->result = result;
    kept.push_back(s);
    cache.get(s, CompileInput{}, CompileOptions{}, "saxpy", std::to_string(i),
              [&](const PassesResult* r) { answered += r != nullptr; });
    REQUIRE(transport.drainUntil([&] { return answered == i + 1; }));
  }
  CHECK(calls == 50);
  CHECK(waitFor([&] { return cache.threads() <= 2; }));  // as a JobRunner's
}

TEST_CASE("many kernelscope/run jobs leave no threads behind") {
  FakeTransport transport;
  server::GpuRuns runs(
      [](const server::GpuJob&, const server::GpuProgress& progress, const CancellationToken&) {
        progress("launching");
        gpu::GpuOutcome out;
        out.kernel = "saxpy";
        return out;
      },
      [&](std::function<void()> fn) { transport.post(std::move(fn)); }, /*runInline=*/false);
  int answered = 0;
  for (int i = 0; i < 50; ++i) {
    runs.start(
        std::to_string(i), server::GpuJob{}, [](const std::string&) {},
        [&](gpu::GpuOutcome out) { answered += out.ok() && out.kernel == "saxpy"; });
    REQUIRE(transport.drainUntil([&] { return answered == i + 1; }));
  }
  CHECK_FALSE(runs.running());
  CHECK(waitFor([&] { return runs.threads() <= 2; }));
}

}  // namespace ks::test
