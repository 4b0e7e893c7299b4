// An in-process LSP client for tests: an in-memory Transport, a fake compile function
// driven by markers in the kernel text, and sync() that waits for the server to be idle,
// so that no test ever sleeps.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "FakeTransport.h"
#include "JsonRpc.h"
#include "LspServer.h"

namespace ks::test {

using nlohmann::json;

/// A kernel for FakeCompiler. 0-based lines: 1 is the kernel, 2 and 3 produce code (3
/// through core's ptr::add).
inline const std::string kFakeSaxpy =
    "#![no_std]\n"
    "pub unsafe extern \"ptx-kernel\" fn saxpy(n: u32, a: f32, x: *const f32, y: *mut f32) {\n"
    "    let i = idx();\n"
    "    *y.add(i) = a * *x.add(i) + *y.add(i);\n"
    "}\n";

/// A compile function that needs no toolchain. Each source line holding an assignment
/// (`=`) becomes one PTX and two SASS instructions attributed to it; a line containing
/// `ERROR` fails the compile with an error on that line; `SLOW` blocks until cancelled;
/// `SPILL` makes every kernel spill; `pub ... fn NAME` declares a kernel.
class FakeCompiler {
 public:
  CompileResult operator()(const CompileInput& in, const CompileOptions& options,
                           const CancellationToken& cancel);
  std::atomic<int> calls{0};
  std::atomic<int> cancelled{0};
  std::atomic<bool> slowRunning{false};
  std::mutex mutex;
  std::vector<std::string> texts;  // every text compiled, in order
};

/// A server with an in-memory transport, driven by the test thread.
class TestClient {
 public:
  explicit TestClient(server::ServerOptions options = {}, bool initialize = true);
  ~TestClient();

  /// Sends a request, waits until the server is idle, returns the whole response.
  json request(const std::string& method, json params);
  /// Sends a request and returns its response as soon as it is sent, running what the
  /// server posts meanwhile (as the io thread does) without waiting for compiles to end.
  json requestNow(const std::string& method, json params);
  /// Sends a request and returns its result, failing the test on an error response.
  json result(const std::string& method, json params);
  void notify(const std::string& method, json params);
  /// Feeds raw bytes through the framing reader, as a transport would.
  void sendBytes(std::string_view bytes);
  /// Waits until no compile is pending or running and every outcome has been sent.
  void sync();
  /// Waits as sync() does until `condition` also holds; false after 60 s.
  bool syncUntil(const std::function<bool()>& condition);
  /// Runs what the server posted until `condition` holds, busy or not; false after 60 s.
  bool drainUntil(const std::function<bool()>& condition);

  /// Everything the server sent since the last call.
  std::vector<json> messages();
  /// The notifications of `method` among what the server sent (consumes all messages).
  std::vector<json> notifications(const std::string& method);

  /// didOpen of `path` (absolute) with `text`; returns the URI.
  std::string open(const std::string& path, const std::string& text, int version = 1);
  void change(const std::string& uri, const std::string& text, int version);

  FakeCompiler& compiler() { return *compiler_; }
  server::LspServer& server() { return *server_; }

  static server::ServerOptions options(unsigned workers = 0,
                                       std::optional<std::chrono::milliseconds> debounce = {});

 private:
  std::shared_ptr<FakeCompiler> compiler_ = std::make_shared<FakeCompiler>();
  FakeTransport transport_;
  std::unique_ptr<server::LspServer> server_;
  lsp::MessageReader reader_;
  std::vector<json> unread_;
  int nextId_ = 0;
};

}  // namespace ks::test
