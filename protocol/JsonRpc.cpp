// JSON-RPC framing: the Content-Length reader and the message builders.
//
// Robustness matters more than speed here: an editor that sends one bad frame must not
// take the server down, so every malformed input becomes an Item with an error and the
// reader looks for the next header.
#include "JsonRpc.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace ks::lsp {
namespace {

// The header names LSP defines; a header block starts with one of them.
constexpr std::string_view kHeaderNames[] = {"content-length:", "content-type:"};
constexpr std::string_view kLongestHeaderName = kHeaderNames[0];
// Longest header block accepted; real clients send one or two short lines.
constexpr size_t kMaxHeaderBytes = 4096;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

/// Where the first header line starts in `s` (at its start or after a newline or any
/// byte, since garbage may precede it), matching names case-insensitively.
size_t findHeaderStart(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    for (std::string_view name : kHeaderNames) {
      if (s.size() - i < name.size()) continue;
      bool match = true;
      for (size_t k = 0; k < name.size() && match; ++k)
        match = std::tolower(static_cast<unsigned char>(s[i + k])) == name[k];
      if (match) return i;
    }
  }
  return std::string_view::npos;
}

bool onlyWhitespace(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return c == ' ' || c == '\r' || c == '\n' || c == '\t'; });
}

MessageReader::Item streamError(std::string message) {
  MessageReader::Item item;
  item.ok = false;
  item.error = std::move(message);
  return item;
}

}  // namespace

void MessageReader::feed(std::string_view bytes) { buffer_.append(bytes); }

void MessageReader::compact() {
  if (pos_ > 0 && pos_ * 2 >= buffer_.size()) {
    buffer_.erase(0, pos_);
    pos_ = 0;
  }
}

std::optional<MessageReader::Item> MessageReader::next() {
  while (true) {
    compact();
    std::string_view avail(buffer_.data() + pos_, buffer_.size() - pos_);
    switch (state_) {
      case State::Skip: {
        size_t n = std::min(remaining_, avail.size());
        pos_ += n;
        remaining_ -= n;
        if (remaining_ > 0) return std::nullopt;
        state_ = State::Header;
        continue;
      }
      case State::Body: {
        if (avail.size() < remaining_) return std::nullopt;
        Item item;
        item.body.assign(avail.substr(0, remaining_));
        pos_ += remaining_;
        remaining_ = 0;
        state_ = State::Header;
        return item;
      }
      case State::Header:
        return readHeader();
    }
  }
}

std::optional<MessageReader::Item> MessageReader::readHeader() {
  std::string_view avail(buffer_.data() + pos_, buffer_.size() - pos_);
  // Bytes before the next header are garbage; drop them and say so once.
  size_t header = findHeaderStart(avail);
  if (header == std::string_view::npos) {
    // Keep a tail that could be the start of a header split across reads.
    size_t keep = std::min(avail.size(), kLongestHeaderName.size() - 1);
    std::string_view dropped = avail.substr(0, avail.size() - keep);
    pos_ += dropped.size();
    if (!onlyWhitespace(dropped))
      return streamError("skipped " + std::to_string(dropped.size()) +
                         " bytes that are not a message header");
    return std::nullopt;
  }
  if (header > 0) {
    std::string_view dropped = avail.substr(0, header);
    pos_ += header;
    if (!onlyWhitespace(dropped))
      return streamError("skipped " + std::to_string(dropped.size()) +
                         " bytes that are not a message header");
    avail.remove_prefix(header);
  }
  size_t end = avail.find("\r\n\r\n");
  if (end == std::string_view::npos) {
    if (avail.size() > kMaxHeaderBytes) {
      pos_ += 1;  // resynchronize on the next header
      return streamError("message header is not terminated");
    }
    return std::nullopt;
  }
  std::string_view block = avail.substr(0, end);
  std::optional<size_t> length;
  std::string problem;
  while (!block.empty()) {
    size_t eol = block.find("\r\n");
    std::string_view line = block.substr(0, eol);
    block = eol == std::string_view::npos ? std::string_view{} : block.substr(eol + 2);
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      problem = "malformed header line";
      break;
    }
    std::string_view name = trim(line.substr(0, colon));
    std::string_view value = trim(line.substr(colon + 1));
    if (iequals(name, "Content-Length")) {
      size_t n = 0;
      auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (ec != std::errc() || ptr != value.data() + value.size()) {
        problem = "invalid Content-Length '" + std::string(value.substr(0, 32)) + "'";
        break;
      }
      length = n;
    }
  }
  if (problem.empty() && !length) problem = "missing Content-Length";
  if (!problem.empty()) {
    pos_ += 1;  // resynchronize on the next header
    return streamError(problem);
  }
  pos_ += end + 4;
  remaining_ = *length;
  if (*length > maxMessageBytes_) {
    state_ = State::Skip;
    return streamError("message of " + std::to_string(*length) + " bytes exceeds the limit of " +
                       std::to_string(maxMessageBytes_) + " bytes");
  }
  state_ = State::Body;
  return next();
}

bool nestsDeeperThan(std::string_view text, size_t maxDepth) {
  size_t depth = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > maxDepth) return true;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

std::string frame(std::string_view body) {
  std::string out = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  out.append(body);
  return out;
}

json makeResponse(const json& id, json result) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

json makeErrorResponse(const json& id, ErrorCode code, std::string_view message) {
  return json{{"jsonrpc", "2.0"},
              {"id", id},
              {"error", {{"code", static_cast<int>(code)}, {"message", message}}}};
}

json makeNotification(std::string_view method, json params) {
  return json{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}};
}

json makeRequest(const json& id, std::string_view method, json params) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
}

}  // namespace ks::lsp
