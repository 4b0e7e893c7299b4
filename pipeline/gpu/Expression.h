// The spec language's numeric expressions.
//
// Numbers (1024, 0x100, 2.5e-3, 1_000, with Rust's type suffixes: 2.0f32, 16u32), names (a
// scalar parameter `n`, a field of a struct parameter `p.n`, `true`, `false`), + - * / %,
// << >>, ** (power), parentheses and ceil floor min max. Operators bind as in Rust (`**`,
// which Rust lacks, tightest): * / % before + -, before << >>, so `1 << 20 / 256` is
// `1 << (20 / 256)` there and here. `/` divides exactly, so `ceil(n / 256)` is what it says.
// Values are doubles: integers are exact up to 2^53, and checked where an integer is needed.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace ks::gpu {

/// Looks a name up; nullopt with `error` set when it has no value.
using NameLookup =
    std::function<std::optional<double>(const std::string& name, std::string& error)>;

/// Why an expression has no value, and where.
struct ExpressionError {
  std::string message;
  /// The offending part of the text, byte offsets [begin, end); begin == end: unknown.
  size_t begin = 0, end = 0;
  /// A shift whose amount is a fraction because / binds tighter (`1 << 20 / 256`); `rewrite`
  /// is then the shift done first (`(1 << 20) / 256`), for [begin, end).
  bool shiftPrecedence = false;
  std::string rewrite;
};

/// Evaluates `text`; nullopt with `error` set on a problem. `lookup` may be null (no names).
std::optional<double> evaluateExpression(std::string_view text, const NameLookup& lookup,
                                         ExpressionError& error);
std::optional<double> evaluateExpression(std::string_view text, const NameLookup& lookup,
                                         std::string& error);
/// Evaluates an expression with no names (tests, command-line values).
std::optional<double> evaluateExpression(std::string_view text, std::string& error);

/// Whether `v` is a whole number that a double holds exactly.
bool isWhole(double v);

}  // namespace ks::gpu
