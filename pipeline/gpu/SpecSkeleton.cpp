// See SpecSkeleton.h.
#include "SpecSkeleton.h"

#include "ParamValues.h"

namespace ks::gpu {

namespace {

/// Whether a problem size (1 << 20) fits `t`: an integer of 32 bits or more.
bool sizeType(ElemType t) {
  return !isFloat(t) && t != ElemType::Bool && t != ElemType::Record && elemSize(t) >= 4;
}

/// The path of the first field of `t` that can hold a problem size ("p.n"), or "".
std::string firstIntegerField(const ValueType& t, const std::string& path) {
  for (const auto& f : t.fields) {
    if (f.type->kind == ValueType::Kind::Scalar && sizeType(f.type->scalar))
      return path + "." + f.name;
    if (f.type->kind == ValueType::Kind::Struct)
      if (auto p = firstIntegerField(*f.type, path + "." + f.name); !p.empty()) return p;
  }
  return {};
}

}  // namespace

std::vector<std::pair<std::string, std::string>> specSkeletonItems(const KernelSignature& sig) {
  // The problem size: the first integer parameter, else the first integer field of a struct.
  std::string size;
  for (const auto& p : sig.params)
    if (p.kind == KernelParam::Kind::Integer && (!p.type || sizeType(*p.type))) {
      size = p.name;
      break;
    }
  for (const auto& p : sig.params)
    if (size.empty() && p.aggregate && p.aggregate->kind == ValueType::Kind::Struct)
      size = firstIntegerField(*p.aggregate, p.name);
  const std::string count = size.empty() ? "1 << 20" : size;
  auto scalarValue = [&](const ValueType& t, const std::string& path) -> std::string {
    if (t.scalar == ElemType::Bool) return "true";
    if (isFloat(t.scalar)) return "1.0";
    if (path == size) return "1 << 20";
    return elemSize(t.scalar) >= 2 ? "1024" : "1";
  };
  std::vector<std::pair<std::string, std::string>> items;
  int seed = 1;
  for (const auto& p : sig.params) {
    std::string value;
    switch (p.kind) {
      case KernelParam::Kind::Integer:
      case KernelParam::Kind::Float:
      case KernelParam::Kind::Bool:
        value = scalarValue(*scalarType(p.type.value_or(ElemType::U32)), p.name);
        break;
      case KernelParam::Kind::Aggregate:
        value = p.aggregate ? literalFor(*p.aggregate, scalarValue, p.name) : "0";
        break;
      case KernelParam::Kind::Pointer: {
        const ValueType* e = p.pointee.get();
        std::string elem = e ? e->name : "f32";
        std::string contents;
        if (p.pointeeMutable || (e && e->kind != ValueType::Kind::Scalar))
          contents = "zeros";
        else if (!e || isFloat(e->scalar))
          contents = "uniform(-1, 1, seed = " + std::to_string(seed++) + ")";
        else
          contents = e->scalar == ElemType::Bool ? "ones" : "iota";
        value = elem + "[" + count + "] " + contents;
        break;
      }
      case KernelParam::Kind::Unknown:
        value = p.bytes == 8 ? "f32[" + count + "] zeros" : "0";  // the PTX's size alone
        break;
    }
    items.emplace_back(p.name, value);
  }
  // Parenthesized: `<<` binds looser than `/`, in Rust and here.
  items.emplace_back("grid", "ceil(" + (size.empty() ? "(" + count + ")" : count) + " / 256)");
  items.emplace_back("block", "256");
  return items;
}

std::string specSkeleton(const KernelSignature& sig) {
  std::string out;
  for (const auto& [key, value] : specSkeletonItems(sig))
    out += (out.empty() ? "" : "; ") + key + " = " + value;
  return out;
}

}  // namespace ks::gpu
