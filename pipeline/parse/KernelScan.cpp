// Lexical scan for kernel entry points. See KernelScan.h.
#include "KernelScan.h"

#include <algorithm>
#include <cctype>

namespace ks {

namespace {

/// The source with comments and string/char literals blanked out (newlines kept), so
/// that positions stay the same and nothing inside them looks like code.
std::string codeOnly(std::string_view s) {
  std::string out(s);
  size_t i = 0;
  auto blank = [&](size_t from, size_t to) {
    for (size_t k = from; k < to && k < out.size(); ++k)
      if (out[k] != '\n') out[k] = ' ';
  };
  while (i < s.size()) {
    if (s.compare(i, 2, "//") == 0) {
      size_t e = s.find('\n', i);
      e = e == std::string_view::npos ? s.size() : e;
      blank(i, e);
      i = e;
    } else if (s.compare(i, 2, "/*") == 0) {
      size_t e = s.find("*/", i + 2);
      e = e == std::string_view::npos ? s.size() : e + 2;
      blank(i, e);
      i = e;
    } else if (s[i] == '"' &&
               !(i > 0 && s[i - 1] == '\'' && i + 1 < s.size() && s[i + 1] == '\'')) {  // not '"'
      // Keep the ABI string of `extern "ptx-kernel"` (and C++'s `extern "C"`) readable.
      size_t e = i + 1;
      while (e < s.size() && s[e] != '"') e += s[e] == '\\' ? 2 : 1;
      std::string_view lit = s.substr(i, e + 1 - i);
      if (lit != "\"ptx-kernel\"" && lit != "\"gpu-kernel\"" && lit != "\"C\"") blank(i + 1, e);
      i = e + 1;
    } else {
      ++i;
    }
  }
  return out;
}

bool identChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

/// Reads the identifier at or after `i` (skipping blanks); returns its start, or npos.
size_t identifierAt(const std::string& s, size_t i, std::string& name) {
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  size_t start = i;
  while (i < s.size() && identChar(s[i])) ++i;
  name = s.substr(start, i - start);
  return name.empty() ? std::string::npos : start;
}

bool wordAt(const std::string& s, size_t i, std::string_view w) {
  return s.compare(i, w.size(), w) == 0 && (i == 0 || !identChar(s[i - 1])) &&
         (i + w.size() >= s.size() || !identChar(s[i + w.size()]));
}

}  // namespace

std::vector<KernelEntry> scanKernelEntries(std::string_view source, bool cuda) {
  const std::string s = codeOnly(source);
  std::vector<uint32_t> lineStart = {0};
  for (size_t i = 0; i < s.size(); ++i)
    if (s[i] == '\n') lineStart.push_back(static_cast<uint32_t>(i + 1));
  auto entry = [&](size_t pos, std::string name, KernelMarker m) {
    auto it = std::upper_bound(lineStart.begin(), lineStart.end(), pos);
    uint32_t line = static_cast<uint32_t>(it - lineStart.begin());
    return KernelEntry{std::move(name), line, static_cast<uint32_t>(pos - lineStart[line - 1] + 1),
                       m};
  };

  std::vector<KernelEntry> out;
  std::string name;
  if (cuda) {
    // __global__ [qualifiers, return type, __launch_bounds__(...)] NAME (
    for (size_t i = s.find("__global__"); i != std::string::npos;
         i = s.find("__global__", i + 10)) {
      if (!wordAt(s, i, "__global__")) continue;
      for (size_t paren = s.find('(', i); paren != std::string::npos;
           paren = s.find('(', paren + 1)) {
        size_t e = paren;
        while (e > i && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
        size_t b = e;
        while (b > i && identChar(s[b - 1])) --b;
        std::string name = s.substr(b, e - b);
        if (name.starts_with("__") &&
            name.ends_with("__")) {  // an attribute macro: skip its arguments
          paren = s.find(')', paren);
          if (paren == std::string::npos) break;
          continue;
        }
        if (!name.empty()) out.push_back(entry(b, name, KernelMarker::CudaGlobal));
        break;
      }
    }
    return out;
  }
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '"' &&
        (s.compare(i, 12, "\"ptx-kernel\"") == 0 || s.compare(i, 12, "\"gpu-kernel\"") == 0)) {
      size_t fn = i + 12;
      while (fn < s.size() && std::isspace(static_cast<unsigned char>(s[fn]))) ++fn;
      if (!wordAt(s, fn, "fn")) continue;
      if (size_t p = identifierAt(s, fn + 2, name); p != std::string::npos)
        out.push_back(entry(p, name, KernelMarker::PtxKernelAbi));
    } else if (s[i] == '#' && i + 1 < s.size() && s[i + 1] == '[') {
      // #[kernel] or #[cuda_std::kernel], then further attributes and qualifiers, then `fn NAME`.
      size_t close = s.find(']', i);
      if (close == std::string::npos) break;
      std::string attr;
      for (char c : s.substr(i + 2, close - i - 2))
        if (!std::isspace(static_cast<unsigned char>(c))) attr += c;
      if (attr != "kernel" && !attr.ends_with("::kernel") && !attr.starts_with("kernel(")) continue;
      size_t fn = s.find("fn", close);
      while (fn != std::string::npos && !wordAt(s, fn, "fn")) fn = s.find("fn", fn + 2);
      if (fn == std::string::npos) continue;
      if (size_t p = identifierAt(s, fn + 2, name); p != std::string::npos)
        out.push_back(entry(p, name, KernelMarker::KernelAttribute));
      i = close;
    }
  }
  return out;
}

std::optional<KernelEntry> kernelEntryFor(std::string_view source, std::string_view symbol) {
  auto entries = scanKernelEntries(source);
  for (auto& k : entries)  // an exact name first: `add` must not match `my_add`
    if (symbol == k.name) return k;
  for (auto& k : entries)
    if (symbol.size() > k.name.size() && symbol.ends_with(k.name) &&
        symbol[symbol.size() - k.name.size() - 1] == '_')
      return k;
  return std::nullopt;
}

}  // namespace ks
