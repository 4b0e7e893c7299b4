// Option values as they come in, decoded into the options table's typed values (Options.h)
// and checked: the editor's settings and `kernelscope.toml` (server/lsp/Settings.cpp), a
// crate's `[package.metadata.kernelscope]` (cargo metadata's JSON, Crate.cpp) and the
// command line's words (as the JSON value of the option's kind, cliOptionValue). The one
// place where the pipeline's interface takes JSON: each surface hands the value as it came,
// so that every surface checks it alike and says the same words about a bad one.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "Options.h"

namespace ks {

/// A JSON value of `option` decoded into its type and checked: the value, or why it is none
/// in one message that names the option as the surface spells it (`name`: "--opt",
/// "optLevel", "opt-level").
struct DecodedOption {
  std::optional<OptionValue> value;
  std::string problem;  // when there is no value
};
DecodedOption decodeOption(const OptionSpec& option, std::string_view name,
                           const nlohmann::json& value);
/// Why `value` is no valid value of `option` (decodeOption's problem); nullopt when it is valid.
std::optional<std::string> optionProblem(const OptionSpec& option, std::string_view name,
                                         const nlohmann::json& value);
/// A command-line value as the JSON value of the option's kind: "3" -> 3, "ptx,sass" ->
/// ["ptx", "sass"], "true" -> true; text that is no value of the kind stays a string, so
/// that optionProblem names it.
nlohmann::json cliOptionValue(const OptionSpec& option, std::string_view text);

}  // namespace ks
