// The text helpers and table lookups the stage decoders share. See internal/Decoding.h.
#include "Decoding.h"

#include "TextUtil.h"

namespace ks::docs {

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

/// Splits operands at top-level commas (not inside brackets, braces or parentheses).
std::vector<std::string_view> splitOperands(std::string_view s) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    char c = i < s.size() ? s[i] : ',';
    if (c == '[' || c == '{' || c == '(') ++depth;
    if (c == ']' || c == '}' || c == ')') --depth;
    if (c == ',' && depth <= 0) {
      auto op = text::trim(s.substr(start, i - start));
      if (!op.empty()) out.push_back(op);
      start = i + 1;
    }
  }
  return out;
}

/// Takes the first blank-separated word of `s` and advances past it.
std::string_view takeWord(std::string_view& s) {
  text::skipBlanks(s);
  size_t n = 0;
  while (n < s.size() && s[n] != ' ' && s[n] != '\t') ++n;
  std::string_view w = s.substr(0, n);
  s.remove_prefix(n);
  text::skipBlanks(s);
  return w;
}

std::string_view stripTrailingSemicolon(std::string_view s) {
  s = text::trim(s);
  while (!s.empty() && s.back() == ';') s = text::trim(s.substr(0, s.size() - 1));
  return s;
}

std::string_view stripLineComment(std::string_view s) {
  // A `//` inside a string literal (a .file path, a .pragma) is not a comment.
  bool inString = false;
  for (size_t i = 0; i + 1 < s.size(); ++i) {
    if (s[i] == '"') inString = !inString;
    if (!inString && s[i] == '/' && s[i + 1] == '/') return s.substr(0, i);
  }
  return s;
}

const Opcode* findOpcode(std::span<const Opcode> table, std::string_view name) {
  for (const Opcode& o : table)
    if (o.name == name) return &o;
  return nullptr;
}

bool isLabelLine(std::string_view s) {
  if (s.size() < 2 || s.back() != ':') return false;
  for (char c : s.substr(0, s.size() - 1))
    if (c == ' ' || c == '\t' || c == ',' || c == '(') return false;
  return true;
}

InstructionDoc labelDoc(Stage stage, std::string_view label, std::string_view what) {
  InstructionDoc d;
  d.stage = stage;
  d.mnemonic = "label";
  d.written = std::string(label);
  d.category = "label";
  d.summary = std::string(what);
  return d;
}

}  // namespace ks::docs
