// Launch specs as text: the `key = value` items, where they were written, and the words of
// the spec language shared by its readers.
//
// A spec is a list of `key = value` items. It is written in the source, in `// kernelscope:`
// comments right above the kernel (`// kernelscope: grid = ceil(n / 256); block = 256`, on a
// line of its own or after `#[no_mangle]`), in a crate's
// `[package.metadata.kernelscope.launch.KERNEL]`, or on the command line; later items
// override earlier ones of the same key. LaunchSpec.h says what the keys mean.
//
// The spec language is kernelscope's own, so its small reader is hand-written here.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ks::gpu {

/// A problem with a spec, where it was written.
struct SpecError {
  std::string origin;  // a file, "Cargo.toml [package.metadata.kernelscope.launch.K]", "--spec"
  uint32_t line = 0;   // 1-based; 0 when the origin has no lines
  std::string message;
  /// "saxpy.rs:9: no parameter named 'm' ..."
  std::string describe() const;
};

struct SpecItem {
  std::string key;
  std::string value;
  std::string origin;
  uint32_t line = 0;
};

struct LaunchSpec {
  std::vector<SpecItem> items;
  bool empty() const { return items.empty(); }
  /// The last item with `key`, or null.
  const SpecItem* find(std::string_view key) const;
};

/// Reads `k = v; k = v` items of one spec line into `spec`.
void parseSpecItems(std::string_view text, const std::string& origin, uint32_t line,
                    LaunchSpec& spec, std::vector<SpecError>& errors);

/// The `// kernelscope:` lines in the comment and attribute block right above the 1-based
/// line `kernelLine` of `source` (the kernel's name line; its `fn`/`__global__` line may be
/// above it). Returns an empty spec when there are none.
LaunchSpec specFromComments(std::string_view source, uint32_t kernelLine, const std::string& origin,
                            std::vector<SpecError>& errors);

/// Splits at `sep` outside (), [], {} and, in signatures (`angles`), <>; each part trimmed.
std::vector<std::string> splitTopLevel(std::string_view s, char sep, bool angles = false);
/// `s` without the white space (new lines included) around it.
std::string_view trimSpace(std::string_view s);
bool isIdentStart(char c);
bool isIdentChar(char c);

}  // namespace ks::gpu
