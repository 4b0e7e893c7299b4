// Option values as they come in, decoded and checked by the options table. See
// OptionDecoding.h.
#include "OptionDecoding.h"

#include <algorithm>

#include "TextUtil.h"

namespace ks {

namespace {

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

}  // namespace ks
