// FakeTransport: an in-memory Transport for tests and benchmarks. What the server sends
// is collected; work it posts runs on the caller's thread when it drains the queue, so the
// caller plays the io thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <vector>

#include <nlohmann/json.hpp>

#include "Transport.h"

namespace ks::test {

/// Collects what the server sends; runs posted work when the test calls drain().
class FakeTransport final : public server::Transport {
 public:
  void send(const nlohmann::json& message) override {
    std::lock_guard lock(mutex_);
    sent_.push_back(message);
  }
  void post(std::function<void()> fn) override {
    {
      std::lock_guard lock(mutex_);
      queue_.push_back(std::move(fn));
    }
    cv_.notify_all();
  }
  void run(server::MessageHandler&) override {}

  /// Runs queued work until `done()` holds with nothing queued; fails after 60 s.
  template <class Done>
  bool drainUntil(Done done) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    std::unique_lock lock(mutex_);
    while (true) {
      while (!queue_.empty()) {
        auto fn = std::move(queue_.front());
        queue_.pop_front();
        lock.unlock();
        fn();
        lock.lock();
      }
      lock.unlock();
      bool finished = done();
      lock.lock();
      if (finished && queue_.empty()) return true;
      if (std::chrono::steady_clock::now() > deadline) return false;
      cv_.wait_for(lock, std::chrono::milliseconds(1));
    }
  }

  std::vector<nlohmann::json> take() {
    std::lock_guard lock(mutex_);
    std::vector<nlohmann::json> out;
    out.swap(sent_);
    return out;
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  std::vector<nlohmann::json> sent_;
};

}  // namespace ks::test
