#include "LaunchSpec.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>

namespace ks::gpu {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// Element types.

namespace {
struct TypeInfo {
  ElemType type;
  const char* name;
  const char* numpy;
  size_t size;
};
constexpr TypeInfo kTypes[] = {
    {ElemType::I8, "i8", "|i1", 1},   {ElemType::I16, "i16", "<i2", 2},
    {ElemType::I32, "i32", "<i4", 4}, {ElemType::I64, "i64", "<i8", 8},
    {ElemType::U8, "u8", "|u1", 1},   {ElemType::U16, "u16", "<u2", 2},
    {ElemType::U32, "u32", "<u4", 4}, {ElemType::U64, "u64", "<u8", 8},
    {ElemType::F32, "f32", "<f4", 4}, {ElemType::F64, "f64", "<f8", 8},
};
const TypeInfo& info(ElemType t) { return kTypes[static_cast<size_t>(t)]; }

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}
bool isIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool isIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

bool isPlainParameterName(std::string_view name) {
  return !name.empty() && isIdentStart(name[0]) &&
         std::all_of(name.begin(), name.end(), isIdentChar);
}

namespace {

/// Splits at `sep` outside (), [] and, in signatures (`angles`), <>.
std::vector<std::string> splitTopLevel(std::string_view s, char sep, bool angles = false) {
  std::vector<std::string> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '(' || c == '[' || (angles && c == '<'))
      ++depth;
    else if ((c == ')' || c == ']' || (angles && c == '>')) && depth > 0)
      --depth;
    else if (c == sep && depth == 0) {
      parts.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  parts.push_back(trim(s.substr(start)));
  return parts;
}
}  // namespace

std::optional<ElemType> elemTypeFromName(std::string_view name) {
  for (const auto& t : kTypes)
    if (name == t.name) return t.type;
  return std::nullopt;
}
std::string_view elemTypeName(ElemType t) { return info(t).name; }
std::string_view elemTypeNumpy(ElemType t) { return info(t).numpy; }
size_t elemSize(ElemType t) { return info(t).size; }
bool isFloat(ElemType t) { return t == ElemType::F32 || t == ElemType::F64; }
bool isSigned(ElemType t) {
  return t == ElemType::I8 || t == ElemType::I16 || t == ElemType::I32 || t == ElemType::I64;
}

// ---------------------------------------------------------------------------------------------
// Kernel signatures.

std::vector<KernelSignature> ptxKernelSignatures(std::string_view ptxView) {
  // `.entry NAME(` then `.param .TYPE [.ptr ...] NAME` items up to `)`.
  static const std::regex entryRe(R"(\.entry\s+([A-Za-z_$][\w$]*)\s*\(([^)]*)\))");
  static const std::regex paramRe(R"(\.param\s+\.(?:[usfb])(\d+)\b)");
  std::string ptx(ptxView);
  std::vector<KernelSignature> out;
  for (std::sregex_iterator it(ptx.begin(), ptx.end(), entryRe), end; it != end; ++it) {
    KernelSignature sig{(*it)[1].str(), {}};
    const std::string params = (*it)[2].str();
    for (std::sregex_iterator p(params.begin(), params.end(), paramRe); p != end; ++p) {
      KernelParam param;
      param.name = "param_" + std::to_string(sig.params.size());
      param.bytes = static_cast<unsigned>(std::stoul((*p)[1].str()) / 8);
      sig.params.push_back(std::move(param));
    }
    out.push_back(std::move(sig));
  }
  return out;
}

namespace {
/// A scalar type as written in Rust or C (u32, usize, float, unsigned int, size_t ...).
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
      {"f32", ElemType::F32},
      {"f64", ElemType::F64},
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
      {"float", ElemType::F32},
      {"double", ElemType::F64},
  };
  auto it = names.find(t);
  return it == names.end() ? std::nullopt : std::optional<ElemType>(it->second);
}

void setScalar(KernelParam& p, std::optional<ElemType> t) {
  p.type = t;
  p.kind = !t            ? KernelParam::Kind::Unknown
           : isFloat(*t) ? KernelParam::Kind::Float
                         : KernelParam::Kind::Integer;
}

/// `name: type` (Rust).
bool readRustParam(const std::string& text, KernelParam& p) {
  size_t colon = text.find(':');
  if (colon == std::string::npos) return false;
  std::string name = trim(std::string_view(text).substr(0, colon));
  if (name.starts_with("mut ")) name = trim(std::string_view(name).substr(4));
  std::string type = trim(std::string_view(text).substr(colon + 1));
  p.name = name;
  static const std::regex ptrRe(R"(^\*\s*(const|mut)\s+(.*)$)");
  std::smatch m;
  if (std::regex_match(type, m, ptrRe)) {
    p.kind = KernelParam::Kind::Pointer;
    p.pointee = scalarTypeFromSource(trim(m[2].str()));
    p.pointeeMutable = m[1].str() == "mut";
  } else {
    setScalar(p, scalarTypeFromSource(type));
  }
  return true;
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
  size_t star = type.find('*');
  if (star != std::string::npos) {
    p.kind = KernelParam::Kind::Pointer;
    std::string base = type.substr(0, star);
    p.pointeeMutable = base.find("const") == std::string::npos;
    for (size_t at; (at = base.find("const")) != std::string::npos;) base.erase(at, 5);
    std::string norm;
    for (auto& w : splitTopLevel(base, ' '))
      if (!w.empty()) norm += (norm.empty() ? "" : " ") + w;
    p.pointee = scalarTypeFromSource(norm);
  } else {
    for (size_t at; (at = type.find("const")) != std::string::npos;) type.erase(at, 5);
    std::string norm;
    for (auto& w : splitTopLevel(type, ' '))
      if (!w.empty()) norm += (norm.empty() ? "" : " ") + w;
    setScalar(p, scalarTypeFromSource(norm));
  }
  return true;
}
}  // namespace

std::string addSourceSignature(KernelSignature& sig, std::string_view source, size_t nameOffset,
                               bool cuda) {
  size_t open = source.find('(', nameOffset);
  if (open == std::string_view::npos) return "no parameter list after the kernel's name";
  int depth = 0;
  size_t close = open;
  for (; close < source.size(); ++close) {
    if (source[close] == '(')
      ++depth;
    else if (source[close] == ')' && --depth == 0)
      break;
  }
  if (close >= source.size()) return "unbalanced parameter list";
  std::string params(source.substr(open + 1, close - open - 1));
  // Drop comments inside the list.
  params = std::regex_replace(params, std::regex(R"(//[^\n]*|/\*[\s\S]*?\*/)"), " ");
  std::vector<std::string> parts = splitTopLevel(params, ',', true);
  if (!parts.empty() && parts.back().empty()) parts.pop_back();  // trailing comma
  if (parts.size() == 1 && (parts[0].empty() || parts[0] == "void")) parts.clear();
  if (parts.size() != sig.params.size())
    return "the source declares " + std::to_string(parts.size()) + " parameters, the PTX " +
           std::to_string(sig.params.size());
  std::vector<KernelParam> named = sig.params;
  for (size_t i = 0; i < parts.size(); ++i) {
    KernelParam& p = named[i];
    if (!(cuda ? readCudaParam(parts[i], p) : readRustParam(parts[i], p)))
      return "cannot read parameter '" + parts[i] + "'";
  }
  sig.params = std::move(named);
  return {};
}

// ---------------------------------------------------------------------------------------------
// Spec text.

std::string SpecError::describe() const {
  std::string where = origin;
  if (line) where += ":" + std::to_string(line);
  return where.empty() ? message : where + ": " + message;
}

const SpecItem* LaunchSpec::find(std::string_view key) const {
  for (auto it = items.rbegin(); it != items.rend(); ++it)
    if (it->key == key) return &*it;
  return nullptr;
}

namespace {
constexpr size_t kMaxSpecItems = 256;
constexpr size_t kMaxValueLength = 4096;
constexpr int kMaxExpressionDepth = 64;
}  // namespace

void parseSpecItems(std::string_view text, const std::string& origin, uint32_t line,
                    LaunchSpec& spec, std::vector<SpecError>& errors) {
  for (const std::string& item : splitTopLevel(text, ';')) {
    if (item.empty()) continue;
    if (spec.items.size() >= kMaxSpecItems) {
      errors.push_back(
          {origin, line, "too many spec items (at most " + std::to_string(kMaxSpecItems) + ")"});
      return;
    }
    size_t eq = item.find('=');
    if (eq == std::string::npos) {
      errors.push_back({origin, line, "expected KEY = VALUE, found '" + item + "'"});
      continue;
    }
    std::string key = trim(std::string_view(item).substr(0, eq));
    std::string value = trim(std::string_view(item).substr(eq + 1));
    if (!isPlainParameterName(key)) {
      errors.push_back({origin, line, "'" + key + "' is not a parameter name or spec key"});
      continue;
    }
    if (value.empty() || value.size() > kMaxValueLength) {
      errors.push_back(
          {origin, line,
           "'" + key + "' needs a value" + (value.empty() ? "" : " shorter than 4096 characters")});
      continue;
    }
    spec.items.push_back({key, value, origin, line});
  }
}

LaunchSpec specFromComments(std::string_view source, uint32_t kernelLine, const std::string& origin,
                            std::vector<SpecError>& errors) {
  std::vector<std::string_view> lines;
  for (size_t pos = 0; pos <= source.size();) {
    size_t nl = source.find('\n', pos);
    if (nl == std::string_view::npos) nl = source.size();
    lines.push_back(source.substr(pos, nl - pos));
    pos = nl + 1;
  }
  LaunchSpec spec;
  if (kernelLine == 0 || kernelLine > lines.size()) return spec;
  // Walk up from the kernel's line over its declaration (`pub unsafe extern ... fn` may sit
  // on the lines above the name), attributes and comments, to the first blank or code line.
  // A spec may also trail one of those lines (`#[no_mangle] // kernelscope: block = 256`).
  std::vector<std::pair<uint32_t, std::string>> found;
  auto specText = [](const std::string& l) -> std::optional<std::string> {
    static const std::regex specRe(R"(//+\s*kernelscope:(.*)$)");
    std::smatch m;
    if (std::regex_search(l, m, specRe)) return m[1].str();
    return std::nullopt;
  };
  if (auto t = specText(std::string(lines[kernelLine - 1]))) found.emplace_back(kernelLine, *t);
  for (int64_t i = static_cast<int64_t>(kernelLine) - 2; i >= 0; --i) {
    std::string l = trim(lines[static_cast<size_t>(i)]);
    if (l.empty()) break;
    bool comment = l.starts_with("//");
    bool declaration = l.starts_with("#[") || l.starts_with("__global__") ||
                       l.starts_with("extern") || l.starts_with("template") ||
                       l.starts_with("pub ") || l.starts_with("unsafe ");
    if (!comment && !declaration) break;
    if (auto t = specText(l)) found.emplace_back(static_cast<uint32_t>(i + 1), *t);
  }
  std::reverse(found.begin(), found.end());
  for (const auto& [line, text] : found) parseSpecItems(text, origin, line, spec, errors);
  return spec;
}

// ---------------------------------------------------------------------------------------------
// Expressions: recursive descent over the text; values are doubles (exact integers up to 2^53,
// checked where an integer is needed).

namespace {

class ExpressionParser {
 public:
  using Lookup = std::function<std::optional<double>(const std::string& name, std::string& error)>;
  ExpressionParser(std::string_view text, Lookup lookup) : s_(text), lookup_(std::move(lookup)) {}

  std::optional<double> parse(std::string& error) {
    auto v = parseSum(0);
    skipSpace();
    if (v && pos_ != s_.size()) fail("unexpected '" + std::string(s_.substr(pos_, 12)) + "'");
    if (!error_.empty()) {
      error = error_;
      return std::nullopt;
    }
    return v;
  }

 private:
  void skipSpace() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool eat(std::string_view op) {
    skipSpace();
    if (s_.substr(pos_, op.size()) != op) return false;
    pos_ += op.size();
    return true;
  }
  std::optional<double> fail(std::string message) {
    if (error_.empty()) error_ = std::move(message);
    return std::nullopt;
  }
  bool tooDeep(int depth) {
    return depth > kMaxExpressionDepth && !fail("expression nested too deeply");
  }
  static bool whole(double v) {
    return std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9007199254740992.0;
  }

  std::optional<double> parseSum(int depth) {
    if (tooDeep(depth)) return std::nullopt;
    auto left = parseShift(depth + 1);
    while (left) {
      if (eat("+")) {
        auto r = parseShift(depth + 1);
        if (!r) return r;
        *left += *r;
      } else if (eat("-")) {
        auto r = parseShift(depth + 1);
        if (!r) return r;
        *left -= *r;
      } else {
        break;
      }
    }
    return left;
  }
  // Shifts bind looser than * / (as in most languages people write specs after, Python).
  std::optional<double> parseShift(int depth) {
    auto left = parseProduct(depth + 1);
    while (left) {
      bool shl = eat("<<");
      if (!shl && !eat(">>")) break;
      auto r = parseProduct(depth + 1);
      if (!r) return r;
      if (!whole(*left) || !whole(*r) || *r < 0 || *r > 62)
        return fail("<< and >> need whole numbers (shift 0..62)");
      auto l = static_cast<int64_t>(*left);
      auto n = static_cast<int>(*r);
      *left = shl ? static_cast<double>(l * (int64_t(1) << n)) : static_cast<double>(l >> n);
    }
    return left;
  }
  std::optional<double> parseProduct(int depth) {
    auto left = parseUnary(depth + 1);
    while (left) {
      skipSpace();
      if (s_.substr(pos_, 2) == "**") break;
      char op = pos_ < s_.size() ? s_[pos_] : 0;
      if (op != '*' && op != '/' && op != '%') break;
      ++pos_;
      auto r = parseUnary(depth + 1);
      if (!r) return r;
      if (op == '*')
        *left *= *r;
      else if (*r == 0)
        return fail("division by zero");
      else if (op == '/')
        *left /= *r;
      else
        *left = std::fmod(*left, *r);
    }
    return left;
  }
  std::optional<double> parseUnary(int depth) {
    if (tooDeep(depth)) return std::nullopt;
    if (eat("-")) {
      auto v = parseUnary(depth + 1);
      return v ? std::optional<double>(-*v) : v;
    }
    if (eat("+")) return parseUnary(depth + 1);
    auto base = parsePrimary(depth + 1);
    if (base && eat("**")) {
      auto e = parseUnary(depth + 1);
      if (!e) return e;
      return std::pow(*base, *e);
    }
    return base;
  }
  std::optional<double> parsePrimary(int depth) {
    skipSpace();
    if (pos_ >= s_.size()) return fail("expression ends early");
    char c = s_[pos_];
    if (c == '(') {
      ++pos_;
      auto v = parseSum(depth + 1);
      if (v && !eat(")")) return fail("missing ')'");
      return v;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return parseNumber();
    if (isIdentStart(c)) {
      size_t start = pos_;
      while (pos_ < s_.size() && isIdentChar(s_[pos_])) ++pos_;
      std::string name(s_.substr(start, pos_ - start));
      if (eat("(")) return parseCall(name, depth);
      std::string err;
      auto v = lookup_ ? lookup_(name, err) : std::nullopt;
      if (!v) return fail(err.empty() ? "unknown name '" + name + "'" : err);
      return v;
    }
    return fail("unexpected '" + std::string(1, c) + "'");
  }
  std::optional<double> parseCall(const std::string& name, int depth) {
    std::vector<double> args;
    if (!eat(")")) {
      do {
        auto a = parseSum(depth + 1);
        if (!a) return a;
        args.push_back(*a);
      } while (eat(","));
      if (!eat(")")) return fail("missing ')' after the arguments of " + name);
    }
    auto arity = [&](size_t n) {
      return args.size() == n ||
             !fail(name + " takes " + std::to_string(n) + " argument" + (n == 1 ? "" : "s"));
    };
    if (name == "ceil") return arity(1) ? std::optional<double>(std::ceil(args[0])) : std::nullopt;
    if (name == "floor")
      return arity(1) ? std::optional<double>(std::floor(args[0])) : std::nullopt;
    if (name == "min")
      return arity(2) ? std::optional<double>(std::min(args[0], args[1])) : std::nullopt;
    if (name == "max")
      return arity(2) ? std::optional<double>(std::max(args[0], args[1])) : std::nullopt;
    return fail("unknown function '" + name + "' (ceil, floor, min, max)");
  }
  std::optional<double> parseNumber() {
    size_t start = pos_;
    std::string digits;
    if (s_.substr(pos_, 2) == "0x" || s_.substr(pos_, 2) == "0X") {
      pos_ += 2;
      while (pos_ < s_.size() &&
             (std::isxdigit(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_'))
        if (s_[pos_++] != '_') digits += s_[pos_ - 1];
      if (digits.empty() || digits.size() > 13) return fail("bad hexadecimal number");
      return static_cast<double>(std::stoull(digits, nullptr, 16));
    }
    while (pos_ < s_.size()) {
      char c = s_[pos_];
      bool exponentSign = (c == '+' || c == '-') && !digits.empty() &&
                          (digits.back() == 'e' || digits.back() == 'E');
      if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' ||
            c == '_' || exponentSign))
        break;
      if (c != '_') digits += c;
      ++pos_;
    }
    // Rust-style suffixes (2.0f32, 16u32) are accepted and ignored: the parameter decides the type.
    for (const char* suffix : {"f32", "f64", "u32", "u64", "i32", "i64", "usize"})
      if (s_.substr(pos_, std::strlen(suffix)) == suffix) pos_ += std::strlen(suffix);
    char* end = nullptr;
    double v = std::strtod(digits.c_str(), &end);
    if (digits.empty() || end != digits.c_str() + digits.size() || !std::isfinite(v))
      return fail("bad number '" + std::string(s_.substr(start, pos_ - start)) + "'");
    return v;
  }

  std::string_view s_;
  Lookup lookup_;
  size_t pos_ = 0;
  std::string error_;
};

bool isWhole(double v) {
  return std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9007199254740992.0;
}

/// The little-endian bytes of `v` as a parameter of `bytes` size and type `t`.
std::string scalarBytes(double v, unsigned bytes, std::optional<ElemType> t, bool floatParam,
                        std::vector<uint8_t>& out) {
  out.assign(bytes, 0);
  if (floatParam) {
    if (bytes == 4) {
      float f = static_cast<float>(v);
      std::memcpy(out.data(), &f, 4);
    } else if (bytes == 8) {
      std::memcpy(out.data(), &v, 8);
    } else {
      return "a float parameter of " + std::to_string(bytes) + " bytes is not supported";
    }
    return {};
  }
  if (!isWhole(v)) return "needs a whole number, the value is " + std::to_string(v);
  bool isSignedParam = t && isSigned(*t);
  double lo = isSignedParam ? -std::ldexp(1.0, int(bytes * 8 - 1)) : 0;
  double hi =
      isSignedParam ? std::ldexp(1.0, int(bytes * 8 - 1)) - 1 : std::ldexp(1.0, int(bytes * 8)) - 1;
  if (!t && v < 0) lo = -std::ldexp(1.0, int(bytes * 8 - 1));  // PTX only: sign unknown
  if (v < lo || v > hi)
    return "the value " + std::to_string(static_cast<int64_t>(v)) +
           " does not fit the parameter's " +
           (t ? std::string(elemTypeName(*t)) : std::to_string(bytes * 8) + "-bit type");
  auto i = static_cast<int64_t>(v);
  std::memcpy(out.data(), &i, bytes);  // little-endian hosts only (x86-64, aarch64)
  return {};
}

const std::set<std::string, std::less<>> kSpecKeys = {"grid", "block", "shared", "bytes", "flops"};

/// `TYPE[LENGTH] CONTENTS`: a buffer's value in a spec (m[1] type, m[2] length, m[3] contents).
bool isBufferValue(const std::string& v, std::smatch& m) {
  static const std::regex bufferRe(R"(^([a-z]\w*)\s*\[(.*)\]\s*(.*)$)");
  return std::regex_match(v, m, bufferRe) && elemTypeFromName(m[1].str());
}

constexpr const char* kContentsHelp =
    "(zeros, ones, fill(V), iota, uniform(LO, HI, seed = S), file(\"PATH\"))";

/// Resolves one spec against one kernel's signature. Scalars evaluate on demand, each once,
/// following references between them; every problem is added to the errors with the line
/// of the spec item it is about.
class SpecResolver {
 public:
  SpecResolver(const LaunchSpec& spec, const KernelSignature& sig, std::vector<SpecError>& errors)
      : spec_(spec),
        sig_(sig),
        errors_(errors),
        first_(spec.items.empty() ? nullptr : &spec.items.front()) {
    for (const auto& p : sig.params) {
      params_[p.name] = &p;
      paramList_ += (paramList_.empty() ? "" : ", ") + p.name;
    }
  }

  /// The plan as far as the spec allows; the errors say what it lacks.
  LaunchPlan resolve() {
    checkKeys();
    LaunchPlan plan;
    plan.kernel = sig_.name;
    readShape(plan);
    for (const auto& p : sig_.params) {
      const SpecItem* item = spec_.find(p.name);
      if (!item) {
        error(first_, "no value for parameter '" + p.name + "' of " + sig_.name);
        continue;
      }
      ArgPlan arg;
      arg.name = p.name;
      arg.origin = item->origin;
      arg.line = item->line;
      std::smatch m;
      bool ok =
          isBufferValue(item->value, m) ? readBuffer(p, *item, m, arg) : readScalar(p, *item, arg);
      if (ok) plan.args.push_back(std::move(arg));
    }
    return plan;
  }

 private:
  void error(const SpecItem* item, std::string message) {
    errors_.push_back(
        {item ? item->origin : std::string(), item ? item->line : 0, std::move(message)});
  }

  /// Every key names a parameter or one of the launch's own keys.
  void checkKeys() {
    for (const auto& item : spec_.items)
      if (!kSpecKeys.count(item.key) && !params_.count(item.key))
        error(&item, "no parameter named '" + item.key + "': " + sig_.name + " takes (" +
                         paramList_ + "); other keys are grid, block, shared, bytes, flops");
  }

  /// The value of the scalar parameter `name`, evaluated once.
  std::optional<double> lookup(const std::string& name, std::string& err) {
    if (auto it = values_.find(name); it != values_.end()) return it->second;
    const SpecItem* item = params_.count(name) ? spec_.find(name) : nullptr;
    if (!params_.count(name)) {
      err = "unknown name '" + name + "' (not a parameter of " + sig_.name + ")";
      return std::nullopt;
    }
    if (!item) {
      err = "'" + name + "' has no value in the spec";
      return std::nullopt;
    }
    std::smatch m;
    if (isBufferValue(item->value, m)) {
      err = "'" + name + "' is a buffer, not a number";
      return std::nullopt;
    }
    if (evaluating_.count(name)) {
      err = "'" + name + "' is defined in terms of itself";
      return std::nullopt;
    }
    evaluating_.insert(name);
    auto v = ExpressionParser(item->value, lookupFunction()).parse(err);
    evaluating_.erase(name);
    if (v)
      values_[name] = *v;
    else if (err.find(name + ":") != 0)
      err = name + ": " + err;
    return v;
  }

  ExpressionParser::Lookup lookupFunction() {
    return [this](const std::string& name, std::string& err) { return lookup(name, err); };
  }

  /// An expression of `item`'s; a failure is reported on the item.
  std::optional<double> evaluate(const SpecItem& item, std::string_view text) {
    std::string err;
    auto v = ExpressionParser(text, lookupFunction()).parse(err);
    if (!v) error(&item, err);
    return v;
  }

  /// grid and block, the dynamic shared memory, and the bytes and flops of a launch.
  void readShape(LaunchPlan& plan) {
    readDims("grid", plan.grid, true);
    readDims("block", plan.block, true);
    if (uint64_t threads = uint64_t(plan.block[0]) * plan.block[1] * plan.block[2]; threads > 1024)
      error(spec_.find("block"),
            "a block of " + std::to_string(threads) + " threads: at most 1024");
    if (const SpecItem* item = spec_.find("shared")) {
      if (auto v = evaluate(*item, item->value)) {
        if (!isWhole(*v) || *v < 0 || *v > 4294967295.0)
          error(item, "shared needs a whole number of bytes");
        else
          plan.sharedBytes = static_cast<uint32_t>(*v);
      }
    }
    for (const char* key : {"bytes", "flops"})
      if (const SpecItem* item = spec_.find(key))
        if (auto v = evaluate(*item, item->value))
          (std::string(key) == "bytes" ? plan.bytes : plan.flops) = *v;
  }

  /// `KEY = N`, `KEY = [X, Y]` or `KEY = [X, Y, Z]`.
  void readDims(const char* key, std::array<uint32_t, 3>& dims, bool required) {
    const SpecItem* item = spec_.find(key);
    if (!item) {
      if (required)
        error(first_, std::string("the spec needs '") + key + "' (e.g. " + key + " = " +
                          (std::string(key) == "block" ? "256" : "ceil(n / 256)") + ")");
      return;
    }
    std::string text = item->value;
    if (text.front() == '[') {
      if (text.back() != ']') return error(item, std::string(key) + ": missing ']'");
      text = text.substr(1, text.size() - 2);
    }
    std::vector<std::string> parts = splitTopLevel(text, ',');
    if (parts.empty() || parts.size() > 3)
      return error(item, std::string(key) + " takes 1 to 3 dimensions");
    for (size_t i = 0; i < parts.size(); ++i) {
      auto v = evaluate(*item, parts[i]);
      if (!v) return;
      if (!isWhole(*v) || *v < 1 || *v > 4294967295.0)
        return error(item, std::string(key) + " " + "xyz"[i] + " = " + std::to_string(*v) +
                               ": needs a whole number from 1 up (use ceil(...))");
      dims[i] = static_cast<uint32_t>(*v);
    }
  }

  /// A buffer argument (`m` matched isBufferValue): its element type against the kernel's,
  /// its length, its contents.
  bool readBuffer(const KernelParam& p, const SpecItem& item, const std::smatch& m, ArgPlan& arg) {
    if (p.bytes != 8 ||
        (p.kind != KernelParam::Kind::Pointer && p.kind != KernelParam::Kind::Unknown)) {
      error(&item, "'" + p.name + "' is a " +
                       (p.type ? std::string(elemTypeName(*p.type))
                               : std::to_string(p.bytes * 8) + "-bit value") +
                       ", not a pointer: give it a number");
      return false;
    }
    arg.buffer = true;
    arg.elem = *elemTypeFromName(m[1].str());
    if (p.pointee && *p.pointee != arg.elem) {
      error(&item, "'" + p.name + "' points to " + std::string(elemTypeName(*p.pointee)) +
                       ", the spec gives " + std::string(elemTypeName(arg.elem)));
      return false;
    }
    arg.output = p.kind == KernelParam::Kind::Pointer ? p.pointeeMutable : true;
    auto len = evaluate(item, m[2].str());
    if (!len) return false;
    if (!isWhole(*len) || *len < 1) {
      error(&item, "'" + p.name + "': the length " + std::to_string(*len) +
                       " is not a whole number from 1 up");
      return false;
    }
    if (*len * elemSize(arg.elem) > static_cast<double>(kMaxBufferBytes)) {
      error(&item, "'" + p.name + "' would be " + std::to_string(*len * elemSize(arg.elem) / 1e9) +
                       " GB: larger than kernelscope allows (1 TiB)");
      return false;
    }
    arg.count = static_cast<uint64_t>(*len);
    return readContents(p, item, trim(m[3].str()), arg.fill);
  }

  /// A buffer's contents: zeros (also when none are given), ones, iota, fill(V),
  /// uniform(LO, HI, seed = S), file("PATH").
  bool readContents(const KernelParam& p, const SpecItem& item, std::string contents, Fill& fill) {
    static const std::regex callRe(R"(^([a-z]+)\s*(?:\((.*)\))?$)");
    std::smatch c;
    if (contents.empty()) contents = "zeros";
    if (!std::regex_match(contents, c, callRe)) {
      error(&item, "'" + p.name + "': unknown contents '" + contents + "' " + kContentsHelp);
      return false;
    }
    std::string kind = c[1].str();
    std::vector<std::string> cargs;
    if (c[2].matched && !trim(c[2].str()).empty()) cargs = splitTopLevel(c[2].str(), ',');
    bool ok = true;
    auto number = [&](const std::string& text) -> double {
      auto v = evaluate(item, text);
      if (!v) ok = false;
      return v.value_or(0);
    };
    if (kind == "zeros" || kind == "ones" || kind == "iota") {
      fill.kind = kind == "zeros"  ? Fill::Kind::Zeros
                  : kind == "ones" ? Fill::Kind::Ones
                                   : Fill::Kind::Iota;
      if (!cargs.empty())
        error(&item, "'" + p.name + "': " + kind + " takes no arguments"), ok = false;
    } else if (kind == "fill") {
      fill.kind = Fill::Kind::Constant;
      if (cargs.size() != 1)
        error(&item, "'" + p.name + "': fill takes one value, fill(2.5)"), ok = false;
      else
        fill.value = number(cargs[0]);
    } else if (kind == "uniform") {
      fill.kind = Fill::Kind::Uniform;
      readUniform(p, item, cargs, number, ok, fill);
    } else if (kind == "file") {
      fill.kind = Fill::Kind::File;
      std::string path = cargs.size() == 1 ? cargs[0] : "";
      if (path.size() < 2 || path.front() != '"' || path.back() != '"') {
        error(&item, "'" + p.name + "': file(\"data/x.npy\") takes one quoted path");
        ok = false;
      } else {
        fill.file = path.substr(1, path.size() - 2);
      }
    } else {
      error(&item, "'" + p.name + "': unknown contents '" + kind + "' " + kContentsHelp);
      ok = false;
    }
    return ok;
  }

  /// uniform's arguments: LO and HI, and `seed = S` anywhere among them.
  void readUniform(const KernelParam& p, const SpecItem& item,
                   const std::vector<std::string>& cargs,
                   const std::function<double(const std::string&)>& number, bool& ok, Fill& fill) {
    std::vector<std::string> positional;
    for (const auto& a : cargs) {
      if (a.starts_with("seed")) {
        size_t eq = a.find('=');
        if (eq == std::string::npos) {
          error(&item, "'" + p.name + "': write seed = N");
          ok = false;
          continue;
        }
        double s = number(a.substr(eq + 1));
        if (ok && (!isWhole(s) || s < 0))
          error(&item, "'" + p.name + "': the seed is a whole number"), ok = false;
        else
          fill.seed = static_cast<uint64_t>(s);
      } else {
        positional.push_back(a);
      }
    }
    if (positional.size() == 2) {
      fill.lo = number(positional[0]);
      fill.hi = number(positional[1]);
    } else if (!positional.empty()) {
      error(&item, "'" + p.name + "': uniform(LO, HI, seed = S)");
      ok = false;
    }
  }

  /// A number argument, as the parameter's bytes.
  bool readScalar(const KernelParam& p, const SpecItem& item, ArgPlan& arg) {
    if (p.kind == KernelParam::Kind::Pointer) {
      error(&item, "'" + p.name + "' is a pointer: give it a buffer, e.g. " + p.name + " = " +
                       std::string(elemTypeName(p.pointee.value_or(ElemType::F32))) + "[n] zeros");
      return false;
    }
    std::string err;
    auto v = lookup(p.name, err);
    if (!v) {
      error(&item, err);
      return false;
    }
    bool floatParam = p.kind == KernelParam::Kind::Float;
    if (p.kind == KernelParam::Kind::Unknown && !isWhole(*v))
      floatParam = true;  // PTX only: take the value's kind
    if (std::string why = scalarBytes(*v, p.bytes, p.type, floatParam, arg.scalar); !why.empty()) {
      error(&item, "'" + p.name + "': " + why);
      return false;
    }
    return true;
  }

  const LaunchSpec& spec_;
  const KernelSignature& sig_;
  std::vector<SpecError>& errors_;
  const SpecItem* first_;  // where errors about the whole spec point
  std::map<std::string, const KernelParam*, std::less<>> params_;
  std::string paramList_;
  std::map<std::string, double, std::less<>> values_;
  std::set<std::string, std::less<>> evaluating_;
};

}  // namespace

std::optional<double> evaluateExpression(std::string_view text, std::string& error) {
  return ExpressionParser(text, nullptr).parse(error);
}

uint64_t LaunchPlan::bufferBytes() const {
  uint64_t total = 0;
  for (const auto& a : args)
    if (a.buffer) total += a.byteSize();
  return total;
}

std::optional<LaunchPlan> resolveSpec(const LaunchSpec& spec, const KernelSignature& sig,
                                      std::vector<SpecError>& errors) {
  size_t errorsBefore = errors.size();
  LaunchPlan plan = SpecResolver(spec, sig, errors).resolve();
  if (errors.size() != errorsBefore) return std::nullopt;
  return plan;
}

// ---------------------------------------------------------------------------------------------
// Buffer files.

namespace {
constexpr uint64_t kMaxNpyHeader = 64 * 1024;
}

std::string readBufferFile(const ArgPlan& arg, const fs::path& specDir, const fs::path& root,
                           std::string& data) {
  std::error_code ec;
  fs::path path =
      fs::path(arg.fill.file).is_absolute() ? fs::path(arg.fill.file) : specDir / arg.fill.file;
  fs::path real = fs::weakly_canonical(path, ec);
  fs::path realRoot = fs::weakly_canonical(root, ec);
  auto rel = real.lexically_relative(realRoot);
  if (ec || rel.empty() || *rel.begin() == "..")
    return "'" + arg.fill.file + "' is outside the workspace (" + root.string() +
           "): a spec reads files inside it only";
  if (!fs::is_regular_file(real, ec)) return "'" + arg.fill.file + "' is not a regular file";
  uint64_t size = fs::file_size(real, ec);
  uint64_t want = arg.byteSize();
  bool npy = real.extension() == ".npy";
  if (size > want + (npy ? kMaxNpyHeader : 0) || size > kMaxBufferBytes)
    return "'" + arg.fill.file + "' holds " + std::to_string(size) +
           " bytes, more than the buffer's " + std::to_string(want);
  std::ifstream in(real, std::ios::binary);
  if (!in) return "cannot read '" + arg.fill.file + "'";
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (npy) {
    // NPY 1.0/2.0: magic, version, header length, a Python dict literal with
    // descr/fortran_order/shape.
    if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0)
      return "'" + arg.fill.file + "' is not a .npy file";
    unsigned major = static_cast<unsigned char>(bytes[6]);
    size_t headerLen = 0, start = 0;
    if (major == 1) {
      headerLen =
          static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
      start = 10;
    } else if ((major == 2 || major == 3) && bytes.size() >= 12) {
      headerLen = 0;
      for (int i = 3; i >= 0; --i)
        headerLen = (headerLen << 8) | static_cast<unsigned char>(bytes[8 + i]);
      start = 12;
    } else {
      return "'" + arg.fill.file + "': unknown .npy version";
    }
    if (start + headerLen > bytes.size()) return "'" + arg.fill.file + "': truncated .npy header";
    std::string header = bytes.substr(start, headerLen);
    std::smatch m;
    if (!std::regex_search(header, m, std::regex(R"('descr'\s*:\s*'([^']*)')")))
      return "'" + arg.fill.file + "': the .npy header has no dtype";
    std::string descr = m[1].str();
    if (descr != elemTypeNumpy(arg.elem) &&
        !(descr.size() == 3 && descr[0] == '=' &&
          descr.substr(1) == std::string(elemTypeNumpy(arg.elem)).substr(1)))
      return "'" + arg.fill.file + "' holds " + descr + ", the buffer is " +
             std::string(elemTypeName(arg.elem)) + " (" + std::string(elemTypeNumpy(arg.elem)) +
             ")";
    if (std::regex_search(header, std::regex(R"('fortran_order'\s*:\s*True)")))
      return "'" + arg.fill.file + "' is in Fortran order: save it C-contiguous";
    bytes.erase(0, start + headerLen);
    if (bytes.size() != want)
      return "'" + arg.fill.file + "' holds " + std::to_string(bytes.size() / elemSize(arg.elem)) +
             " elements, the buffer " + std::to_string(arg.count);
  } else if (bytes.size() != want) {
    return "'" + arg.fill.file + "' holds " + std::to_string(bytes.size()) + " bytes, the buffer " +
           std::to_string(want) + " (" + std::to_string(arg.count) + " x " +
           std::string(elemTypeName(arg.elem)) + ")";
  }
  data = std::move(bytes);
  return {};
}

std::string specSkeleton(const KernelSignature& sig) {
  std::string size;  // the first integer parameter
  for (const auto& p : sig.params)
    if (p.kind == KernelParam::Kind::Integer) {
      size = p.name;
      break;
    }
  std::string items, count = size.empty() ? "1 << 20" : size;
  int seed = 1;
  for (const auto& p : sig.params) {
    std::string value;
    switch (p.kind) {
      case KernelParam::Kind::Integer:
        value = p.name == size ? "1 << 20" : "1024";
        break;
      case KernelParam::Kind::Float:
        value = "1.0";
        break;
      case KernelParam::Kind::Pointer: {
        std::string elem(elemTypeName(p.pointee.value_or(ElemType::F32)));
        const bool floats = !p.pointee || isFloat(*p.pointee);
        value = elem + "[" + count + "] " +
                (p.pointeeMutable ? std::string("zeros")
                 : floats         ? "uniform(-1, 1, seed = " + std::to_string(seed++) + ")"
                                  : std::string("iota"));
        break;
      }
      case KernelParam::Kind::Unknown:
        value = p.bytes == 8 ? "f32[" + count + "] zeros" : "0";  // the PTX's size alone
        break;
    }
    items += p.name + " = " + value + "; ";
  }
  return items + "grid = ceil(" + count + " / 256); block = 256";
}

}  // namespace ks::gpu
