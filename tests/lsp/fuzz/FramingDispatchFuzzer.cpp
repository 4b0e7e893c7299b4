// libFuzzer target over framing and dispatch: arbitrary bytes go through the
// Content-Length reader and every message into a server whose compiles are instant
// and canned. Anything but an answer (a crash, a hang, a sanitizer report) is a bug.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>

#include "JsonRpc.h"
#include "LspServer.h"

namespace {

class QueueTransport final : public ks::server::Transport {
 public:
  void send(const nlohmann::json& message) override {
    sent += message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).size();
  }
  void post(std::function<void()> fn) override { queue.push_back(std::move(fn)); }
  void run(ks::server::MessageHandler&) override {}
  void drain() {
    while (!queue.empty()) {
      auto fn = std::move(queue.front());
      queue.pop_front();
      fn();
    }
  }
  std::deque<std::function<void()>> queue;
  size_t sent = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  QueueTransport transport;
  ks::server::ServerOptions options;
  options.scheduler.workers = 0;  // compiles run inline from the queue
  options.deterministic = true;
  options.compile = [](const ks::CompileInput&, const ks::CompileOptions& o, const ks::CancellationToken&) {
    ks::CompileResult r;
    r.succeeded = true;
    r.arch = o.arch;
    return r;
  };
  ks::server::LspServer server(transport, options);
  // Most inputs should reach dispatch, so start initialized.
  server.onMessage(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"capabilities":{}}})");
  ks::lsp::MessageReader reader(1 << 20);
  reader.feed(std::string_view(reinterpret_cast<const char*>(data), size));
  while (auto item = reader.next()) {
    if (item->ok)
      server.onMessage(item->body);
    else
      server.onStreamError(item->error);
    transport.drain();
    if (server.finished()) break;
  }
  return 0;
}
