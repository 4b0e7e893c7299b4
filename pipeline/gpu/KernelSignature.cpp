#include "KernelSignature.h"

#include <cstring>
#include <functional>
#include <map>
#include <regex>
#include <set>

#include "SpecText.h"
#include "TextUtil.h"

namespace ks::gpu {

// ---------------------------------------------------------------------------------------------
// The PTX's parameters.

namespace {

/// `.param .u32 NAME`, `.param .u64 .ptr .global .align 4 NAME`, `.param .align 4 .b8 NAME[12]`.
std::optional<PtxParam> readPtxParam(std::string_view decl) {
  PtxParam p;
  std::string_view rest = trimSpace(decl);
  if (!text::consume(rest, ".param")) return std::nullopt;
  uint32_t typeBytes = 0;
  while (true) {
    text::skipBlanks(rest);
    if (rest.empty()) return std::nullopt;
    if (rest.front() != '.') break;
    size_t end = rest.find_first_of(" \t");
    std::string_view word = rest.substr(1, end == std::string_view::npos ? rest.size() : end - 1);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end);
    if (word == "align") {
      text::skipBlanks(rest);
      auto a = text::takeUint(rest);
      if (!a) return std::nullopt;
      p.align = *a;
    } else if (word.size() >= 2 && std::strchr("usfb", word[0]) &&
               std::all_of(word.begin() + 1, word.end(), ::isdigit)) {
      typeBytes = static_cast<uint32_t>(std::stoul(std::string(word.substr(1)))) / 8;
    }  // .ptr, .global, .const ...: where a pointer points, not its size
  }
  size_t end = rest.find_first_of("[ \t");
  p.name = std::string(rest.substr(0, end));
  if (p.name.empty() || typeBytes == 0) return std::nullopt;
  rest = end == std::string_view::npos ? std::string_view() : rest.substr(end);
  text::skipBlanks(rest);
  if (text::consume(rest, "[")) {
    auto n = text::takeUint(rest);
    if (!n || !text::consume(rest, "]")) return std::nullopt;
    p.aggregate = true;
    p.bytes = *n * typeBytes;
  } else {
    p.bytes = typeBytes;
  }
  if (p.align == 0) p.align = typeBytes;
  return p;
}

}  // namespace

std::vector<PtxParam> ptxParams(const Artifact& ptx, const ArtifactFunction& kernel) {
  // The header lines hold `.entry NAME(` and one `.param` per line up to `)`; they are joined
  // and split at commas, so a header printed on one line reads the same.
  std::string header;
  for (uint32_t i = kernel.firstLine; i <= kernel.lastLine && i < ptx.lines().size(); ++i) {
    if (ptx.lines()[i].kind != LineKind::Header) break;
    std::string_view t = ptx.lineText(i);
    header.append(t.substr(0, t.find("//"))).push_back(' ');
    if (t.find(')') != std::string_view::npos) break;
  }
  std::vector<PtxParam> params;
  size_t open = header.find('('), close = header.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return params;
  for (const std::string& decl : splitTopLevel(header.substr(open + 1, close - open - 1), ','))
    if (auto p = readPtxParam(decl)) params.push_back(std::move(*p));
  return params;
}

KernelSignature ptxSignature(const Artifact& ptx, const ArtifactFunction& kernel) {
  KernelSignature sig{kernel.symbol, {}};
  for (const PtxParam& p : ptxParams(ptx, kernel)) {
    KernelParam param;
    param.name = "param_" + std::to_string(sig.params.size());
    param.bytes = p.bytes;
    param.align = p.align;
    if (p.aggregate) param.kind = KernelParam::Kind::Aggregate;
    sig.params.push_back(std::move(param));
  }
  return sig;
}

// ---------------------------------------------------------------------------------------------
// Source types and their layout.

namespace {

uint64_t alignUp(uint64_t v, uint64_t a) { return a ? (v + a - 1) / a * a : v; }

/// Comments replaced by blanks (offsets kept).
std::string withoutComments(std::string_view s) {
  std::string out(s);
  for (size_t i = 0; i + 1 < out.size(); ++i) {
    if (out[i] == '/' && out[i + 1] == '/') {
      while (i < out.size() && out[i] != '\n') out[i++] = ' ';
    } else if (out[i] == '/' && out[i + 1] == '*') {
      size_t end = out.find("*/", i + 2);
      end = end == std::string::npos ? out.size() : end + 2;
      for (; i < end; ++i)
        if (out[i] != '\n') out[i] = ' ';
    }
  }
  return out;
}

/// A scalar type as written in Rust or C (u32, usize, f16, half::bf16, unsigned int, ...).
std::optional<ElemType> scalarTypeFromSource(std::string_view t) {
  static const std::map<std::string, ElemType, std::less<>> names = {
      {"i8", ElemType::I8},
      {"i16", ElemType::I16},
      {"i32", ElemType::I32},
      {"i64", ElemType::I64},
      {"isize", ElemType::I64},
      {"u8", ElemType::U8},
      {"u16", ElemType::U16},
      {"u32", ElemType::U32},
      {"u64", ElemType::U64},
      {"usize", ElemType::U64},
      {"f16", ElemType::F16},
      {"bf16", ElemType::BF16},
      {"f32", ElemType::F32},
      {"f64", ElemType::F64},
      {"bool", ElemType::Bool},
      {"char", ElemType::I8},
      {"signed char", ElemType::I8},
      {"unsigned char", ElemType::U8},
      {"short", ElemType::I16},
      {"unsigned short", ElemType::U16},
      {"int", ElemType::I32},
      {"signed", ElemType::I32},
      {"unsigned", ElemType::U32},
      {"unsigned int", ElemType::U32},
      {"long", ElemType::I64},
      {"long long", ElemType::I64},
      {"unsigned long", ElemType::U64},
      {"unsigned long long", ElemType::U64},
      {"size_t", ElemType::U64},
      {"int8_t", ElemType::I8},
      {"int16_t", ElemType::I16},
      {"int32_t", ElemType::I32},
      {"int64_t", ElemType::I64},
      {"uint8_t", ElemType::U8},
      {"uint16_t", ElemType::U16},
      {"uint32_t", ElemType::U32},
      {"uint64_t", ElemType::U64},
      {"__half", ElemType::F16},
      {"half", ElemType::F16},
      {"__nv_bfloat16", ElemType::BF16},
      {"float", ElemType::F32},
      {"double", ElemType::F64},
  };
  // A path's last segment: half::f16, core::primitive::u32.
  if (size_t colons = t.rfind("::"); colons != std::string_view::npos) t = t.substr(colons + 2);
  auto it = names.find(t);
  return it == names.end() ? std::nullopt : std::optional<ElemType>(it->second);
}

/// Lays out Rust types with the `#[repr(C)]` structs declared in one source file.
class RustLayout {
 public:
  explicit RustLayout(std::string_view source) : source_(withoutComments(source)) {}

  std::optional<TypeRef> type(std::string_view text, std::string& problem, int depth = 0) {
    std::string t(trimSpace(text));
    if (depth > 16) return fail(problem, "types nested too deeply");
    if (auto s = scalarTypeFromSource(t)) return scalarType(*s);
    if (t.starts_with("[") && t.ends_with("]")) return array(t, problem, depth);
    std::string name = t.substr(t.rfind("::") == std::string::npos ? 0 : t.rfind("::") + 2);
    bool ident =
        !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
    for (char c : name) ident = ident && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    if (!ident) return fail(problem, "'" + t + "' is not a type kernelscope can lay out");
    return structType(name, problem, depth);
  }

 private:
  static std::optional<TypeRef> fail(std::string& problem, std::string why) {
    if (problem.empty()) problem = std::move(why);
    return std::nullopt;
  }

  /// `[T; N]` with a literal length.
  std::optional<TypeRef> array(const std::string& t, std::string& problem, int depth) {
    std::vector<std::string> parts = splitTopLevel(t.substr(1, t.size() - 2), ';');
    if (parts.size() != 2) return fail(problem, "'" + t + "' is not an array type [T; N]");
    std::string len = parts[1];
    for (const char* suffix : {"usize", "u32", "u64"})
      if (len.ends_with(suffix)) len.resize(len.size() - std::strlen(suffix));
    len.erase(std::remove(len.begin(), len.end(), '_'), len.end());
    auto n = text::parseUint(len);
    if (!n || *n == 0) return fail(problem, "the length of '" + t + "' is not a number");
    auto elem = type(parts[0], problem, depth + 1);
    if (!elem) return std::nullopt;
    auto a = std::make_shared<ValueType>();
    a->kind = ValueType::Kind::Array;
    a->name = t;
    a->element = *elem;
    a->count = *n;
    a->align = (*elem)->align;
    a->size = (*elem)->size * *n;
    return a;
  }

  /// `#[repr(C)] struct NAME { field: Type, ... }` declared in the file.
  std::optional<TypeRef> structType(const std::string& name, std::string& problem, int depth) {
    if (auto it = done_.find(name); it != done_.end()) return it->second;
    if (!inProgress_.insert(name).second)
      return fail(problem, "struct " + name + " contains itself");
    std::smatch m;
    const std::regex declRe("\\bstruct\\s+" + name + "\\s*(<[^{]*>)?\\s*\\{");
    if (!std::regex_search(source_, m, declRe))
      return fail(problem, "struct " + name +
                               " is not declared in the kernel's file (kernelscope reads the "
                               "structs of that file)");
    if (m[1].matched) return fail(problem, "struct " + name + " is generic");
    size_t at = static_cast<size_t>(m.position(0));
    std::string attrs = attributesBefore(at);
    uint64_t forcedAlign = 0;
    static const std::regex reprRe(R"(#\s*\[\s*repr\s*\(([^\]]*)\)\s*\])");
    bool reprC = false;
    for (std::sregex_iterator r(attrs.begin(), attrs.end(), reprRe), end; r != end; ++r) {
      for (const std::string& arg : splitTopLevel((*r)[1].str(), ',')) {
        if (arg == "C") reprC = true;
        std::smatch a;
        static const std::regex alignRe(R"(^align\s*\(\s*(\d+)\s*\)$)");
        if (std::regex_match(arg, a, alignRe)) forcedAlign = std::stoull(a[1].str());
      }
    }
    if (!reprC)
      return fail(problem, "struct " + name +
                               " is not #[repr(C)]: Rust may reorder its fields, so a spec "
                               "cannot know its layout");
    size_t open = at + static_cast<size_t>(m.length(0)) - 1;
    size_t close = matching(open);
    if (close == std::string::npos) return fail(problem, "struct " + name + " has no closing }");
    auto s = std::make_shared<ValueType>();
    s->kind = ValueType::Kind::Struct;
    s->name = name;
    uint64_t offset = 0, align = 1;
    for (std::string field : splitTopLevel(source_.substr(open + 1, close - open - 1), ',', true)) {
      field = stripAttributes(field);
      if (field.empty()) continue;
      size_t colon = field.find(':');
      if (colon == std::string::npos)
        return fail(problem, "cannot read field '" + field + "' of " + name);
      std::string fieldName(trimSpace(std::string_view(field).substr(0, colon)));
      for (const char* vis : {"pub(crate) ", "pub(super) ", "pub "})
        if (fieldName.starts_with(vis)) fieldName = fieldName.substr(std::strlen(vis));
      auto ft = type(std::string_view(field).substr(colon + 1), problem, depth + 1);
      if (!ft) return std::nullopt;
      offset = alignUp(offset, (*ft)->align);
      s->fields.push_back({std::string(trimSpace(fieldName)), *ft, offset});
      offset += (*ft)->size;
      align = std::max(align, (*ft)->align);
    }
    if (forcedAlign > align) align = forcedAlign;
    s->align = align;
    s->size = alignUp(offset, align);
    inProgress_.erase(name);
    done_[name] = s;
    return s;
  }

  /// The attributes on the lines right above byte `at` (where `struct` or `pub struct` starts).
  std::string attributesBefore(size_t at) const {
    size_t lineStart = source_.rfind('\n', at);
    lineStart = lineStart == std::string::npos ? 0 : lineStart + 1;
    std::string attrs = source_.substr(lineStart, at - lineStart);
    while (lineStart > 0) {
      size_t prev = source_.rfind('\n', lineStart - 2);
      prev = prev == std::string::npos ? 0 : prev + 1;
      std::string_view l = trimSpace(std::string_view(source_).substr(prev, lineStart - prev));
      if (!l.starts_with("#[") && !l.starts_with("#![") && !l.empty()) break;
      if (l.empty()) break;
      attrs = std::string(l) + "\n" + attrs;
      lineStart = prev;
    }
    return attrs;
  }

  static std::string stripAttributes(std::string field) {
    for (;;) {
      std::string_view t = trimSpace(field);
      if (!t.starts_with("#[")) return std::string(t);
      int depth = 0;
      size_t i = 1;
      for (; i < t.size(); ++i) {
        if (t[i] == '[') ++depth;
        if (t[i] == ']' && --depth == 0) break;
      }
      field = std::string(t.substr(std::min(t.size(), i + 1)));
    }
  }

  size_t matching(size_t open) const {
    int depth = 0;
    for (size_t i = open; i < source_.size(); ++i) {
      if (source_[i] == '{') ++depth;
      if (source_[i] == '}' && --depth == 0) return i;
    }
    return std::string::npos;
  }

  std::string source_;
  std::map<std::string, TypeRef, std::less<>> done_;
  std::set<std::string, std::less<>> inProgress_;
};

void setScalar(KernelParam& p, ElemType t) {
  p.type = t;
  p.kind = t == ElemType::Bool ? KernelParam::Kind::Bool
           : isFloat(t)        ? KernelParam::Kind::Float
                               : KernelParam::Kind::Integer;
}

/// `name: type` (Rust). Returns the problem ("" when read).
std::string readRustParam(const std::string& text, RustLayout& layout, KernelParam& p) {
  size_t colon = text.find(':');
  if (colon == std::string::npos) return "cannot read parameter '" + text + "'";
  std::string name(trimSpace(std::string_view(text).substr(0, colon)));
  if (name.starts_with("mut ")) name = std::string(trimSpace(std::string_view(name).substr(4)));
  std::string type(trimSpace(std::string_view(text).substr(colon + 1)));
  p.name = name;
  static const std::regex ptrRe(R"(^(?:\*\s*(const|mut)|&\s*(mut)?)\s*(.*)$)");
  std::smatch m;
  std::string problem;
  if (std::regex_match(type, m, ptrRe)) {
    p.kind = KernelParam::Kind::Pointer;
    p.pointeeMutable = m[1].str() == "mut" || m[2].matched;
    std::string pointee = m[3].str();
    if (pointee.starts_with("[") && pointee.find(';') == std::string::npos)  // a slice
      pointee = pointee.substr(1, pointee.size() - 2);
    if (auto t = layout.type(pointee, problem))
      p.pointee = *t;
    else  // unknown: a buffer of any scalar type
      p.pointeeProblem = problem;
    return {};
  }
  if (auto s = scalarTypeFromSource(type)) {
    setScalar(p, *s);
    return {};
  }
  auto t = layout.type(type, problem);
  if (!t) return "'" + name + "': " + problem;
  if ((*t)->kind == ValueType::Kind::Scalar) {
    setScalar(p, (*t)->scalar);
    return {};
  }
  p.kind = KernelParam::Kind::Aggregate;
  p.aggregate = *t;
  return {};
}

/// `const float* __restrict__ name` (C++).
bool readCudaParam(const std::string& text, KernelParam& p) {
  std::string t = text;
  size_t end = t.size();
  while (end > 0 && !isIdentChar(t[end - 1])) --end;
  size_t start = end;
  while (start > 0 && isIdentChar(t[start - 1])) --start;
  if (start == end) return false;
  p.name = t.substr(start, end - start);
  std::string type = t.substr(0, start);
  for (const char* word : {"__restrict__", "__restrict", "restrict", "volatile"}) {
    for (size_t at; (at = type.find(word)) != std::string::npos;) type.erase(at, std::strlen(word));
  }
  auto normalized = [](std::string s) {
    for (size_t at; (at = s.find("const")) != std::string::npos;) s.erase(at, 5);
    std::string norm;
    for (auto& w : splitTopLevel(s, ' '))
      if (!w.empty()) norm += (norm.empty() ? "" : " ") + w;
    return norm;
  };
  size_t star = type.find('*');
  if (star != std::string::npos) {
    p.kind = KernelParam::Kind::Pointer;
    std::string base = type.substr(0, star);
    p.pointeeMutable = base.find("const") == std::string::npos;
    if (auto s = scalarTypeFromSource(normalized(base))) p.pointee = scalarType(*s);
  } else if (auto s = scalarTypeFromSource(normalized(type))) {
    setScalar(p, *s);
  }
  return true;
}

/// Whether the source's reading of `p` agrees with its PTX parameter; the problem if not.
std::string checkAgainstPtx(const KernelParam& p) {
  auto ptxSays = [&] {
    return "the PTX parameter is " + std::to_string(p.bytes) + " bytes aligned to " +
           std::to_string(p.align);
  };
  if (p.kind == KernelParam::Kind::Aggregate && p.aggregate) {
    if (p.aggregate->size != p.bytes || (p.align && p.aggregate->align > p.align))
      return "'" + p.name + "': " + p.aggregate->name + " is " + std::to_string(p.aggregate->size) +
             " bytes aligned to " + std::to_string(p.aggregate->align) + " in the source, " +
             ptxSays();
    return {};
  }
  if (p.kind == KernelParam::Kind::Pointer && p.bytes != 8)
    return "'" + p.name + "' is a pointer in the source, " + ptxSays();
  // Scalars narrower than 32 bits may be widened by the ABI (a bool or i8 as .b32).
  if (p.type && elemSize(*p.type) > p.bytes)
    return "'" + p.name + "' is " + std::string(elemTypeName(*p.type)) + " in the source, " +
           ptxSays();
  return {};
}

}  // namespace

TypeRef scalarType(ElemType t) {
  static const auto types = [] {
    std::vector<TypeRef> all;
    for (int i = 0; i < static_cast<int>(ElemType::Record); ++i) {
      auto v = std::make_shared<ValueType>();
      v->scalar = static_cast<ElemType>(i);
      v->name = std::string(elemTypeName(v->scalar));
      v->size = v->align = elemSize(v->scalar);
      all.push_back(v);
    }
    return all;
  }();
  return types[static_cast<size_t>(t)];
}

std::string ValueType::describe() const {
  if (kind != Kind::Struct) return name;
  std::string s = name + " {";
  for (size_t i = 0; i < fields.size(); ++i)
    s += (i ? ", " : " ") + fields[i].name + ": " + fields[i].type->name;
  return s + " } (" + std::to_string(size) + " bytes)";
}

std::string KernelParam::typeName() const {
  switch (kind) {
    case Kind::Pointer:
      return std::string(pointeeMutable ? "*mut " : "*const ") + (pointee ? pointee->name : "_");
    case Kind::Integer:
    case Kind::Float:
    case Kind::Bool:
      return type ? std::string(elemTypeName(*type)) : std::to_string(bytes * 8) + "-bit value";
    case Kind::Aggregate:
      return aggregate ? aggregate->name : std::to_string(bytes) + "-byte struct or array";
    case Kind::Unknown:
      break;
  }
  return std::to_string(bytes * 8) + "-bit value";
}

std::optional<TypeRef> rustType(std::string_view text, std::string_view source,
                                std::string& problem) {
  RustLayout layout(source);
  return layout.type(text, problem);
}

std::string addSourceSignature(KernelSignature& sig, std::string_view source, size_t nameOffset,
                               bool cuda) {
  std::string clean = withoutComments(source);
  size_t open = clean.find('(', nameOffset);
  if (open == std::string::npos) return "no parameter list after the kernel's name";
  int depth = 0;
  size_t close = open;
  for (; close < clean.size(); ++close) {
    if (clean[close] == '(')
      ++depth;
    else if (clean[close] == ')' && --depth == 0)
      break;
  }
  if (close >= clean.size()) return "unbalanced parameter list";
  std::vector<std::string> parts =
      splitTopLevel(clean.substr(open + 1, close - open - 1), ',', true);
  if (!parts.empty() && parts.back().empty()) parts.pop_back();  // trailing comma
  if (parts.size() == 1 && (parts[0].empty() || parts[0] == "void")) parts.clear();
  if (parts.size() != sig.params.size())
    return "the source declares " + std::to_string(parts.size()) + " parameters, the PTX " +
           std::to_string(sig.params.size());
  RustLayout layout(source);
  std::vector<KernelParam> named = sig.params;
  for (size_t i = 0; i < parts.size(); ++i) {
    KernelParam& p = named[i];
    const bool ptxAggregate = p.kind == KernelParam::Kind::Aggregate;
    p.kind = KernelParam::Kind::Unknown;
    if (cuda) {
      if (!readCudaParam(parts[i], p)) return "cannot read parameter '" + parts[i] + "'";
    } else if (std::string why = readRustParam(parts[i], layout, p); !why.empty()) {
      return why;
    }
    if (p.kind == KernelParam::Kind::Unknown && ptxAggregate) p.kind = KernelParam::Kind::Aggregate;
    if (std::string why = checkAgainstPtx(p); !why.empty()) return why;
  }
  sig.params = std::move(named);
  return {};
}

}  // namespace ks::gpu
