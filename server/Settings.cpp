// Settings parsing: the editor's JSON to Settings, value by value.
#include "Settings.h"

#include <algorithm>

namespace ks::server {
namespace {

std::optional<std::vector<Stage>> parseStages(const nlohmann::json& j,
                                              std::vector<std::string>& problems,
                                              const char* key) {
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
  o.arch = arch;
  o.optLevel = optLevel;
  o.stages = stages;
  o.extraRustcFlags = extraRustcFlags;
  o.remarks = remarks;
  return o;
}

Settings applySettings(const Settings& base, const nlohmann::json& input,
                       std::vector<std::string>& problems) {
  Settings s = base;
  const nlohmann::json* j = &input;
  if (j->is_object() && j->contains("kernelscope")) j = &(*j)["kernelscope"];
  if (!j->is_object()) return s;
  for (const auto& [key, value] : j->items()) {
    if (value.is_null()) continue;
    if (key == "arch") {
      if (!value.is_string()) {
        problems.push_back("arch must be a string such as \"sm_90\"");
      } else if (auto why = validateArch(value.get<std::string>())) {
        problems.push_back("arch: " + *why);
      } else {
        s.arch = value.get<std::string>();
      }
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
      if (value.is_array() && std::all_of(value.begin(), value.end(),
                                          [](const auto& f) { return f.is_string(); }))
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
    }
  }
  return s;
}

}  // namespace ks::server
