// Positions in document text: LSP line/character (UTF-16 or UTF-8 code units) to byte
// offsets and back, and applying incremental edits.
//
// Every feature that turns a compiler's column into an LSP position, and every
// didChange, goes through here so that the encoding is handled in one place.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "Protocol.h"

namespace ks::server {

enum class PositionEncoding { Utf16, Utf8 };

/// The byte offset of `pos` in `text`, clamped to the line's end and the text's end.
size_t offsetOf(std::string_view text, lsp::Position pos, PositionEncoding);
/// The LSP position of a byte offset.
lsp::Position positionOf(std::string_view text, size_t offset, PositionEncoding);
/// The LSP position of a 1-based line and 1-based column counted in characters (Unicode
/// scalar values), as rustc reports them. Line 0 or column 0 mean the line's start.
lsp::Position positionOfCharColumn(std::string_view text, uint32_t line1, uint32_t column1,
                                   PositionEncoding);
/// The end of line `line` (0-based) as an LSP position.
lsp::Position endOfLine(std::string_view text, int line, PositionEncoding);

/// Where each line of a text starts, found in one pass, so that a feature asking about
/// every line (inlay hints) costs the length of the text, not its square.
class LineIndex {
 public:
  explicit LineIndex(std::string_view text);
  /// The end of line `line` (0-based) as endOfLine() gives it.
  lsp::Position endOfLine(int line, PositionEncoding) const;

 private:
  std::string_view text_;
  std::vector<size_t> starts_;
};
/// Replaces `range` in `text` with `replacement`. Returns false on a range that starts
/// after it ends.
bool applyEdit(std::string& text, const lsp::Range& range, std::string_view replacement,
               PositionEncoding);

}  // namespace ks::server
