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

}  // namespace

VettedFlags vetWorkspaceRustcFlags(const std::vector<std::string>& flags) {
  VettedFlags out;
  for (size_t i = 0; i < flags.size(); ++i) {
    const std::string& f = flags[i];
    // The option and its value, whether given as one argument or two.
    std::vector<std::string> unit = {f};
    auto valueOf = [&](Spelling s) -> std::optional<std::string> {
      if ((!s.shortForm.empty() && f == s.shortForm) || (!s.longForm.empty() && f == s.longForm)) {
        if (i + 1 >= flags.size()) return std::nullopt;
        unit.push_back(flags[++i]);
        return unit.back();
      }
      if (!s.shortForm.empty() && f.starts_with(s.shortForm)) return f.substr(s.shortForm.size());
      if (!s.longForm.empty() && f.starts_with(std::string(s.longForm) + "="))
        return f.substr(s.longForm.size() + 1);
      return std::nullopt;
    };
    bool safe = false;
    if (auto v = valueOf({"-C", "--codegen"}))
      safe = keyIn(*v, kSafeCodegen);
    else if (auto v = valueOf({"-Z", ""}))
      safe = keyIn(*v, kSafeUnstable);
    else if (valueOf({"", "--cfg"}) || valueOf({"", "--check-cfg"}))
      safe = true;
    else if (valueOf({"-A", "--allow"}) || valueOf({"-W", "--warn"}) || valueOf({"-D", "--deny"}) ||
             valueOf({"-F", "--forbid"}) || valueOf({"", "--cap-lints"}))
      safe = true;
    auto& into = safe ? out.safe : out.needTrust;
    into.insert(into.end(), unit.begin(), unit.end());
  }
  return out;
}

bool profileRunsCargo(ToolchainProfile profile) { return profile != ToolchainProfile::RustcNvptx; }

std::string joinFlags(const std::vector<std::string>& flags) {
  std::string out;
  for (const auto& f : flags) out += (out.empty() ? "" : " ") + f;
  return out;
}

}  // namespace ks
