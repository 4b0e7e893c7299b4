// The options a user sets for compiles, in one table for every surface that sets them: the
// CLI's flags, the editor's settings (initializationOptions, didChangeConfiguration and the
// workspace's kernelscope.toml, which share the settings' names), VS Code's settings, and a
// crate's `[package.metadata.kernelscope]`. Each option has one check and one help text,
// so every surface accepts the same values and says the same thing about a bad one; the
// CLI parser (server/cli/CliArgs.cpp), the settings (server/lsp/Settings.cpp) and the crate
// metadata reader (Crate.cpp) all read it, and tests/pipeline/compile/OptionsTest.cpp checks
// docs/lsp-extensions.md, editors/vscode/package.json and the Neovim docs against it. The
// table speaks typed values only; the values as they come in (JSON, a command line's words)
// are decoded by OptionDecoding.h.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "Artifact.h"

namespace ks {

/// The kind of an option's value: what JSON (or TOML, or a CLI value read by
/// cliOptionValue) it is given as, and the C++ type it is kept as once checked (OptionValue).
enum class OptionKind {
  String,      // std::string
  Integer,     // long long
  Boolean,     // bool
  StringList,  // std::vector<std::string>; an array of strings (a CLI value: one word)
  StageList,   // std::vector<Stage>; an array of stage names (a CLI value: "ptx,sass")
};

/// A checked value of an option, of the type its kind names. Decoded once, where it comes in
/// (OptionDecoding.h); everything past that reads the typed value.
using OptionValue =
    std::variant<std::string, long long, bool, std::vector<std::string>, std::vector<Stage>>;

struct OptionSpec {
  std::string_view setting;   // editor setting and kernelscope.toml key ("optLevel")
  std::string_view vscode;    // VS Code's setting after "kernelscope." ("rustc.path"); "": none
  std::string_view cliFlag;   // "--opt"; "": none
  std::string_view crateKey;  // `[package.metadata.kernelscope]` key ("opt-level"); "": none
  OptionKind kind = OptionKind::String;
  std::string_view expected;  // what a valid value is, in words ("0, 1, 2 or 3")
  std::string_view help;      // one line: what the option does
  /// A check beyond the kind (an arch name, a profile name, a range); the problem in words.
  std::optional<std::string> (*check)(const OptionValue&) = nullptr;
  std::string_view cliValue;  // the value's name in `kernelscope --help` ("sm_XX"); "": no flag
};

/// Every option, in the order --help and the docs list them.
const std::vector<OptionSpec>& optionTable();

const OptionSpec* optionBySetting(std::string_view setting);
const OptionSpec* optionByCliFlag(std::string_view flag);
const OptionSpec* optionByCrateKey(std::string_view key);

/// A value as a settings file writes it ("sm_90" quoted, 3, true, ["ptx", "sass"]), for
/// messages that quote it.
std::string optionValueText(const OptionValue&);

/// `[package.metadata.kernelscope]`'s keys, for "unknown key" messages ("arch, opt-level,
/// profile, rustc-flags, launch").
std::string crateKeyList();

}  // namespace ks
