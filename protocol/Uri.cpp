// URI encoding and decoding for source files and kernelscope's virtual documents.
#include "Uri.h"

#include <cctype>
#include <charconv>

namespace ks::lsp {
namespace {

constexpr std::string_view kFileScheme = "file://";
constexpr std::string_view kVirtualScheme = "kernelscope:";

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::optional<std::string> percentDecode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out.push_back(s[i]);
      continue;
    }
    if (i + 2 >= s.size()) return std::nullopt;
    int hi = hexValue(s[i + 1]), lo = hexValue(s[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return out;
}

std::string percentEncodePath(std::string_view path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : path) {
    bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '/' || c == '-' || c == '_' || c == '.' || c == '~';
    if (keep) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

/// A decoded absolute path of a file: no NUL bytes, not relative, not a directory.
bool acceptablePath(const std::string& path) {
  return path.size() > 1 && path.front() == '/' && path.back() != '/' &&
         path.find('\0') == std::string::npos;
}

}  // namespace

std::optional<std::string> fileUriToPath(std::string_view uri) {
  if (uri.substr(0, kFileScheme.size()) != kFileScheme) return std::nullopt;
  std::string_view rest = uri.substr(kFileScheme.size());
  // Only local files: an empty authority or "localhost".
  size_t slash = rest.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  std::string_view authority = rest.substr(0, slash);
  if (!authority.empty() && authority != "localhost") return std::nullopt;
  auto path = percentDecode(rest.substr(slash));
  if (!path || !acceptablePath(*path)) return std::nullopt;
  return path;
}

std::string pathToFileUri(std::string_view path) {
  return std::string(kFileScheme) + percentEncodePath(path);
}

std::string makeVirtualUri(std::string_view stage, std::string_view extension,
                           std::string_view path, std::optional<int> revision) {
  std::string uri = std::string(kVirtualScheme) + "/" + std::string(stage) +
                    percentEncodePath(path) + "." + std::string(extension);
  if (revision) uri += "?rev=" + std::to_string(*revision);
  return uri;
}

std::optional<VirtualUri> parseVirtualUri(std::string_view uri,
                                          std::string_view (*extensionOf)(std::string_view)) {
  if (uri.substr(0, kVirtualScheme.size()) != kVirtualScheme) return std::nullopt;
  std::string_view rest = uri.substr(kVirtualScheme.size());
  // Clients may normalize `kernelscope:/x` to `kernelscope:///x`.
  while (rest.substr(0, 2) == "//") rest.remove_prefix(2);
  if (rest.empty() || rest.front() != '/') return std::nullopt;
  rest.remove_prefix(1);
  VirtualUri v;
  if (size_t q = rest.find('?'); q != std::string_view::npos) {
    std::string_view query = rest.substr(q + 1);
    rest = rest.substr(0, q);
    if (query.substr(0, 4) != "rev=") return std::nullopt;
    query.remove_prefix(4);
    int rev = 0;
    auto [ptr, ec] = std::from_chars(query.data(), query.data() + query.size(), rev);
    if (ec != std::errc() || ptr != query.data() + query.size() || rev < 0) return std::nullopt;
    v.revision = rev;
  }
  size_t slash = rest.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  v.stage = std::string(rest.substr(0, slash));
  auto path = percentDecode(rest.substr(slash));
  if (!path) return std::nullopt;
  std::string_view ext = extensionOf(v.stage);
  std::string_view decoded = *path;
  if (ext.empty() || decoded.size() <= ext.size() + 1 || !decoded.ends_with(ext) ||
      decoded[decoded.size() - ext.size() - 1] != '.')
    return std::nullopt;
  path->resize(decoded.size() - ext.size() - 1);
  if (!acceptablePath(*path)) return std::nullopt;
  v.path = std::move(*path);
  return v;
}

std::string makePassesUri(std::string_view path, std::string_view kernel) {
  std::string uri = makeVirtualUri("passes", "passes", path) + "?kernel=";
  for (char c : kernel) {  // kernel names are identifiers and paths ("m::k"); encode the rest
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':' || c == '.' ||
        c == '-') {
      uri += c;
    } else {
      static const char* hex = "0123456789ABCDEF";
      uri += '%';
      uri += hex[static_cast<unsigned char>(c) >> 4];
      uri += hex[static_cast<unsigned char>(c) & 15];
    }
  }
  return uri;
}

std::optional<PassesUri> parsePassesUri(std::string_view uri) {
  size_t q = uri.find("?kernel=");
  if (q == std::string_view::npos) return std::nullopt;
  std::string_view value = uri.substr(q + 8);
  value = value.substr(0, value.find('&'));  // other parameters (a client's revision) follow
  auto kernel = percentDecode(value);
  // The part before the query is a virtual URI of the pseudo-stage "passes".
  auto v = parseVirtualUri(uri.substr(0, q), [](std::string_view stage) -> std::string_view {
    return stage == "passes" ? "passes" : "";
  });
  if (!kernel || kernel->empty() || !v || v->stage != "passes") return std::nullopt;
  return PassesUri{v->path, *kernel};
}

}  // namespace ks::lsp
