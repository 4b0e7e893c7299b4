// Parser for LLVM optimization remarks in the YAML form that `-Zremark-dir` writes.
//
// The format is a stream of `--- !Passed|!Missed|!Analysis` documents with a fixed set
// of keys; only the subset below is read, so a small line reader suffices.
#include "Diagnostics.h"
#include "Parsers.h"
#include "TextUtil.h"

namespace ks {

namespace {

/// Unquotes a YAML scalar: 'it''s' -> it's, "x" -> x, plain stays plain.
std::string scalar(std::string_view v) {
  v = text::trim(v);
  if (v.size() >= 2 && v.front() == '\'' && v.back() == '\'') {
    std::string out;
    v = v.substr(1, v.size() - 2);
    for (size_t i = 0; i < v.size(); ++i) {
      out += v[i];
      if (v[i] == '\'' && i + 1 < v.size() && v[i + 1] == '\'') ++i;
    }
    return out;
  }
  if (v.size() >= 2 && v.front() == '"' && v.back() == '"') return std::string(v.substr(1, v.size() - 2));
  return std::string(v);
}

/// Reads `{ File: 'x', Line: 3, Column: 4 }` (possibly spread over several lines).
std::optional<Frame> debugLoc(std::string_view v) {
  Frame f;
  auto valueOf = [&](std::string_view key) -> std::string_view {
    size_t p = v.find(key);
    if (p == std::string_view::npos) return {};
    std::string_view rest = v.substr(p + key.size());
    size_t end = rest.front() == '\'' ? rest.find('\'', 1) + 1 : rest.find_first_of(",}");
    return rest.substr(0, end);
  };
  f.file = normalizePath(scalar(valueOf("File: ")));
  auto line = text::parseUint(valueOf("Line: "));
  auto col = text::parseUint(valueOf("Column: "));
  if (f.file.empty() || !line) return std::nullopt;
  f.line = *line;
  f.column = col.value_or(0);
  return f;
}

}  // namespace

std::vector<Remark> parseRemarksYaml(std::string_view yaml) {
  std::vector<Remark> out;
  auto lines = splitLines(yaml);
  Remark* r = nullptr;
  bool inArgs = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (line.starts_with("--- !")) {
      out.emplace_back();
      r = &out.back();
      std::string_view kind = line.substr(5);
      r->kind = kind.starts_with("Missed") ? Remark::Kind::Missed
                : kind.starts_with("Analysis") ? Remark::Kind::Analysis : Remark::Kind::Passed;
      inArgs = false;
      continue;
    }
    if (!r || line == "...") continue;
    // A flow mapping may continue on the following, more indented lines.
    std::string joined(line);
    while (joined.find('{') != std::string::npos && joined.find('}') == std::string::npos && i + 1 < lines.size())
    {
      joined.push_back(' ');
      joined.append(text::trim(lines[++i]));
    }
    std::string_view t = joined;

    if (!t.starts_with(" ")) {
      inArgs = t.starts_with("Args:");
      std::string_view rest = t;
      if (text::consume(rest, "Pass:")) r->pass = scalar(rest);
      else if (text::consume(rest, "Name:")) r->name = scalar(rest);
      else if (text::consume(rest, "Function:")) r->function = demangleSymbol(scalar(rest));
      else if (text::consume(rest, "DebugLoc:")) r->location = debugLoc(rest);
      continue;
    }
    if (!inArgs) continue;
    // "  - Key: value" starts an argument; "    DebugLoc: ..." belongs to the previous one.
    std::string_view arg = text::trim(t);
    if (!text::consume(arg, "- ")) continue;
    size_t colon = arg.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = arg.substr(0, colon);
    std::string value = scalar(arg.substr(colon + 1));
    if (key == "Callee" || key == "Caller" || key == "Function") value = demangleSymbol(value);
    r->message += value;
  }
  return out;
}

}  // namespace ks
