// Position encoding conversions and incremental edits on document text.
#include "SourceText.h"

namespace ks::server {
namespace {

/// Byte length of the UTF-8 sequence that starts with `lead` (1 for invalid bytes, so
/// that malformed text still advances).
size_t sequenceLength(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead >> 5) == 0x6) return 2;
  if ((lead >> 4) == 0xE) return 3;
  if ((lead >> 3) == 0x1E) return 4;
  return 1;
}

/// Code units of one character in the given encoding.
int unitsOf(size_t bytes, PositionEncoding enc) {
  if (enc == PositionEncoding::Utf8) return static_cast<int>(bytes);
  return bytes == 4 ? 2 : 1;
}

/// Byte offset of the start of line `line` (0-based); text.size() when past the end.
size_t lineStart(std::string_view text, int line) {
  size_t pos = 0;
  for (int i = 0; i < line; ++i) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) return text.size();
    pos = nl + 1;
  }
  return pos;
}

size_t lineEnd(std::string_view text, size_t start) {
  size_t nl = text.find('\n', start);
  size_t end = nl == std::string_view::npos ? text.size() : nl;
  if (end > start && text[end - 1] == '\r') --end;
  return end;
}

}  // namespace

size_t offsetOf(std::string_view text, lsp::Position pos, PositionEncoding enc) {
  if (pos.line < 0) return 0;
  size_t start = lineStart(text, pos.line);
  size_t end = lineEnd(text, start);
  size_t off = start;
  int units = 0;
  while (off < end && units < pos.character) {
    size_t n = std::min(sequenceLength(static_cast<unsigned char>(text[off])), end - off);
    units += unitsOf(n, enc);
    off += n;
  }
  return off;
}

lsp::Position positionOf(std::string_view text, size_t offset, PositionEncoding enc) {
  offset = std::min(offset, text.size());
  lsp::Position pos;
  size_t start = 0;
  for (size_t nl = text.find('\n'); nl != std::string_view::npos && nl < offset;
       nl = text.find('\n', nl + 1)) {
    ++pos.line;
    start = nl + 1;
  }
  for (size_t off = start; off < offset;) {
    size_t n = std::min(sequenceLength(static_cast<unsigned char>(text[off])), offset - off);
    pos.character += unitsOf(n, enc);
    off += n;
  }
  return pos;
}

lsp::Position positionOfCharColumn(std::string_view text, uint32_t line1, uint32_t column1,
                                   PositionEncoding enc) {
  lsp::Position pos;
  pos.line = line1 > 0 ? static_cast<int>(line1) - 1 : 0;
  size_t start = lineStart(text, pos.line);
  size_t end = lineEnd(text, start);
  size_t off = start;
  for (uint32_t c = 1; c < column1 && off < end; ++c) {
    size_t n = std::min(sequenceLength(static_cast<unsigned char>(text[off])), end - off);
    pos.character += unitsOf(n, enc);
    off += n;
  }
  // Columns past the line's end (rustc points one past it for "expected `;`") stay there.
  return pos;
}

namespace {

/// The end of the line that starts at byte `start`, as an LSP position on line `line`
/// (a line past the end of the text keeps its number).
lsp::Position endOfLineAt(std::string_view text, size_t start, int line, PositionEncoding enc) {
  lsp::Position pos;
  pos.line = line;
  for (size_t off = start, end = lineEnd(text, start); off < end;) {
    size_t n = std::min(sequenceLength(static_cast<unsigned char>(text[off])), end - off);
    pos.character += unitsOf(n, enc);
    off += n;
  }
  return pos;
}

}  // namespace

lsp::Position endOfLine(std::string_view text, int line, PositionEncoding enc) {
  return endOfLineAt(text, lineStart(text, line), line, enc);
}

LineIndex::LineIndex(std::string_view text) : text_(text), starts_{0} {
  for (size_t nl = text.find('\n'); nl != std::string_view::npos; nl = text.find('\n', nl + 1))
    starts_.push_back(nl + 1);
}

lsp::Position LineIndex::endOfLine(int line, PositionEncoding enc) const {
  size_t start = line >= 0 && static_cast<size_t>(line) < starts_.size() ? starts_[line]
                 : line < 0                                              ? 0
                                                                         : text_.size();
  return endOfLineAt(text_, start, line, enc);
}

bool applyEdit(std::string& text, const lsp::Range& range, std::string_view replacement,
               PositionEncoding enc) {
  if (range.end < range.start) return false;
  size_t from = offsetOf(text, range.start, enc);
  size_t to = offsetOf(text, range.end, enc);
  if (to < from) return false;
  text.replace(from, to - from, replacement);
  return true;
}

}  // namespace ks::server
