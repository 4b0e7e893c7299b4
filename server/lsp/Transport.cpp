// Transports: stdio, loopback TCP and the lit-test mode. The only file that includes asio.
//
// Stdio and TCP share one shape: a reader thread does blocking reads (which works for
// pipes, files and terminals alike), splits the bytes with lsp::MessageReader and posts
// each message to the asio io_context that the io thread runs. Writes happen on the io
// thread. The lit-test transport needs no event loop: it feeds messages one by one and
// drains posted work until the server is idle, so its output is deterministic.
#include "Transport.h"

#include <condition_variable>
#include <deque>
#include <istream>
#include <mutex>
#include <ostream>
#include <sstream>
#include <thread>

#include <unistd.h>
#include <asio.hpp>

#include "JsonRpc.h"

namespace ks::server {
namespace {

/// Writes all of `data` to `fd`; gives up silently when the peer is gone.
void writeAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
}

/// State shared with the detached reader thread; it outlives run() so that a reader
/// still blocked in read() when the server exits touches nothing that is gone.
struct FdState {
  asio::io_context io;
  MessageHandler* handler = nullptr;
  std::optional<asio::ip::tcp::socket> socket;  // keeps a TCP connection open
};

class FdTransport final : public Transport {
 public:
  FdTransport(int in, int out, std::shared_ptr<FdState> state)
      : in_(in), out_(out), state_(std::move(state)) {}

  void send(const nlohmann::json& message) override {
    writeAll(out_,
             lsp::frame(message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
  }

  void post(std::function<void()> fn) override {
    std::shared_ptr<FdState> state = state_;
    asio::post(state->io, [state, fn = std::move(fn)] {
      fn();
      if (state->handler && state->handler->finished()) state->io.stop();
    });
  }

  void run(MessageHandler& handler) override {
    state_->handler = &handler;
    auto guard = asio::make_work_guard(state_->io);
    std::thread([state = state_, in = in_] { readLoop(state, in); }).detach();
    state_->io.run();
    state_->handler = nullptr;
  }

 private:
  static void readLoop(std::shared_ptr<FdState> state, int fd) {
    lsp::MessageReader reader;
    char buf[65536];
    while (true) {
      ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      reader.feed(std::string_view(buf, static_cast<size_t>(n)));
      while (auto item = reader.next()) {
        asio::post(state->io, [state, item = std::move(*item)] {
          if (!state->handler) return;
          if (item.ok)
            state->handler->onMessage(item.body);
          else
            state->handler->onStreamError(item.error);
          if (state->handler->finished()) state->io.stop();
        });
      }
    }
    // The client went away without `exit`: stop serving.
    asio::post(state->io, [state] { state->io.stop(); });
  }

  int in_, out_;
  std::shared_ptr<FdState> state_;
};

class LitTestTransport final : public Transport {
 public:
  LitTestTransport(std::istream& in, std::ostream& out) : in_(in), out_(out) {}

  void send(const nlohmann::json& message) override {
    out_ << message.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n---\n";
    out_.flush();
  }

  void post(std::function<void()> fn) override {
    {
      std::lock_guard lock(mutex_);
      queue_.push_back(std::move(fn));
    }
    cv_.notify_one();
  }

  void run(MessageHandler& handler) override {
    std::string line, chunk;
    auto dispatch = [&] {
      if (chunk.find_first_not_of(" \t\r\n") != std::string::npos) {
        handler.onMessage(chunk);
        drain(handler);
      }
      chunk.clear();
    };
    while (!handler.finished() && std::getline(in_, line)) {
      if (line == "---" || line == "---\r")
        dispatch();
      else
        chunk += line + "\n";
    }
    if (!handler.finished()) dispatch();
  }

 private:
  /// Runs posted work until the handler is idle and nothing is queued.
  void drain(MessageHandler& handler) {
    std::unique_lock lock(mutex_);
    while (true) {
      while (!queue_.empty()) {
        auto fn = std::move(queue_.front());
        queue_.pop_front();
        lock.unlock();
        fn();
        lock.lock();
      }
      if (handler.idle() || handler.finished()) return;
      cv_.wait_for(lock, std::chrono::milliseconds(50));
    }
  }

  std::istream& in_;
  std::ostream& out_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
};

}  // namespace

std::unique_ptr<Transport> makeStdioTransport() {
  return std::make_unique<FdTransport>(STDIN_FILENO, STDOUT_FILENO, std::make_shared<FdState>());
}

std::unique_ptr<Transport> makeTcpTransport(unsigned short port, std::string& error) {
  auto state = std::make_shared<FdState>();
  try {
    asio::ip::tcp::acceptor acceptor(
        state->io, asio::ip::tcp::endpoint(asio::ip::address_v4::loopback(), port));
    state->socket.emplace(state->io);
    acceptor.accept(*state->socket);
  } catch (const std::exception& e) {
    error = "cannot listen on 127.0.0.1:" + std::to_string(port) + ": " + e.what();
    return nullptr;
  }
  int fd = state->socket->native_handle();
  return std::make_unique<FdTransport>(fd, fd, std::move(state));
}

std::unique_ptr<Transport> makeLitTestTransport(std::istream& input, std::ostream& output) {
  return std::make_unique<LitTestTransport>(input, output);
}

}  // namespace ks::server
