// SharedString: an immutable string that its copies share, and StringInterner, which makes
// equal texts one. A compile keeps some long texts thousands of times: the optimizer's
// remarks name the same demangled functions (often hundreds of characters of iterator
// adapters) and say the same thing at every call site a helper was inlined into. Kept as
// std::string each, they were most of what a result's remarks held.
#pragma once

#include <compare>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <unordered_map>

namespace ks {

class SharedString {
 public:
  SharedString() = default;
  // NOLINTNEXTLINE(google-explicit-constructor): it is a string, made from one
  SharedString(std::string s)
      : s_(s.empty() ? nullptr : std::make_shared<const std::string>(std::move(s))) {}
  // NOLINTNEXTLINE(google-explicit-constructor)
  SharedString(const char* s) : SharedString(std::string(s)) {}

  const std::string& str() const { return s_ ? *s_ : empty_(); }
  operator const std::string&() const { return str(); }  // NOLINT(google-explicit-constructor)
  operator std::string_view() const { return str(); }    // NOLINT(google-explicit-constructor)
  bool empty() const { return str().empty(); }
  size_t size() const { return str().size(); }
  size_t find(std::string_view what, size_t from = 0) const { return str().find(what, from); }
  bool starts_with(std::string_view s) const { return str().starts_with(s); }
  /// The shared text's address: equal ids mean one allocation (nullptr when empty).
  const void* id() const { return s_.get(); }

  friend bool operator==(const SharedString& a, const SharedString& b) {
    return a.s_ == b.s_ || a.str() == b.str();
  }
  friend bool operator==(const SharedString& a, const std::string& b) { return a.str() == b; }
  friend bool operator==(const SharedString& a, std::string_view b) { return a.str() == b; }
  friend bool operator==(const SharedString& a, const char* b) { return a.str() == b; }
  friend std::string operator+(const SharedString& a, std::string_view b) {
    return a.str() + std::string(b);
  }
  friend std::string operator+(std::string_view a, const SharedString& b) {
    return std::string(a) + b.str();
  }
  friend std::strong_ordering operator<=>(const SharedString& a, const SharedString& b) {
    return a.str() <=> b.str();
  }
  friend std::ostream& operator<<(std::ostream& out, const SharedString& s) {
    return out << s.str();
  }

 private:
  static const std::string& empty_() {
    static const std::string none;
    return none;
  }
  std::shared_ptr<const std::string> s_;
};

/// Makes equal texts one SharedString. Not thread-safe: one per parse.
class StringInterner {
 public:
  /// The first SharedString interned with `s`'s text (`s` itself if it is the first).
  SharedString intern(const SharedString& s) { return made_.try_emplace(s.str(), s).first->second; }

 private:
  std::unordered_map<std::string_view, SharedString> made_;  // views into the values' texts
};

}  // namespace ks
