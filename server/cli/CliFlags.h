// The flags of every `kernelscope` command, in one table.
//
// `kernelscope --help` and `kernelscope lsp --help` print each command's option lines from
// it, and the commands that compile refuse a flag it does not give them (readCompileOption,
// server/cli/CliArgs.h), so the help cannot list a flag a command does not take nor leave
// out one it does. A flag that is also an editor setting (--arch, --opt, --profile,
// --stages, --runner, --ncu) takes its value's name and its help from the options table
// (Options.h) unless the command says it otherwise. tests/pipeline/compile/OptionsTest.cpp checks
// `kernelscope --help` and README's command-line synopsis against this table.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ks {

struct CliFlag {
  std::string_view commands;  // the commands that take it, separated by spaces ("diff passes")
  std::string_view flag;      // "--line"
  std::string_view value;     // its value's name ("N"); "" for a switch
  std::string_view help;      // what it does, one sentence; "" for an options-table flag whose
                              // value's name and help are the table's
};

/// Every flag of every command, in the order `--help` lists each command's.
const std::vector<CliFlag>& cliFlagTable();

/// Every command the table gives flags to, in the order it first names them.
std::vector<std::string_view> cliCommands();

/// The flags `command` ("explain", "lsp", ...) takes, in the table's order.
std::vector<const CliFlag*> cliFlagsOf(std::string_view command);

/// Whether `command` takes `flag`.
bool commandTakesFlag(std::string_view command, std::string_view flag);

/// The flag's value name and help as `--help` prints them (the options table's, where the
/// entry has none).
std::string_view cliFlagValue(const CliFlag&);
std::string_view cliFlagHelp(const CliFlag&);

/// `command`'s option lines as `--help` prints them: the flag and its value, then its help
/// from column 26, wrapped within 100 columns.
std::string cliFlagLines(std::string_view command);

}  // namespace ks
