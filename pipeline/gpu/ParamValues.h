// A parameter's value as a launch spec writes it (LaunchSpec.h), read and made into the
// bytes a launch passes: scalars in the parameter's own type and width, struct and array
// literals, and the literal of a whole type that a first spec writes.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "KernelSignature.h"

namespace ks::gpu {

/// The little-endian bytes of `v` as a scalar of `bytes` size and type `t` (unknown: the
/// PTX's size alone, and `floatParam` says how to read the value). Returns the problem.
std::string scalarBytes(double v, unsigned bytes, std::optional<ElemType> t, bool floatParam,
                        uint8_t* out);

/// A value as a spec writes it for a struct or an array: `Name { f: V, ... }`, `[V, ...]`,
/// `[V; N]`, else an expression.
struct Literal {
  enum class Kind : uint8_t { Expression, Struct, Array, Repeat };
  Kind kind = Kind::Expression;
  std::string text;  // Expression; Repeat: the element
  std::string typeName;
  std::vector<std::pair<std::string, std::string>> fields;
  std::vector<std::string> elements;
  std::string count;  // Repeat
};

/// `value` read as a literal; nullopt, with `problem` set, when it is no value of any type.
std::optional<Literal> parseLiteral(const std::string& value, std::string& problem);

/// A literal for `t` with every value `valueOf` gives its scalars (`path` names the scalar:
/// "p.n", "w[]").
std::string literalFor(
    const ValueType& t,
    const std::function<std::string(const ValueType&, const std::string&)>& valueOf,
    const std::string& path);

}  // namespace ks::gpu
