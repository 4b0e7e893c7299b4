#include "SpecText.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <utility>

#include "LaunchPlan.h"
#include "TextUtil.h"

namespace ks::gpu {

namespace {
constexpr size_t kMaxSpecItems = 256;
constexpr size_t kMaxValueLength = 4096;
constexpr std::string_view kSpecMarker = "kernelscope:";

/// The spec text of a line's `// kernelscope:` comment, if it has one.
std::optional<std::string_view> specText(std::string_view line) {
  for (size_t at = line.find("//"); at != std::string_view::npos; at = line.find("//", at + 2)) {
    std::string_view rest = line.substr(at);
    while (rest.starts_with("/")) rest.remove_prefix(1);
    rest = text::trim(rest);
    if (rest.starts_with(kSpecMarker)) return rest.substr(kSpecMarker.size());
  }
  return std::nullopt;
}
}  // namespace

std::string_view trimSpace(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool isIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool isIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

namespace {
/// splitTopLevel's parts as views into `s` (so that their columns are known).
std::vector<std::string_view> topLevelParts(std::string_view s, char sep, bool angles) {
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '(' || c == '[' || c == '{' || (angles && c == '<'))
      ++depth;
    else if ((c == ')' || c == ']' || c == '}' || (angles && c == '>')) && depth > 0)
      --depth;
    else if (c == sep && depth == 0) {
      parts.emplace_back(trimSpace(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  parts.emplace_back(trimSpace(s.substr(start)));
  return parts;
}
}  // namespace

std::vector<std::string> splitTopLevel(std::string_view s, char sep, bool angles) {
  std::vector<std::string_view> parts = topLevelParts(s, sep, angles);
  return {parts.begin(), parts.end()};
}

std::string_view specErrorCode(SpecErrorKind kind) {
  switch (kind) {
    case SpecErrorKind::Syntax:
      return "spec-syntax";
    case SpecErrorKind::UnknownName:
      return "spec-unknown-name";
    case SpecErrorKind::MissingParameter:
      return "spec-missing-parameter";
    case SpecErrorKind::MissingLaunch:
      return "spec-missing-launch";
    case SpecErrorKind::ShiftPrecedence:
      return "spec-shift-precedence";
    case SpecErrorKind::Expression:
      return "spec-expression";
    case SpecErrorKind::Value:
      return "spec-value";
  }
  return "spec-value";
}

std::string SpecError::describe() const {
  std::string where = origin;
  if (line) where += ":" + std::to_string(line);
  return where.empty() ? message : where + ": " + message;
}

const SpecItem* LaunchSpec::find(std::string_view key) const {
  for (auto it = items.rbegin(); it != items.rend(); ++it)
    if (it->key == key) return &*it;
  return nullptr;
}

void parseSpecItems(std::string_view text, const std::string& origin, uint32_t line,
                    LaunchSpec& spec, std::vector<SpecError>& errors, uint32_t column) {
  // The 1-based column of a view into `text`, 0 when `text` is not from a line.
  auto columnOf = [&](std::string_view part) {
    return column ? column + static_cast<uint32_t>(part.data() - text.data()) : 0;
  };
  auto syntaxError = [&](std::string_view part, std::string message) {
    SpecError e(origin, line, std::move(message), SpecErrorKind::Syntax);
    if (uint32_t at = columnOf(part)) {
      e.column = at;
      e.endColumn = at + static_cast<uint32_t>(part.size());
    }
    errors.push_back(std::move(e));
  };
  for (std::string_view item : topLevelParts(text, ';', false)) {
    if (item.empty()) continue;
    if (spec.items.size() >= kMaxSpecItems) {
      syntaxError(item, "too many spec items (at most " + std::to_string(kMaxSpecItems) + ")");
      return;
    }
    size_t eq = item.find('=');
    if (eq == std::string::npos) {
      syntaxError(item, "expected KEY = VALUE, found '" + std::string(item) + "'");
      continue;
    }
    std::string_view key = text::trim(item.substr(0, eq));
    std::string_view value = text::trim(item.substr(eq + 1));
    if (!isPlainParameterName(key)) {
      syntaxError(key.empty() ? item : key,
                  "'" + std::string(key) + "' is not a parameter name or spec key");
      continue;
    }
    if (value.empty() || value.size() > kMaxValueLength) {
      syntaxError(item, "'" + std::string(key) + "' needs a value" +
                            (value.empty() ? "" : " shorter than 4096 characters"));
      continue;
    }
    SpecItem parsed;
    parsed.key = key;
    parsed.value = value;
    parsed.origin = origin;
    parsed.line = line;
    parsed.keyColumn = columnOf(key);
    parsed.valueColumn = columnOf(value);
    spec.items.push_back(std::move(parsed));
  }
}

LaunchSpec specFromComments(std::string_view source, uint32_t kernelLine, const std::string& origin,
                            std::vector<SpecError>& errors) {
  const std::vector<std::string_view> lines = splitLines(source);
  LaunchSpec spec;
  if (kernelLine == 0 || kernelLine > lines.size()) return spec;
  // Walk up from the kernel's line over its declaration (`pub unsafe extern ... fn` may sit
  // on the lines above the name), attributes and comments, to the first blank or code line.
  // A spec may also trail one of those lines (`#[no_mangle] // kernelscope: block = 256`).
  std::vector<std::pair<uint32_t, std::string_view>> found;
  if (auto t = specText(lines[kernelLine - 1])) found.emplace_back(kernelLine, *t);
  for (int64_t i = static_cast<int64_t>(kernelLine) - 2; i >= 0; --i) {
    std::string_view l = text::trim(lines[static_cast<size_t>(i)]);
    if (l.empty()) break;
    bool comment = l.starts_with("//");
    bool declaration = l.starts_with("#[") || l.starts_with("__global__") ||
                       l.starts_with("extern") || l.starts_with("template") ||
                       l.starts_with("pub ") || l.starts_with("unsafe ");
    if (!comment && !declaration) break;
    if (auto t = specText(l)) found.emplace_back(static_cast<uint32_t>(i + 1), *t);
  }
  std::reverse(found.begin(), found.end());
  for (const auto& [line, text] : found) {
    const std::string_view whole = lines[line - 1];
    parseSpecItems(text, origin, line, spec, errors,
                   static_cast<uint32_t>(text.data() - whole.data()) + 1);
  }
  return spec;
}

}  // namespace ks::gpu
