// libFuzzer target over framing and dispatch: arbitrary bytes go through the
// Content-Length reader and every message into a server whose compiles are instant
// and canned. Anything but an answer (a crash, a hang, a sanitizer report) is a bug.
//
// Besides libFuzzer's byte mutations (guided by lsp.dict), a custom mutator now and then
// frames a message whose JSON nests thousands of levels deep, as a hostile client would
// send: byte mutations alone never build one.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <string>

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

/// A framed message with `depth` nested arrays or objects, inside a request's params or bare.
std::string deeplyNested(unsigned seed, size_t maxSize) {
  size_t depth = 1 + seed % 150000;
  bool objects = seed & 1, wrapped = seed & 2, closed = seed & 4;
  std::string open = objects ? "{\"a\":" : "[", close = objects ? "}" : "]";
  std::string body =
      wrapped ? R"({"jsonrpc":"2.0","id":7,"method":"$/cancelRequest","params":{"id":)" : "";
  for (size_t i = 0; i < depth; ++i) body += open;
  body += "0";
  if (closed)
    for (size_t i = 0; i < depth; ++i) body += close;
  if (wrapped) body += "}}";
  std::string framed = ks::lsp::frame(body);
  return framed.size() <= maxSize ? framed : framed.substr(0, maxSize);
}

}  // namespace

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t maxSize);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t maxSize,
                                          unsigned seed) {
  if (seed % 16 != 0) return LLVMFuzzerMutate(data, size, maxSize);
  std::string input = deeplyNested(seed / 16, maxSize);
  std::memcpy(data, input.data(), input.size());
  return input.size();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  QueueTransport transport;
  ks::server::ServerOptions options;
  options.scheduler.workers = 0;  // compiles run inline from the queue
  options.deterministic = true;
  options.compile = [](const ks::CompileInput&, const ks::CompileOptions& o,
                       const ks::CancellationToken&) {
    ks::CompileResult r;
    r.succeeded = true;
    r.arch = o.arch.value_or(std::string(ks::kDefaultArch));
    return r;
  };
  ks::server::LspServer server(transport, options);
  // Most inputs should reach dispatch, so start initialized.
  server.onMessage(
      R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"capabilities":{}}})");
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
