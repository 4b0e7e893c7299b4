// JSON-RPC 2.0 over LSP's base protocol: Content-Length framing and message builders.
//
// The reader is a pure byte-in, message-out state machine with no I/O of its own, so the
// stdio, TCP and test transports share it and a fuzzer can drive it directly. It never
// throws on bad input: garbage, malformed headers and oversized messages come out as
// errors, after which it resynchronizes on the next `Content-Length:` header.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include <nlohmann/json.hpp>

namespace ks::lsp {

using json = nlohmann::json;

/// The JSON-RPC and LSP error codes the server uses.
enum class ErrorCode : int {
  ParseError = -32700,
  InvalidRequest = -32600,
  MethodNotFound = -32601,
  InvalidParams = -32602,
  InternalError = -32603,
  ServerNotInitialized = -32002,
  RequestFailed = -32803,
  ServerCancelled = -32802,
  ContentModified = -32801,
  RequestCancelled = -32800,
};

/// An error to answer a request with.
struct ResponseError {
  ErrorCode code = ErrorCode::InternalError;
  std::string message;
};

/// A request's outcome: a result or a ResponseError.
template <class T>
class Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}
  Expected(ResponseError error) : v_(std::move(error)) {}
  explicit operator bool() const { return v_.index() == 0; }
  T& operator*() { return std::get<0>(v_); }
  const T& operator*() const { return std::get<0>(v_); }
  T* operator->() { return &std::get<0>(v_); }
  const ResponseError& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, ResponseError> v_;
};

/// Splits a byte stream into message bodies.
class MessageReader {
 public:
  /// Messages longer than `maxMessageBytes` are skipped and reported as an error.
  explicit MessageReader(size_t maxMessageBytes = size_t{64} << 20)
      : maxMessageBytes_(maxMessageBytes) {}

  struct Item {
    bool ok = true;    // false: `error` says what was wrong with the stream
    std::string body;  // the message body when ok
    std::string error;
  };

  /// Appends bytes read from the stream.
  void feed(std::string_view bytes);
  /// The next complete message or stream error; nullopt when more bytes are needed.
  std::optional<Item> next();
  /// Bytes received but not yet consumed.
  size_t buffered() const { return buffer_.size() - pos_; }

 private:
  enum class State { Header, Body, Skip };
  std::optional<Item> readHeader();
  void compact();

  size_t maxMessageBytes_;
  std::string buffer_;
  size_t pos_ = 0;
  State state_ = State::Header;
  size_t remaining_ = 0;  // body bytes still expected (Body) or to drop (Skip)
};

/// How deeply a message's JSON may nest. LSP messages nest a dozen levels; copying or
/// printing a parsed value recurses once per level, so a deeper one is refused unparsed.
inline constexpr size_t kMaxJsonDepth = 256;

/// Whether `text`'s arrays and objects nest deeper than `maxDepth`, counted without
/// parsing (brackets inside strings do not count), so that the check itself cannot
/// overflow the stack.
bool nestsDeeperThan(std::string_view text, size_t maxDepth = kMaxJsonDepth);

/// The message framed for the wire: `Content-Length: N\r\n\r\n` then the body.
std::string frame(std::string_view body);

json makeResponse(const json& id, json result);
json makeErrorResponse(const json& id, ErrorCode code, std::string_view message);
json makeNotification(std::string_view method, json params);
json makeRequest(const json& id, std::string_view method, json params);

}  // namespace ks::lsp
