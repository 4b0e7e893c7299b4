// Transport: how LSP messages reach the server and leave it, and the io thread's queue.
//
// The server sees an abstract Transport; the implementations (stdio, loopback TCP, the
// `---`-separated lit-test mode) live in Transport.cpp, the only file that includes asio.
// Tests provide their own in-memory Transport.
#pragma once

#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ks::server {

/// What a Transport delivers to. Every call happens on the io thread.
class MessageHandler {
 public:
  virtual ~MessageHandler() = default;
  /// One message body as received (not yet parsed: invalid JSON is the handler's to report).
  virtual void onMessage(std::string_view body) = 0;
  /// The byte stream was malformed (garbage, a bad header, an oversized message).
  virtual void onStreamError(const std::string& what) = 0;
  /// True once the handler has seen `exit`; the transport then stops.
  virtual bool finished() const = 0;
  /// True when no work is pending anywhere (used by the lit-test transport to know when
  /// all output of a message has been produced).
  virtual bool idle() const = 0;
};

class Transport {
 public:
  virtual ~Transport() = default;
  /// Sends one message. Called on the io thread only.
  virtual void send(const nlohmann::json& message) = 0;
  /// Runs `fn` on the io thread. Callable from any thread, also after run() returned
  /// (then `fn` is dropped).
  virtual void post(std::function<void()> fn) = 0;
  /// Reads and dispatches messages on the calling thread (which becomes the io thread)
  /// until the handler has finished or the input ends.
  virtual void run(MessageHandler&) = 0;
};

/// LSP over the process's stdin and stdout.
std::unique_ptr<Transport> makeStdioTransport();
/// LSP over one connection accepted on 127.0.0.1:`port`. Nullptr (and `error`) when the
/// port cannot be bound.
std::unique_ptr<Transport> makeTcpTransport(unsigned short port, std::string& error);
/// The test mode: `input` holds JSON messages separated by lines that are exactly `---`;
/// each reply and notification is printed to `output` as pretty JSON followed by `---`.
/// After each message it waits until the handler is idle, so the output is deterministic.
std::unique_ptr<Transport> makeLitTestTransport(std::istream& input, std::ostream& output);

}  // namespace ks::server
