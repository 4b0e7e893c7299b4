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
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ks::gpu {

/// What kind of problem a spec has; each has a stable name (specErrorCode) that editors show
/// as the diagnostic's code.
enum class SpecErrorKind : uint8_t {
  Syntax,            // not `KEY = VALUE`, a key that is no name, no value, too many items
  UnknownName,       // a key that is neither a parameter nor grid/block/shared/bytes/flops
  MissingParameter,  // a parameter of the kernel without a value
  MissingLaunch,     // no grid or no block
  ShiftPrecedence,   // `1 << 20 / 256`: the shift amount is a fraction (/ binds tighter)
  Expression,        // an expression that does not parse or evaluate
  Value,             // a value that does not fit its parameter
};
/// "spec-syntax", "spec-unknown-name", ...
std::string_view specErrorCode(SpecErrorKind);

/// A problem with a spec, where it was written.
struct SpecError {
  SpecError() = default;
  SpecError(std::string origin, uint32_t line, std::string message,
            SpecErrorKind kind = SpecErrorKind::Value)
      : origin(std::move(origin)), line(line), message(std::move(message)), kind(kind) {}

  std::string origin;  // a file, "Cargo.toml [package.metadata.kernelscope.launch.K]", "--spec"
  uint32_t line = 0;   // 1-based; 0 when the origin has no lines
  std::string message;
  SpecErrorKind kind = SpecErrorKind::Value;
  /// The offending part of the line, 1-based byte columns [column, endColumn); 0: unknown
  /// (the whole spec).
  uint32_t column = 0, endColumn = 0;
  /// The key the problem is about (an unknown name, a missing parameter or launch key).
  std::string key;
  /// What the offending part should say, when that is clear (`(1 << 20) / 256`).
  std::optional<std::string> rewrite;
  /// "saxpy.rs:9: no parameter named 'm' ..."
  std::string describe() const;
};

struct SpecItem {
  std::string key;
  std::string value;
  std::string origin;
  uint32_t line = 0;
  /// 1-based byte columns of the key and of the value in their line; 0 when not from a line.
  uint32_t keyColumn = 0, valueColumn = 0;
};

struct LaunchSpec {
  std::vector<SpecItem> items;
  bool empty() const { return items.empty(); }
  /// The last item with `key`, or null.
  const SpecItem* find(std::string_view key) const;
};

/// Reads `k = v; k = v` items of one spec line into `spec`. `column`: the 1-based byte column
/// of `text` in its line (0: not from a line, no columns).
void parseSpecItems(std::string_view text, const std::string& origin, uint32_t line,
                    LaunchSpec& spec, std::vector<SpecError>& errors, uint32_t column = 0);

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
