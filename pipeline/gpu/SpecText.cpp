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

std::vector<std::string> splitTopLevel(std::string_view s, char sep, bool angles) {
  std::vector<std::string> parts;
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
                    LaunchSpec& spec, std::vector<SpecError>& errors) {
  for (const std::string& item : splitTopLevel(text, ';')) {
    if (item.empty()) continue;
    if (spec.items.size() >= kMaxSpecItems) {
      errors.push_back(
          {origin, line, "too many spec items (at most " + std::to_string(kMaxSpecItems) + ")"});
      return;
    }
    size_t eq = item.find('=');
    if (eq == std::string::npos) {
      errors.push_back({origin, line, "expected KEY = VALUE, found '" + item + "'"});
      continue;
    }
    std::string key(text::trim(std::string_view(item).substr(0, eq)));
    std::string value(text::trim(std::string_view(item).substr(eq + 1)));
    if (!isPlainParameterName(key)) {
      errors.push_back({origin, line, "'" + key + "' is not a parameter name or spec key"});
      continue;
    }
    if (value.empty() || value.size() > kMaxValueLength) {
      errors.push_back(
          {origin, line,
           "'" + key + "' needs a value" + (value.empty() ? "" : " shorter than 4096 characters")});
      continue;
    }
    spec.items.push_back({key, value, origin, line});
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
  for (const auto& [line, text] : found) parseSpecItems(text, origin, line, spec, errors);
  return spec;
}

}  // namespace ks::gpu
