// URIs the server reads and writes: `file:` URIs of sources and the `kernelscope:` URIs
// of the virtual documents it produces (`kernelscope:/<stage>/<abs path>.<ext>?rev=N`).
//
// Parsing a virtual URI only yields names; the server looks the path up among the
// documents it compiled and never opens it, so a URI cannot make it read a file.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ks::lsp {

/// The absolute path of a `file:` URI, percent-decoded; nullopt for other schemes.
std::optional<std::string> fileUriToPath(std::string_view uri);
/// The `file:` URI of an absolute path, percent-encoding what needs it.
std::string pathToFileUri(std::string_view path);

/// The parts of a `kernelscope:` URI.
struct VirtualUri {
  std::string stage;  // the stage's wire name, not validated here
  std::string path;   // the absolute path of the source, without the stage's extension
  std::optional<int> revision;
};

/// Builds `kernelscope:/<stage>/<path>.<extension>` (plus `?rev=N` when given).
std::string makeVirtualUri(std::string_view stage, std::string_view extension,
                           std::string_view path, std::optional<int> revision = {});
/// Splits a `kernelscope:` URI; nullopt when it is not one, is malformed, or its path
/// does not end in `.<extensionOf(stage)>` (an empty extension means an unknown stage).
std::optional<VirtualUri> parseVirtualUri(std::string_view uri,
                                          std::string_view (*extensionOf)(std::string_view stage));

/// The pass-by-pass document of a kernel: `kernelscope:/passes/<path>.passes?kernel=NAME`.
std::string makePassesUri(std::string_view path, std::string_view kernel);
struct PassesUri {
  std::string path;    // the absolute path of the source
  std::string kernel;  // percent-decoded
};
/// Splits a pass-by-pass URI (parameters after `kernel` are ignored); nullopt for any other URI.
std::optional<PassesUri> parsePassesUri(std::string_view uri);

}  // namespace ks::lsp
