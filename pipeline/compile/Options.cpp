// The table of options and its checks. See Options.h.
#include "Options.h"

#include <type_traits>

#include <nlohmann/json.hpp>

#include "Compile.h"
#include "Profile.h"
#include "Trust.h"

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

std::optional<std::string> checkRustcFlags(const OptionValue& v) {
  if (auto flag = codegenUnitsFlag(std::get<std::vector<std::string>>(v)))
    return "must not set the codegen units (" + *flag +
           "): kernelscope compiles the crate as one, whose code it shows (rustc's units are cut "
           "along modules and optimized apart, into other code)";
  return std::nullopt;
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
       "only in a trusted workspace; not the codegen units)",
       checkRustcFlags, ""},
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

std::string crateKeyList() {
  std::string keys;
  for (const auto& o : optionTable())
    if (!o.crateKey.empty())
      keys += std::string(keys.empty() ? "" : ", ") + std::string(o.crateKey);
  return keys + ", launch, budget";
}

}  // namespace ks
