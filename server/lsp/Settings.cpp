// Settings parsing: the editor's JSON to Settings, value by value.
#include "Settings.h"

#include <algorithm>

#include <toml++/toml.h>

#include "JsonRpc.h"
#include "KernelLaunch.h"
#include "Trust.h"

namespace ks::server {
namespace {

std::optional<std::vector<Stage>> parseStages(const nlohmann::json& j,
                                              std::vector<std::string>& problems, const char* key) {
  if (!j.is_array()) {
    problems.push_back(std::string(key) + " must be an array of stage names");
    return std::nullopt;
  }
  std::vector<Stage> stages;
  for (const auto& s : j) {
    std::optional<Stage> stage = s.is_string() ? stageFromName(s.get<std::string>()) : std::nullopt;
    if (!stage) {
      problems.push_back(std::string(key) + ": unknown stage " + s.dump() +
                         " (known: mir, llvm-ir, ptx, sass)");
      return std::nullopt;
    }
    stages.push_back(*stage);
  }
  return stages;
}

}  // namespace

CompileOptions Settings::compileOptions() const {
  CompileOptions o;
  o.archChosen = arch.has_value();
  o.optLevelChosen = optLevel.has_value();
  if (arch) o.arch = *arch;
  if (optLevel) o.optLevel = *optLevel;
  o.profile = toolchainProfile;
  o.stages = stages;
  o.extraRustcFlags = extraRustcFlags;
  o.remarks = remarks;
  o.workspaceTrusted = workspaceTrusted;
  return o;
}

Settings applySettings(const Settings& base, const nlohmann::json& input,
                       std::vector<std::string>& problems) {
  Settings s = base;
  const nlohmann::json* j = &input;
  if (j->is_object() && j->contains("kernelscope")) j = &(*j)["kernelscope"];
  if (!j->is_object()) return s;
  const Settings defaults;
  for (const auto& [key, value] : j->items()) {
    if (key == "arch") {
      if (value.is_null() || value == "") {  // unset: the crate's arch, else the default
        s.arch.reset();
      } else if (!value.is_string()) {
        problems.push_back("arch must be a string such as \"sm_90\"");
      } else if (auto why = validateArch(value.get<std::string>())) {
        problems.push_back("arch: " + *why);
      } else {
        s.arch = value.get<std::string>();
      }
    } else if (value.is_null()) {  // null resets a key to its default (optLevel: unset)
      if (key == "optLevel")
        s.optLevel.reset();
      else if (key == "toolchainProfile")
        s.toolchainProfile.reset();
      else if (key == "stages")
        s.stages = defaults.stages;
      else if (key == "hoverStages")
        s.hoverStages = defaults.hoverStages;
      else if (key == "rustc")
        s.rustc = defaults.rustc;
      else if (key == "extraRustcFlags")
        s.extraRustcFlags = defaults.extraRustcFlags;
      else if (key == "debounceMs")
        s.debounce = defaults.debounce;
      else if (key == "remarks")
        s.remarks = defaults.remarks;
      else if (key == "workspaceTrusted")
        s.workspaceTrusted = defaults.workspaceTrusted;
      else if (key == "gpuRunner")
        s.gpuRunner = defaults.gpuRunner;
      else if (key == "ncu")
        s.ncu = defaults.ncu;
    } else if (key == "toolchainProfile") {
      auto p = value.is_string() ? profileFromName(value.get<std::string>()) : std::nullopt;
      if (p)
        s.toolchainProfile = *p;
      else
        problems.push_back("toolchainProfile must be " + std::string(kProfileChoices));
    } else if (key == "optLevel") {
      if (value.is_number_integer() && value.get<int>() >= 0 && value.get<int>() <= 3)
        s.optLevel = value.get<int>();
      else
        problems.push_back("optLevel must be 0, 1, 2 or 3");
    } else if (key == "stages") {
      if (auto stages = parseStages(value, problems, "stages")) s.stages = *stages;
    } else if (key == "hoverStages") {
      if (auto stages = parseStages(value, problems, "hoverStages")) s.hoverStages = *stages;
    } else if (key == "rustc") {
      if (value.is_string())
        s.rustc = value.get<std::string>();
      else
        problems.push_back("rustc must be a path");
    } else if (key == "extraRustcFlags") {
      if (value.is_array() &&
          std::all_of(value.begin(), value.end(), [](const auto& f) { return f.is_string(); }))
        s.extraRustcFlags = value.get<std::vector<std::string>>();
      else
        problems.push_back("extraRustcFlags must be an array of strings");
    } else if (key == "debounceMs") {
      if (value.is_number_integer() && value.get<int>() >= 0)
        s.debounce = std::chrono::milliseconds(value.get<int>());
      else
        problems.push_back("debounceMs must be a non-negative integer");
    } else if (key == "remarks") {
      if (value.is_boolean())
        s.remarks = value.get<bool>();
      else
        problems.push_back("remarks must be true or false");
    } else if (key == "gpuRunner") {
      std::vector<std::string> argv;
      if (!value.is_string())
        problems.push_back("gpuRunner must be a command prefix such as \"ssh gpu-box\"");
      else if (std::string why = gpu::splitRunner(value.get<std::string>(), argv); !why.empty())
        problems.push_back("gpuRunner: " + why);
      else
        s.gpuRunner = value.get<std::string>();
    } else if (key == "ncu") {
      if (value.is_string())
        s.ncu = value.get<std::string>();
      else
        problems.push_back("ncu must be a path");
    } else if (key == "workspaceTrusted") {
      if (value.is_boolean())
        s.workspaceTrusted = value.get<bool>();
      else
        problems.push_back("workspaceTrusted must be true or false");
    }
  }
  return s;
}

std::vector<std::string> withholdUntrustedSettings(nlohmann::json& values, bool trusted) {
  std::vector<std::string> withheld;
  if (!values.is_object()) return withheld;
  if (values.erase("workspaceTrusted"))
    withheld.push_back("workspaceTrusted (only the user can trust a workspace)");
  if (trusted) return withheld;
  for (const char* program : {"rustc", "gpuRunner", "ncu"})
    if (values.contains(program)) {
      withheld.push_back(std::string(program) + " = " + values[program].dump());
      values.erase(program);
    }
  if (values.contains("toolchainProfile") && values["toolchainProfile"].is_string())
    if (auto p = profileFromName(values["toolchainProfile"].get<std::string>());
        p && profileRunsCargo(*p)) {
      withheld.push_back("toolchainProfile = " + values["toolchainProfile"].dump() +
                         " (it runs cargo)");
      values.erase("toolchainProfile");
    }
  if (values.contains("extraRustcFlags") && values["extraRustcFlags"].is_array()) {
    VettedFlags vetted =
        vetWorkspaceRustcFlags(values["extraRustcFlags"].get<std::vector<std::string>>());
    if (!vetted.needTrust.empty()) {
      withheld.push_back("extraRustcFlags " + joinFlags(vetted.needTrust));
      values["extraRustcFlags"] = vetted.safe;
    }
  }
  return withheld;
}

namespace {

/// A TOML value as JSON: strings, integers, floats, booleans and arrays of them.
std::optional<nlohmann::json> jsonOf(const toml::node& node) {
  if (auto v = node.as_string()) return nlohmann::json(v->get());
  if (auto v = node.as_integer()) return nlohmann::json(v->get());
  if (auto v = node.as_floating_point()) return nlohmann::json(v->get());
  if (auto v = node.as_boolean()) return nlohmann::json(v->get());
  if (auto array = node.as_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const toml::node& element : *array) {
      auto value = jsonOf(element);
      if (!value) return std::nullopt;
      out.push_back(std::move(*value));
    }
    return out;
  }
  return std::nullopt;  // tables, dates and times
}

std::string problemAt(size_t line, const std::string& what) {
  return "kernelscope.toml:" + std::to_string(line) + ": " + what;
}

}  // namespace

// Read with toml++ (Debian's libtomlplusplus-dev). A line TOML cannot read is reported and
// left out, and the file is read again without it: one typo does not drop the workspace's
// other settings.
nlohmann::json parseSettingsFile(const std::string& text, std::vector<std::string>& problems) {
  std::vector<std::string> lines;
  for (size_t start = 0; start <= text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  toml::table table;
  for (size_t attempt = 0;; ++attempt) {
    std::string document;
    for (const auto& line : lines) document += line + "\n";
    try {
      table = toml::parse(document, std::string_view("kernelscope.toml"));
      break;
    } catch (const toml::parse_error& e) {
      const size_t line = e.source().begin.line;
      problems.push_back(problemAt(line, std::string(e.description())));
      if (line == 0 || line > lines.size() || lines[line - 1].empty() || attempt >= lines.size())
        return nlohmann::json::object();
      lines[line - 1].clear();
    }
  }
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, node] : table) {
    const std::string name(key.str());
    if (auto value = jsonOf(node))
      out[name] = std::move(*value);
    else
      problems.push_back(problemAt(node.source().begin.line,
                                   name + ": expected a string, integer, boolean or array value"));
  }
  return out;
}

}  // namespace ks::server
