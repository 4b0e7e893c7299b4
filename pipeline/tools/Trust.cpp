// Workspace trust: the allow-list of rustc flags a workspace may set. See Trust.h.
//
// Each allowed option's value is checked by the option's own grammar (a `--cfg` is a cfg
// spec, a lint level names a lint, `-C opt-level` is a level): rustc's option parser is the
// engine, but it runs only after rustc has expanded `@file` arguments and read files, so the
// check has to happen before rustc sees anything. The grammars are the small subsets rustc
// documents for these options; anything outside them needs trust.
#include "Trust.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <string_view>

namespace ks {

namespace {

bool isIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool isIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

/// A Rust identifier (ASCII): `feature`, `target_os`, `my_cfg2`.
bool isIdent(std::string_view s) {
  return !s.empty() && isIdentStart(s.front()) && std::all_of(s.begin(), s.end(), isIdentChar);
}

/// Every character of `s` is one of `allowed`'s classes; `s` is not empty.
template <typename Pred>
bool allOf(std::string_view s, Pred allowed) {
  return !s.empty() && std::all_of(s.begin(), s.end(), allowed);
}

/// A quoted string of printable characters without quotes or backslashes: `"fast"`.
bool isPlainString(std::string_view s) {
  if (s.size() < 2 || s.front() != '"' || s.back() != '"') return false;
  s = s.substr(1, s.size() - 2);
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\'; });
}

/// `s` split at `sep`; each part satisfies `part` (no empty parts).
template <typename Pred>
bool listOf(std::string_view s, char sep, Pred part) {
  while (true) {
    size_t end = s.find(sep);
    if (!part(s.substr(0, end))) return false;
    if (end == std::string_view::npos) return true;
    s.remove_prefix(end + 1);
  }
}

bool oneOf(std::string_view s, std::initializer_list<std::string_view> words) {
  return std::find(words.begin(), words.end(), s) != words.end();
}

bool isNumber(std::string_view s) {
  return allOf(s, [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

/// rustc's boolean option values; an option given without a value means yes.
bool isBool(std::string_view s) {
  return s.empty() || oneOf(s, {"y", "yes", "on", "true", "n", "no", "off", "false"});
}

/// A word of letters, digits and `_ - .`: a CPU, a pass name, a relocation model.
bool isWord(std::string_view s) {
  return allOf(s, [](char c) { return isIdentChar(c) || c == '-' || c == '.'; });
}

/// `+ptx80,-foo`: features switched on or off.
bool isFeatureList(std::string_view s) {
  return listOf(s, ',', [](std::string_view f) {
    return f.size() > 1 && (f.front() == '+' || f.front() == '-') && isWord(f.substr(1));
  });
}

/// `--cfg`: `name` or `name="value"`.
bool isCfgSpec(std::string_view s) {
  size_t eq = s.find('=');
  if (eq == std::string_view::npos) return isIdent(s);
  return isIdent(s.substr(0, eq)) && isPlainString(s.substr(eq + 1));
}

/// `--check-cfg`: `cfg(name, other, values("a", "b", none(), any()))`, tokenized.
bool isCheckCfgSpec(std::string_view s) {
  std::vector<std::string_view> tokens;
  for (size_t i = 0; i < s.size();) {
    char c = s[i];
    if (c == ' ') {
      ++i;
    } else if (c == '(' || c == ')' || c == ',') {
      tokens.push_back(s.substr(i++, 1));
    } else if (c == '"') {
      size_t end = s.find('"', i + 1);
      if (end == std::string_view::npos) return false;
      tokens.push_back(s.substr(i, end - i + 1));
      i = end + 1;
    } else if (isIdentStart(c)) {
      size_t end = i;
      while (end < s.size() && isIdentChar(s[end])) ++end;
      tokens.push_back(s.substr(i, end - i));
      i = end;
    } else {
      return false;
    }
  }
  // cfg ( NAME {, NAME} [, values ( VALUE {, VALUE} )] )   with VALUE: "str" | none() | any()
  size_t t = 0;
  auto take = [&](std::string_view want) {
    if (t < tokens.size() && tokens[t] == want) return ++t, true;
    return false;
  };
  if (!take("cfg") || !take("(")) return false;
  bool values = false;
  do {
    if (t >= tokens.size()) return false;
    if (take("values")) {
      values = true;
      break;
    }
    if (!isIdent(tokens[t++])) return false;
  } while (take(","));
  if (values) {
    if (!take("(")) return false;
    if (!take(")")) {
      do {
        if (t >= tokens.size()) return false;
        if (take("none") || take("any")) {
          if (!take("(") || !take(")")) return false;
        } else if (!isPlainString(tokens[t++])) {
          return false;
        }
      } while (take(","));
      if (!take(")")) return false;
    }
  }
  return take(")") && t == tokens.size();
}

/// A lint or lint group: `warnings`, `unused-variables`, `clippy::all`.
bool isLintName(std::string_view s) {
  size_t tool = s.find("::");
  if (tool != std::string_view::npos)
    return isIdent(s.substr(0, tool)) && isLintName(s.substr(tool + 2));
  return allOf(s, [](char c) { return isIdentChar(c) || c == '-'; });
}

/// One `-C`/`-Z` key this list allows, with the grammar of its value.
struct KeyGrammar {
  std::string_view key;
  bool (*valid)(std::string_view value);
};

constexpr std::array<KeyGrammar, 13> kSafeCodegen = {{
    {"target-feature", isFeatureList},
    {"target-cpu", isWord},
    {"opt-level",
     [](std::string_view v) {
       return oneOf(v, {"0", "1", "2", "3", "s", "z"});
     }},
    {"debuginfo",
     [](std::string_view v) {
       return oneOf(v, {"0", "1", "2", "none", "line-directives-only", "line-tables-only",
                        "limited", "full"});
     }},
    {"debug-assertions", isBool},
    {"overflow-checks", isBool},
    {"inline-threshold", isNumber},
    {"codegen-units", isNumber},
    {"panic",
     [](std::string_view v) {
       return oneOf(v, {"abort", "unwind", "immediate-abort"});
     }},
    {"force-frame-pointers", isBool},
    {"relocation-model", isWord},
    {"code-model",
     [](std::string_view v) {
       return oneOf(v, {"tiny", "small", "kernel", "medium", "large"});
     }},
    {"remark", [](std::string_view v) { return listOf(v, ',', isWord); }},
}};
constexpr std::array<KeyGrammar, 5> kSafeUnstable = {{
    {"mir-opt-level", isNumber},
    {"inline-mir", isBool},
    {"inline-mir-threshold", isNumber},
    {"inline-mir-hint-threshold", isNumber},
    {"mir-enable-passes", isFeatureList},
}};

/// Whether `setting` (`key=value`, or a bare `key`) names a key of `keys` with a valid value.
template <size_t N>
bool validSetting(std::string_view setting, const std::array<KeyGrammar, N>& keys) {
  size_t eq = setting.find('=');
  std::string_view key = setting.substr(0, eq);
  std::string_view value = eq == std::string_view::npos ? "" : setting.substr(eq + 1);
  auto it =
      std::find_if(keys.begin(), keys.end(), [&](const KeyGrammar& k) { return k.key == key; });
  return it != keys.end() && it->valid(value);
}

template <size_t N>
bool keyIn(std::string_view setting, const std::array<KeyGrammar, N>& keys) {
  std::string_view key = setting.substr(0, setting.find('='));
  return std::any_of(keys.begin(), keys.end(), [&](const KeyGrammar& k) { return k.key == key; });
}

/// An option that takes its value as the next argument, or glued to it ("-Cfoo", "--cfg=x").
struct Spelling {
  std::string_view shortForm, longForm;
};

/// Reads rustc flags one option (with its value) at a time.
class FlagReader {
 public:
  explicit FlagReader(const std::vector<std::string>& flags) : flags_(flags) {}
  /// Moves to the next option; false at the end.
  bool next() {
    if (i_ >= flags_.size()) return false;
    unit_ = {flags_[i_]};
    current_ = i_++;
    return true;
  }
  /// The option with its value, as given (one argument or two).
  const std::vector<std::string>& unit() const { return unit_; }
  /// The value when the option is spelled `s`; takes the next argument when it is separate.
  std::optional<std::string> valueOf(Spelling s) {
    const std::string& f = flags_[current_];
    if ((!s.shortForm.empty() && f == s.shortForm) || (!s.longForm.empty() && f == s.longForm)) {
      if (i_ >= flags_.size()) return std::nullopt;
      unit_.push_back(flags_[i_++]);
      return unit_.back();
    }
    if (!s.shortForm.empty() && f.starts_with(s.shortForm)) return f.substr(s.shortForm.size());
    if (!s.longForm.empty() && f.starts_with(std::string(s.longForm) + "="))
      return f.substr(s.longForm.size() + 1);
    return std::nullopt;
  }

 private:
  const std::vector<std::string>& flags_;
  size_t i_ = 0, current_ = 0;
  std::vector<std::string> unit_;
};

constexpr Spelling kCodegen{"-C", "--codegen"}, kUnstable{"-Z", ""};

/// Whether the option the reader is at, with its value, is on the allow-list.
bool allowedOption(FlagReader& r) {
  if (auto v = r.valueOf(kCodegen)) return validSetting(*v, kSafeCodegen);
  if (auto v = r.valueOf(kUnstable)) return validSetting(*v, kSafeUnstable);
  if (auto v = r.valueOf({"", "--cfg"})) return isCfgSpec(*v);
  if (auto v = r.valueOf({"", "--check-cfg"})) return isCheckCfgSpec(*v);
  if (auto v = r.valueOf({"", "--cap-lints"}))
    return oneOf(*v, {"allow", "warn", "deny", "forbid"});
  for (Spelling level : {Spelling{"-A", "--allow"}, Spelling{"-W", "--warn"},
                         Spelling{"-D", "--deny"}, Spelling{"-F", "--forbid"}})
    if (auto v = r.valueOf(level)) return isLintName(*v);
  return false;
}

}  // namespace

VettedFlags vetWorkspaceRustcFlags(const std::vector<std::string>& flags) {
  VettedFlags out;
  FlagReader r(flags);
  while (r.next()) {
    bool safe = allowedOption(r);
    const auto& unit = r.unit();
    // rustc replaces an argument that begins with `@` by the lines of that file before it
    // parses any option, whatever option it follows.
    bool responseFile = std::any_of(unit.begin(), unit.end(),
                                    [](const std::string& a) { return a.starts_with('@'); });
    auto& into = responseFile ? out.refused : safe ? out.safe : out.needTrust;
    into.insert(into.end(), unit.begin(), unit.end());
    if (!responseFile) out.trusted.insert(out.trusted.end(), unit.begin(), unit.end());
  }
  return out;
}

bool leavesBackEndAlone(const std::vector<std::string>& flags) {
  // What changes only the IR rustc makes (or nothing of the code): its back end then does
  // what LLVM's does with the target, CPU and opt level that kernelscope gives both.
  static constexpr std::array<KeyGrammar, 6> kIrOnlyCodegen = {{{"debuginfo", nullptr},
                                                                {"debug-assertions", nullptr},
                                                                {"overflow-checks", nullptr},
                                                                {"inline-threshold", nullptr},
                                                                {"panic", nullptr},
                                                                {"remark", nullptr}}};
  FlagReader r(flags);
  while (r.next()) {
    if (auto v = r.valueOf(kCodegen)) {
      if (!keyIn(*v, kIrOnlyCodegen)) return false;
    } else if (auto v = r.valueOf(kUnstable)) {
      if (!keyIn(*v, kSafeUnstable)) return false;
    }
  }
  return true;
}

std::optional<std::string> codegenUnitsFlag(const std::vector<std::string>& flags) {
  FlagReader r(flags);
  while (r.next())
    if (auto v = r.valueOf(kCodegen);
        v && (*v == "codegen-units" || v->starts_with("codegen-units=")))
      return joinFlags(r.unit());
  return std::nullopt;
}

bool profileRunsCargo(ToolchainProfile profile) { return profile != ToolchainProfile::RustcNvptx; }

std::string joinFlags(const std::vector<std::string>& flags) {
  std::string out;
  for (const auto& f : flags) out += (out.empty() ? "" : " ") + f;
  return out;
}

}  // namespace ks
