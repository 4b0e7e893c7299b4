// Settings parsing: the editor's JSON to Settings, value by value.
#include "Settings.h"

#include <algorithm>

#include <toml++/toml.h>

#include "KernelLaunch.h"
#include "Options.h"
#include "Trust.h"

namespace ks::server {
namespace {

std::vector<Stage> stagesOf(const nlohmann::json& names) {
  std::vector<Stage> stages;
  for (const auto& n : names) stages.push_back(*stageFromName(n.get<std::string>()));
  return stages;
}

/// null resets a key: to unset (arch, optLevel, toolchainProfile: the crate's value, else
/// the default), or to its default.
void resetSetting(Settings& s, const std::string& key) {
  const Settings defaults;
  if (key == "arch")
    s.arch.reset();
  else if (key == "optLevel")
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
  else if (key == "compileCacheMB")
    s.compileCacheMB = defaults.compileCacheMB;
  else if (key == "workspaceTrusted")
    s.workspaceTrusted = defaults.workspaceTrusted;
  else if (key == "gpuRunner")
    s.gpuRunner = defaults.gpuRunner;
  else if (key == "ncu")
    s.ncu = defaults.ncu;
}

/// gpuRunner's words, split as the GPU runner splits them (gpu/, which the options table
/// below the server cannot reach).
std::optional<std::string> runnerProblem(const std::string& key, const nlohmann::json& value) {
  std::vector<std::string> argv;
  if (key != "gpuRunner") return std::nullopt;
  if (std::string why = gpu::splitRunner(value.get<std::string>(), argv); !why.empty())
    return "gpuRunner: " + why;
  return std::nullopt;
}

/// Sets a key from a value the options table has checked.
void applySetting(Settings& s, const std::string& key, const nlohmann::json& value) {
  if (key == "arch")
    s.arch = value.get<std::string>();
  else if (key == "toolchainProfile")
    s.toolchainProfile = profileFromName(value.get<std::string>());
  else if (key == "optLevel")
    s.optLevel = value.get<int>();
  else if (key == "stages")
    s.stages = stagesOf(value);
  else if (key == "hoverStages")
    s.hoverStages = stagesOf(value);
  else if (key == "rustc")
    s.rustc = value.get<std::string>();
  else if (key == "extraRustcFlags")
    s.extraRustcFlags = value.get<std::vector<std::string>>();
  else if (key == "debounceMs")
    s.debounce = std::chrono::milliseconds(value.get<int>());
  else if (key == "remarks")
    s.remarks = value.get<bool>();
  else if (key == "compileCacheMB")
    s.compileCacheMB = value.get<size_t>();
  else if (key == "workspaceTrusted")
    s.workspaceTrusted = value.get<bool>();
  else if (key == "gpuRunner")
    s.gpuRunner = value.get<std::string>();
  else if (key == "ncu")
    s.ncu = value.get<std::string>();
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
  o.stagesChosen = false;  // the stages of a Rust kernel; a `.cu` file has PTX and SASS
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
  for (const auto& [key, value] : j->items()) {
    const OptionSpec* option = optionBySetting(key);
    if (!option) continue;  // unknown keys are ignored (other clients' settings)
    if (value.is_null() || (key == "arch" && value == ""))
      resetSetting(s, key);
    else if (auto problem = optionProblem(*option, key, value))  // the table's check and words
      problems.push_back(*problem);
    else if (auto runner = runnerProblem(key, value))
      problems.push_back(*runner);
    else
      applySetting(s, key, value);
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

void SettingsLayers::changeEditorValues(const nlohmann::json& changes) {
  for (const auto& [key, value] : changes.items()) {
    if (value.is_null())
      editor_.erase(key);
    else
      editor_[key] = value;
  }
}

SettingsLayers::Layered SettingsLayers::layered() const {
  Layered out;
  std::vector<std::string> reported;  // each layer's problems were reported when it was read
  // The workspace's own file may choose only safe values until the user trusts it.
  out.trusted = applySettings(Settings{}, editor_, reported).workspaceTrusted;
  nlohmann::json fileValues = file_;
  out.withheld = withholdUntrustedSettings(fileValues, out.trusted);
  out.settings = applySettings(applySettings(Settings{}, fileValues, reported), editor_, reported);
  return out;
}

}  // namespace ks::server
