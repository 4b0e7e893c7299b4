// Small string helpers: the one line splitter and what the parsers share.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace ks::text {

/// `text` with every control character but (where `keepLines`) newlines and tabs shown as
/// '?': an escape sequence in what came from elsewhere (another machine's output, an
/// environment variable) must not reach a terminal.
inline std::string withoutControls(std::string text, bool keepLines) {
  for (char& c : text) {
    auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 || u == 0x7f) && !(keepLines && (c == '\n' || c == '\t'))) c = '?';
  }
  return text;
}

/// `s` without the blanks (spaces, tabs, carriage returns) it starts with.
inline std::string_view trimLeft(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
    s.remove_prefix(1);
  return s;
}

/// `s` without the blanks it ends with.
inline std::string_view trimRight(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

inline std::string_view trim(std::string_view s) { return trimRight(trimLeft(s)); }

/// Parses a leading unsigned decimal number; advances `s` past it.
inline std::optional<uint32_t> takeUint(std::string_view& s) {
  uint32_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || ptr == s.data()) return std::nullopt;
  s.remove_prefix(static_cast<size_t>(ptr - s.data()));
  return v;
}

inline std::optional<uint32_t> parseUint(std::string_view s) {
  s = trim(s);
  auto v = takeUint(s);
  return v && s.empty() ? v : std::nullopt;
}

/// `s` up to its first newline (all of it when it has none).
inline std::string_view firstLine(std::string_view s) { return s.substr(0, s.find('\n')); }

/// The byte offset of 1-based `line` and `column` (0: the line's start) in `text`, at most
/// its end.
inline size_t offsetOf(std::string_view text, uint32_t line, uint32_t column) {
  size_t pos = 0;
  for (uint32_t l = 1; l < line && pos != std::string_view::npos; ++l) {
    pos = text.find('\n', pos);
    if (pos != std::string_view::npos) ++pos;
  }
  return pos == std::string_view::npos ? text.size()
                                       : std::min(text.size(), pos + (column ? column - 1 : 0));
}

/// Skips spaces and tabs.
inline void skipBlanks(std::string_view& s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
}

/// If `s` starts with `prefix`, removes it and returns true.
inline bool consume(std::string_view& s, std::string_view prefix) {
  if (!s.starts_with(prefix)) return false;
  s.remove_prefix(prefix.size());
  return true;
}

}  // namespace ks::text

namespace ks {

/// Calls `f(line)` for each line of `text` (without its newline, nor a '\r' before one); a
/// trailing newline makes no extra line. For text too large to list its lines first.
template <class F>
void forEachLine(std::string_view text, F&& f) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    f(line);
    pos = nl + 1;
  }
}

/// The lines of `text`, as forEachLine gives them.
inline std::vector<std::string_view> splitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  forEachLine(text, [&](std::string_view line) { lines.push_back(line); });
  return lines;
}
/// The lines would point into a string that is gone at the end of the statement.
template <class S, std::enable_if_t<std::is_same_v<S, std::string>, int> = 0>
std::vector<std::string_view> splitLines(S&& temporary) = delete;

}  // namespace ks
