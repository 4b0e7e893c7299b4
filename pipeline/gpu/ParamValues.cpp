// See ParamValues.h.
#include "ParamValues.h"

#include <cctype>
#include <cmath>
#include <cstring>

#include "Expression.h"
#include "LaunchPlan.h"
#include "SpecText.h"
#include "TextUtil.h"

namespace ks::gpu {

std::string scalarBytes(double v, unsigned bytes, std::optional<ElemType> t, bool floatParam,
                        uint8_t* out) {
  std::memset(out, 0, bytes);
  if (t == ElemType::Bool) {
    if (v != 0 && v != 1) return "a bool is true or false (or 1 or 0)";
    out[0] = v != 0;
    return {};
  }
  if (floatParam || (t && isFloat(*t))) {
    if (t == ElemType::BF16) {
      uint16_t h = bfloat16FromDouble(v);
      std::memcpy(out, &h, 2);
    } else if (bytes == 2) {
      uint16_t h = halfFromDouble(v);
      std::memcpy(out, &h, 2);
    } else if (bytes == 4) {
      float f = static_cast<float>(v);
      std::memcpy(out, &f, 4);
    } else if (bytes == 8) {
      std::memcpy(out, &v, 8);
    } else {
      return "a float parameter of " + std::to_string(bytes) + " bytes is not supported";
    }
    return {};
  }
  if (!isWhole(v)) return "needs a whole number, the value is " + std::to_string(v);
  // A scalar's own size: the ABI may pass a u8 in a wider PTX parameter, zero-extended.
  unsigned size = t ? static_cast<unsigned>(elemSize(*t)) : bytes;
  bool isSignedParam = t && isSigned(*t);
  double lo = isSignedParam ? -std::ldexp(1.0, int(size * 8 - 1)) : 0;
  double hi =
      isSignedParam ? std::ldexp(1.0, int(size * 8 - 1)) - 1 : std::ldexp(1.0, int(size * 8)) - 1;
  if (!t && v < 0) lo = -std::ldexp(1.0, int(size * 8 - 1));  // PTX only: sign unknown
  if (v < lo || v > hi)
    return "the value " + std::to_string(static_cast<int64_t>(v)) +
           " does not fit the parameter's " +
           (t ? std::string(elemTypeName(*t)) : std::to_string(size * 8) + "-bit type");
  // Sign-extended into the PTX's width: an i8 passed as .b32 reads as the same number.
  int64_t i = static_cast<int64_t>(v);
  std::memcpy(out, &i, std::min<size_t>(bytes, 8));  // little-endian hosts only
  if (t && !isSigned(*t) && bytes > size) std::memset(out + size, 0, bytes - size);
  return {};
}

std::optional<Literal> parseLiteral(const std::string& value, std::string& problem) {
  Literal l;
  if (value.starts_with("[") && value.ends_with("]")) {
    std::string inner = value.substr(1, value.size() - 2);
    std::vector<std::string> repeat = splitTopLevel(inner, ';');
    if (repeat.size() == 2) {
      l.kind = Literal::Kind::Repeat;
      l.text = repeat[0];
      l.count = repeat[1];
      return l;
    }
    l.kind = Literal::Kind::Array;
    l.elements = splitTopLevel(inner, ',');
    if (!l.elements.empty() && l.elements.back().empty()) l.elements.pop_back();
    return l;
  }
  size_t brace = value.find('{');
  if (brace == std::string::npos || !value.ends_with("}")) {
    l.text = value;
    return l;
  }
  l.kind = Literal::Kind::Struct;
  l.typeName = std::string(value.substr(0, value.find_last_not_of(" \t", brace - 1) + 1));
  if (size_t colons = l.typeName.rfind("::"); colons != std::string::npos)
    l.typeName = l.typeName.substr(colons + 2);
  if (!isPlainParameterName(l.typeName)) {
    problem = "'" + value + "' is not a struct value (Name { field: value, ... })";
    return std::nullopt;
  }
  for (const std::string& f :
       splitTopLevel(value.substr(brace + 1, value.size() - brace - 2), ',')) {
    if (f.empty()) continue;
    size_t colon = f.find(':');
    std::string name = f.substr(0, colon);
    while (!name.empty() && std::isspace(static_cast<unsigned char>(name.back()))) name.pop_back();
    if (colon == std::string::npos) {
      if (!isPlainParameterName(f)) {
        problem = "expected FIELD: VALUE in " + l.typeName + " { ... }, found '" + f + "'";
        return std::nullopt;
      }
      l.fields.emplace_back(f, f);  // shorthand `Params { n }`: the spec's n
      continue;
    }
    l.fields.emplace_back(name, std::string(trimSpace(std::string_view(f).substr(colon + 1))));
  }
  return l;
}

std::string literalFor(
    const ValueType& t,
    const std::function<std::string(const ValueType&, const std::string&)>& valueOf,
    const std::string& path) {
  switch (t.kind) {
    case ValueType::Kind::Scalar:
      return valueOf(t, path);
    case ValueType::Kind::Array:
      return "[" + literalFor(*t.element, valueOf, path + "[]") + "; " + std::to_string(t.count) +
             "]";
    case ValueType::Kind::Struct: {
      std::string s = t.name + " {";
      for (size_t i = 0; i < t.fields.size(); ++i)
        s += (i ? ", " : " ") + t.fields[i].name + ": " +
             literalFor(*t.fields[i].type, valueOf, path + "." + t.fields[i].name);
      return s + " }";
    }
  }
  return "0";
}

}  // namespace ks::gpu
