// Workspace trust: the allow-list of rustc flags a workspace may set. See Trust.h.
#include "Trust.h"

#include <algorithm>
#include <array>
#include <optional>
#include <string_view>

namespace ks {

namespace {

constexpr std::array<std::string_view, 13> kSafeCodegen = {
    "target-feature",   "target-cpu",       "opt-level",     "debuginfo", "debug-assertions",
    "overflow-checks",  "inline-threshold", "codegen-units", "panic",     "force-frame-pointers",
    "relocation-model", "code-model",       "remark"};
constexpr std::array<std::string_view, 5> kSafeUnstable = {
    "mir-opt-level", "inline-mir", "inline-mir-threshold", "inline-mir-hint-threshold",
    "mir-enable-passes"};

template <size_t N>
bool keyIn(std::string_view setting, const std::array<std::string_view, N>& keys) {
  std::string_view key = setting.substr(0, setting.find('='));
  return std::find(keys.begin(), keys.end(), key) != keys.end();
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

}  // namespace

VettedFlags vetWorkspaceRustcFlags(const std::vector<std::string>& flags) {
  VettedFlags out;
  FlagReader r(flags);
  while (r.next()) {
    bool safe = false;
    if (auto v = r.valueOf(kCodegen))
      safe = keyIn(*v, kSafeCodegen);
    else if (auto v = r.valueOf(kUnstable))
      safe = keyIn(*v, kSafeUnstable);
    else if (r.valueOf({"", "--cfg"}) || r.valueOf({"", "--check-cfg"}))
      safe = true;
    else if (r.valueOf({"-A", "--allow"}) || r.valueOf({"-W", "--warn"}) ||
             r.valueOf({"-D", "--deny"}) || r.valueOf({"-F", "--forbid"}) ||
             r.valueOf({"", "--cap-lints"}))
      safe = true;
    auto& into = safe ? out.safe : out.needTrust;
    into.insert(into.end(), r.unit().begin(), r.unit().end());
  }
  return out;
}

bool leavesBackEndAlone(const std::vector<std::string>& flags) {
  // What changes only the IR rustc makes (or nothing of the code): its back end then does
  // what LLVM's does with the target, CPU and opt level that kernelscope gives both.
  static constexpr std::array<std::string_view, 6> kIrOnlyCodegen = {
      "debuginfo", "debug-assertions", "overflow-checks", "inline-threshold", "panic", "remark"};
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

bool profileRunsCargo(ToolchainProfile profile) { return profile != ToolchainProfile::RustcNvptx; }

std::string joinFlags(const std::vector<std::string>& flags) {
  std::string out;
  for (const auto& f : flags) out += (out.empty() ? "" : " ") + f;
  return out;
}

}  // namespace ks
