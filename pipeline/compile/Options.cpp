// The table of options and its checks. See Options.h.
#include "Options.h"

#include <algorithm>
#include <type_traits>

#include "Compile.h"
#include "Profile.h"
#include "TextUtil.h"

namespace ks {

namespace {

std::optional<std::string> checkArch(const OptionValue& v) {
  return validateArch(std::get<std::string>(v));
}

std::optional<std::string> checkOptLevel(const OptionValue& v) {
  const long long n = std::get<long long>(v);
  if (n >= 0 && n <= 3) return std::nullopt;
  return std::string("must be 0, 1, 2 or 3");
}

std::optional<std::string> checkProfile(const OptionValue& v) {
  if (profileFromName(std::get<std::string>(v))) return std::nullopt;
  return "must be " + std::string(kProfileChoices);
}

std::optional<std::string> checkNonNegative(const OptionValue& v) {
  if (std::get<long long>(v) >= 0) return std::nullopt;
  return std::string("must be a non-negative integer");
}

/// A cache bound in MiB: up to 1 TiB (what a byte count can hold many times over).
std::optional<std::string> checkCacheMB(const OptionValue& v) {
  const long long n = std::get<long long>(v);
  if (n >= 0 && n <= (1 << 20)) return std::nullopt;
  return std::string("must be 0 to 1048576 (MiB)");
}

std::string_view kindWords(OptionKind kind) {
  switch (kind) {
    case OptionKind::String:
      return "a string";
    case OptionKind::Integer:
      return "an integer";
    case OptionKind::Boolean:
      return "true or false";
    case OptionKind::StringList:
      return "an array of strings";
    case OptionKind::StageList:
      return "an array of stage names";
  }
  return "";
}

bool hasKind(const nlohmann::json& v, OptionKind kind) {
  switch (kind) {
    case OptionKind::String:
      return v.is_string();
    case OptionKind::Integer:
      return v.is_number_integer();
    case OptionKind::Boolean:
      return v.is_boolean();
    case OptionKind::StringList:
    case OptionKind::StageList:
      return v.is_array() &&
             std::all_of(v.begin(), v.end(), [](const auto& e) { return e.is_string(); });
  }
  return false;
}

}  // namespace

const std::vector<OptionSpec>& optionTable() {
  // The catalogue's range and default, so the help names what validation takes.
  static const std::string archHelp = "target GPU architecture (" + archRangeText() +
                                      "); unset: the crate's, else " + std::string(kDefaultArch);
  static const std::vector<OptionSpec> table = {
      {"arch", "arch", "--arch", "arch", OptionKind::String, "an architecture such as \"sm_90\"",
       archHelp, checkArch, "sm_XX"},
      {"optLevel", "optLevel", "--opt", "opt-level", OptionKind::Integer, "0, 1, 2 or 3",
       "rustc -C opt-level for kernels; unset: the crate's, else 3", checkOptLevel, "N"},
      {"toolchainProfile", "toolchainProfile", "--profile", "profile", OptionKind::String,
       kProfileChoices,
       "which Rust GPU toolchain compiles kernels; unset: the crate's, else "
       "rustc-nvptx",
       checkProfile, "NAME"},
      {"stages", "stages", "--stages", "", OptionKind::StageList,
       "a list of stages (mir, llvm-ir, ptx, sass)", "the stages to produce (default: all four)",
       nullptr, "LIST"},
      {"hoverStages", "hover.stages", "", "", OptionKind::StageList,
       "a list of stages (mir, llvm-ir, ptx, sass)",
       "the stages a hover on a source line and the inlay hints show (default: ptx, sass)", nullptr,
       ""},
      {"rustc", "rustc.path", "", "", OptionKind::String, "a path",
       "the rustc to run; empty: discovered (a program: only in a trusted workspace)", nullptr, ""},
      {"extraRustcFlags", "rustc.extraFlags", "", "rustc-flags", OptionKind::StringList,
       "an array of strings",
       "flags added to the kernel crate's rustc call (those that load code or write files: "
       "only in a trusted workspace)",
       nullptr, ""},
      {"debounceMs", "debounceMs", "", "", OptionKind::Integer, "a non-negative integer",
       "milliseconds after an edit before the server compiles; unset: adaptive", checkNonNegative,
       ""},
      {"remarks", "remarks", "", "", OptionKind::Boolean, "true or false",
       "optimization remarks as hint diagnostics", nullptr, ""},
      {"compileCacheMB", "compileCacheMB", "", "", OptionKind::Integer, "0 to 1048576 (MiB)",
       "MiB of recent compile results the server keeps, so that an undo or an arch switched "
       "back is answered at once (default 64; 0: none)",
       checkCacheMB, ""},
      {"gpuRunner", "gpu.runner", "--runner", "", OptionKind::String,
       "a command prefix such as \"ssh gpu-box\"",
       "the command prefix that reaches a GPU machine (run, profile); empty: this machine", nullptr,
       "PREFIX"},
      {"ncu", "gpu.ncu", "--ncu", "", OptionKind::String, "a path",
       "Nsight Compute's CLI on the GPU machine; empty: found there", nullptr, "PATH"},
      {"workspaceTrusted", "", "", "", OptionKind::Boolean, "true or false",
       "the user trusts the workspace (never taken from the workspace's own files)", nullptr, ""},
  };
  return table;
}

namespace {

template <typename Field>
const OptionSpec* findBy(Field field, std::string_view name) {
  if (name.empty()) return nullptr;
  for (const auto& o : optionTable())
    if (o.*field == name) return &o;
  return nullptr;
}

}  // namespace

const OptionSpec* optionBySetting(std::string_view s) { return findBy(&OptionSpec::setting, s); }
const OptionSpec* optionByCliFlag(std::string_view f) { return findBy(&OptionSpec::cliFlag, f); }
const OptionSpec* optionByCrateKey(std::string_view k) { return findBy(&OptionSpec::crateKey, k); }

namespace {

/// A value of the option's kind (hasKind; stage names known) in its type.
OptionValue typedValue(OptionKind kind, const nlohmann::json& v) {
  switch (kind) {
    case OptionKind::String:
      break;
    case OptionKind::Integer:
      return v.get<long long>();
    case OptionKind::Boolean:
      return v.get<bool>();
    case OptionKind::StringList:
      return v.get<std::vector<std::string>>();
    case OptionKind::StageList: {
      std::vector<Stage> stages;
      for (const auto& name : v) stages.push_back(*stageFromTypedName(name.get<std::string>()));
      return stages;
    }
  }
  return v.get<std::string>();
}

}  // namespace

DecodedOption decodeOption(const OptionSpec& option, std::string_view name,
                           const nlohmann::json& value) {
  const std::string named(name);
  if (!hasKind(value, option.kind))
    return {std::nullopt,
            named + " must be " +
                std::string(option.kind == OptionKind::String || option.kind == OptionKind::Integer
                                ? option.expected
                                : kindWords(option.kind))};
  if (option.kind == OptionKind::StageList)
    for (const auto& s : value)
      if (!stageFromTypedName(s.get<std::string>()))
        return {std::nullopt,
                named + ": unknown stage " + s.dump() + " (known: " + stageNameList() + ")"};
  OptionValue typed = typedValue(option.kind, value);
  if (option.check)
    if (auto why = option.check(typed))
      return {std::nullopt, named + (why->starts_with("must ") ? " " : ": ") + *why};
  return {std::move(typed), {}};
}

std::optional<std::string> optionProblem(const OptionSpec& option, std::string_view name,
                                         const nlohmann::json& value) {
  DecodedOption decoded = decodeOption(option, name, value);
  if (decoded.value) return std::nullopt;
  return std::move(decoded.problem);
}

std::string optionValueText(const OptionValue& value) {
  return std::visit(
      [](const auto& v) {
        if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::vector<Stage>>) {
          nlohmann::json names = nlohmann::json::array();
          for (Stage stage : v) names.push_back(stageName(stage));
          return names.dump();
        } else {
          return nlohmann::json(v).dump();
        }
      },
      value);
}

nlohmann::json cliOptionValue(const OptionSpec& option, std::string_view text) {
  switch (option.kind) {
    case OptionKind::Integer:
      if (auto n = text::parseUint(text)) return *n;
      break;
    case OptionKind::Boolean:
      if (text == "true" || text == "false") return text == "true";
      break;
    case OptionKind::StringList:
      return nlohmann::json::array({std::string(text)});
    case OptionKind::StageList: {
      nlohmann::json list = nlohmann::json::array();
      for (size_t start = 0; start <= text.size();) {
        const size_t comma = std::min(text.find(',', start), text.size());
        if (auto word = text::trim(text.substr(start, comma - start)); !word.empty())
          list.push_back(std::string(word));
        start = comma + 1;
      }
      return list;
    }
    case OptionKind::String:
      break;
  }
  return std::string(text);
}

std::string crateKeyList() {
  std::string keys;
  for (const auto& o : optionTable())
    if (!o.crateKey.empty())
      keys += std::string(keys.empty() ? "" : ", ") + std::string(o.crateKey);
  return keys + ", launch, budget";
}

}  // namespace ks
