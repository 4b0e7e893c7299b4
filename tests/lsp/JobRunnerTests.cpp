// JobRunner: jobs run in order within its bound, threads that run out of work are given
// back, and destruction waits for the jobs running.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>
#include <vector>

#include "JobRunner.h"

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
  // The last thread may not have been joined yet; none of the 99 before it is held.
  CHECK(runner.threads() <= 1);
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

}  // namespace ks::test
