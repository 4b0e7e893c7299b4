#include "Expression.h"

#include <cctype>
#include <cmath>
#include <cstring>
#include <sstream>
#include <vector>

#include "SpecText.h"

namespace ks::gpu {

namespace {

constexpr int kMaxExpressionDepth = 64;

class ExpressionParser {
 public:
  ExpressionParser(std::string_view text, const NameLookup& lookup) : s_(text), lookup_(lookup) {}

  std::optional<double> parse(ExpressionError& error) {
    auto v = parseShift(0);
    skipSpace();
    if (v && pos_ != s_.size())
      fail("unexpected '" + std::string(s_.substr(pos_, 12)) + "'", pos_, s_.size());
    if (!error_.message.empty()) {
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
  /// Records the first problem; [begin, end) is its part of the text (begin == end: unknown).
  std::optional<double> fail(std::string message, size_t begin = 0, size_t end = 0) {
    if (error_.message.empty()) {
      error_.message = std::move(message);
      error_.begin = begin;
      error_.end = end;
    }
    return std::nullopt;
  }
  /// `at` moved back over the blanks before it.
  size_t endBefore(size_t at) const {
    while (at > 0 && std::isspace(static_cast<unsigned char>(s_[at - 1]))) --at;
    return at;
  }
  bool tooDeep(int depth) {
    return depth > kMaxExpressionDepth && !fail("expression nested too deeply");
  }

  // Shifts bind looser than + - and * / (as in Rust).
  std::optional<double> parseShift(int depth) {
    if (tooDeep(depth)) return std::nullopt;
    skipSpace();
    const size_t start = pos_;
    auto left = parseSum(depth + 1);
    while (left) {
      bool shl = eat("<<");
      if (!shl && !eat(">>")) break;
      size_t amountEnd = 0;  // the end of the right side's first operand: `20` of `20 / 256`
      auto r = parseSum(depth + 1, &amountEnd);
      if (!r) return r;
      if (!isWhole(*r) && isWhole(*left) && *r > 0 && *r < 62) {
        // `1 << 20 / 256` is 1 << (20 / 256), as in Rust, and `/` divides exactly.
        std::ostringstream amount;
        amount << *r;
        // The parser has eaten the blanks after the operands; the parts end where they do.
        const size_t end = endBefore(pos_);
        amountEnd = endBefore(amountEnd);
        // The shift done first, where an operator follows the amount's first operand (not
        // in `1 << (20 / 256)`).
        const bool shiftFirst = amountEnd < end;
        const std::string rewrite =
            shiftFirst ? "(" + std::string(s_.substr(start, amountEnd - start)) + ")" +
                             std::string(s_.substr(amountEnd, end - amountEnd))
                       : "(1 << 20) / 256";
        fail("the shift amount is " + amount.str() +
                 ", not a whole number: / binds tighter than << and >> (as in Rust) and "
                 "divides exactly: to shift first, write it in parentheses" +
                 (shiftFirst ? ": " : ", e.g. ") + rewrite,
             start, end);
        error_.shiftPrecedence = shiftFirst;
        if (shiftFirst) error_.rewrite = rewrite;
        return std::nullopt;
      }
      if (!isWhole(*left) || !isWhole(*r) || *r < 0 || *r > 62)
        return fail("<< and >> need whole numbers (shift 0..62)", start, endBefore(pos_));
      auto n = static_cast<int>(*r);
      *left = shl ? std::ldexp(*left, n) : static_cast<double>(static_cast<int64_t>(*left) >> n);
    }
    return left;
  }
  /// `firstEnd`: where the first operand ends (parseProduct's).
  std::optional<double> parseSum(int depth, size_t* firstEnd = nullptr) {
    auto left = parseProduct(depth + 1, firstEnd);
    while (left) {
      if (eat("+")) {
        auto r = parseProduct(depth + 1);
        if (!r) return r;
        *left += *r;
      } else if (eat("-")) {
        auto r = parseProduct(depth + 1);
        if (!r) return r;
        *left -= *r;
      } else {
        break;
      }
    }
    return left;
  }
  /// `firstEnd`: where the first operand ends.
  std::optional<double> parseProduct(int depth, size_t* firstEnd = nullptr) {
    auto left = parseUnary(depth + 1);
    if (firstEnd) *firstEnd = pos_;
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
      auto v = parseShift(depth + 1);
      if (v && !eat(")")) return fail("missing ')'");
      return v;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return parseNumber();
    if (isIdentStart(c)) {
      size_t start = pos_;
      // A dotted path names a field of a struct parameter: p.n, p.inner.x.
      while (pos_ < s_.size() &&
             (isIdentChar(s_[pos_]) ||
              (s_[pos_] == '.' && pos_ + 1 < s_.size() && isIdentStart(s_[pos_ + 1]))))
        ++pos_;
      std::string name(s_.substr(start, pos_ - start));
      if (eat("(")) return parseCall(name, start, depth);
      if (name == "true" || name == "false") return name == "true" ? 1.0 : 0.0;
      std::string err;
      auto v = lookup_ ? lookup_(name, err) : std::nullopt;
      if (!v)
        return fail(err.empty() ? "unknown name '" + name + "'" : err, start, endBefore(pos_));
      return v;
    }
    return fail("unexpected '" + std::string(1, c) + "'", pos_, pos_ + 1);
  }
  std::optional<double> parseCall(const std::string& name, size_t start, int depth) {
    std::vector<double> args;
    if (!eat(")")) {
      do {
        auto a = parseShift(depth + 1);
        if (!a) return a;
        args.push_back(*a);
      } while (eat(","));
      if (!eat(")")) return fail("missing ')' after the arguments of " + name);
    }
    auto arity = [&](size_t n) {  // fail() returns an empty optional: false, said
      if (args.size() == n) return true;
      fail(name + " takes " + std::to_string(n) + " argument" + (n == 1 ? "" : "s"));
      return false;
    };
    if (name == "ceil") return arity(1) ? std::optional<double>(std::ceil(args[0])) : std::nullopt;
    if (name == "floor")
      return arity(1) ? std::optional<double>(std::floor(args[0])) : std::nullopt;
    if (name == "min")
      return arity(2) ? std::optional<double>(std::min(args[0], args[1])) : std::nullopt;
    if (name == "max")
      return arity(2) ? std::optional<double>(std::max(args[0], args[1])) : std::nullopt;
    return fail("unknown function '" + name + "' (ceil, floor, min, max)", start,
                start + name.size());
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
    for (const char* suffix : {"f16", "f32", "f64", "u8", "u16", "u32", "u64", "i8", "i16", "i32",
                               "i64", "usize", "isize"})
      if (s_.substr(pos_, std::strlen(suffix)) == suffix) pos_ += std::strlen(suffix);
    char* end = nullptr;
    double v = std::strtod(digits.c_str(), &end);
    if (digits.empty() || end != digits.c_str() + digits.size() || !std::isfinite(v))
      return fail("bad number '" + std::string(s_.substr(start, pos_ - start)) + "'", start, pos_);
    return v;
  }

  std::string_view s_;
  const NameLookup& lookup_;
  size_t pos_ = 0;
  ExpressionError error_;
};

}  // namespace

bool isWhole(double v) {
  return std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9007199254740992.0;
}

std::optional<double> evaluateExpression(std::string_view text, const NameLookup& lookup,
                                         ExpressionError& error) {
  return ExpressionParser(text, lookup).parse(error);
}

std::optional<double> evaluateExpression(std::string_view text, const NameLookup& lookup,
                                         std::string& error) {
  ExpressionError e;
  auto v = evaluateExpression(text, lookup, e);
  if (!v) error = e.message;
  return v;
}

std::optional<double> evaluateExpression(std::string_view text, std::string& error) {
  return evaluateExpression(text, nullptr, error);
}

}  // namespace ks::gpu
