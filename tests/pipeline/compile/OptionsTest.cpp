// The options table (Options.h) against every place that spells the options: the settings
// table of docs/lsp-extensions.md, VS Code's package.json and the settings config.ts sends,
// the Neovim docs' examples, `kernelscope --help`; and one message per bad value whatever
// the surface.
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "Artifact.h"
#include "CliFlags.h"
#include "OptionDecoding.h"
#include "TestSupport.h"

using namespace ks;
using nlohmann::json;

namespace {

std::string source(const std::string& rel) { return readWholeFile(test::sourceDir() / rel); }

std::set<std::string> settingNames() {
  std::set<std::string> names;
  for (const auto& o : optionTable()) names.insert(std::string(o.setting));
  return names;
}

/// The JSON schema types VS Code's setting may have for an option of `kind`.
bool schemaFits(const json& type, OptionKind kind) {
  std::set<std::string> types;
  if (type.is_string()) types.insert(type.get<std::string>());
  if (type.is_array())
    for (const auto& t : type) types.insert(t.get<std::string>());
  types.erase("null");  // null takes the key back to the crate's value or the default
  switch (kind) {
    case OptionKind::String:
      return types == std::set<std::string>{"string"};
    case OptionKind::Integer:
      return types == std::set<std::string>{"integer"} || types == std::set<std::string>{"number"};
    case OptionKind::Boolean:
      return types == std::set<std::string>{"boolean"};
    case OptionKind::StringList:
    case OptionKind::StageList:
      return types == std::set<std::string>{"array"};
  }
  return false;
}

}  // namespace

TEST_CASE("docs/lsp-extensions.md lists every setting of the table, and no other") {
  const std::string doc = source("docs/lsp-extensions.md");
  const size_t start = doc.find("### Settings\n");
  REQUIRE(start != std::string::npos);
  std::set<std::string> documented;
  static const std::regex row(R"(^\| `(\w+)` \|)");
  const std::vector<std::string_view> lines = splitLines(std::string_view(doc).substr(start));
  bool inTable = false;
  for (size_t i = 1; i < lines.size(); ++i) {  // after the heading
    const std::string line(lines[i]);
    if (line.starts_with("|")) {
      inTable = true;
      std::smatch m;
      if (std::regex_search(line, m, row)) documented.insert(m[1]);
    } else if (inTable) {
      break;
    }
  }
  CHECK(documented == settingNames());
}

TEST_CASE("VS Code declares each option's setting with a fitting type, and sends it by its name") {
  const json package = json::parse(source("editors/vscode/package.json"));
  const json& properties = package["contributes"]["configuration"]["properties"];
  const std::string config = source("editors/vscode/src/config.ts");
  for (const auto& o : optionTable()) {
    CAPTURE(o.setting);
    if (o.vscode.empty()) continue;
    const std::string key = "kernelscope." + std::string(o.vscode);
    REQUIRE_MESSAGE(properties.contains(key), key << " is not in package.json");
    CHECK(schemaFits(properties[key]["type"], o.kind));
    // serverOptions() sends it under the server's name, read from VS Code's.
    const std::regex sent("\\n    " + std::string(o.setting) + ": s\\.get<[^>]+>\\(\"" +
                          std::regex_replace(std::string(o.vscode), std::regex("\\."), "\\.") +
                          "\"\\)");
    CHECK_MESSAGE(std::regex_search(config, sent), o.setting << " is not sent from " << key);
  }
  // Everything serverOptions() sends is a setting of the table.
  const size_t body = config.find("export function serverOptions()");
  REQUIRE(body != std::string::npos);
  const std::string options = config.substr(body, config.find("\n}\n", body) - body);
  static const std::regex sentKey(R"(\n    (\w+): )");
  for (auto it = std::sregex_iterator(options.begin(), options.end(), sentKey);
       it != std::sregex_iterator(); ++it)
    CHECK_MESSAGE(settingNames().count((*it)[1]), (*it)[1] << " is sent but is no setting");
}

TEST_CASE("the Neovim docs' settings examples name settings of the table") {
  static const std::regex example(R"(settings = \{ ([^}]*)\})");
  static const std::regex key(R"((\w+) = )");
  size_t examples = 0;
  for (const std::string file : {"editors/nvim/README.md", "editors/nvim/doc/kernelscope.txt",
                                 "editors/nvim/lua/kernelscope/config.lua"}) {
    const std::string text = source(file);
    for (auto it = std::sregex_iterator(text.begin(), text.end(), example);
         it != std::sregex_iterator(); ++it, ++examples) {
      const std::string inner = (*it)[1];
      for (auto k = std::sregex_iterator(inner.begin(), inner.end(), key);
           k != std::sregex_iterator(); ++k) {
        CAPTURE(file);
        CHECK_MESSAGE(settingNames().count((*k)[1]), (*k)[1] << " is no setting");
      }
    }
  }
  CHECK(examples >= 2);
}

TEST_CASE("one check, one message per option, named as each surface spells it") {
  const OptionSpec* opt = optionBySetting("optLevel");
  REQUIRE(opt);
  CHECK(optionByCliFlag("--opt") == opt);
  CHECK(optionByCrateKey("opt-level") == opt);
  CHECK(optionProblem(*opt, "optLevel", 7) == "optLevel must be 0, 1, 2 or 3");
  CHECK(optionProblem(*opt, "opt-level", "3") == "opt-level must be 0, 1, 2 or 3");
  CHECK(optionProblem(*opt, "--opt", cliOptionValue(*opt, "fast")) == "--opt must be 0, 1, 2 or 3");
  CHECK_FALSE(optionProblem(*opt, "--opt", cliOptionValue(*opt, "2")));
  const OptionSpec* arch = optionByCliFlag("--arch");
  REQUIRE(arch);
  CHECK(optionProblem(*arch, "arch", "sm_42")->starts_with("arch: "));
  CHECK_FALSE(optionProblem(*arch, "arch", "sm_80"));
  const OptionSpec* stages = optionByCliFlag("--stages");
  REQUIRE(stages);
  CHECK(cliOptionValue(*stages, "ptx, sass") == json({"ptx", "sass"}));
  CHECK(optionProblem(*stages, "--stages", cliOptionValue(*stages, "ptx,asm")) ==
        "--stages: unknown stage \"asm\" (known: mir, llvm-ir, ptx, sass)");
  CHECK(crateKeyList() == "arch, opt-level, profile, rustc-flags, launch, budget");
  const OptionSpec* cache = optionBySetting("compileCacheMB");
  REQUIRE(cache);
  CHECK(optionProblem(*cache, "compileCacheMB", -1) == "compileCacheMB must be 0 to 1048576 (MiB)");
  CHECK(optionProblem(*cache, "compileCacheMB", "64") ==
        "compileCacheMB must be 0 to 1048576 (MiB)");
  CHECK_FALSE(optionProblem(*cache, "compileCacheMB", 0));
  // kernelscope compiles one codegen unit: a flag that sets others is refused, in any spelling.
  const OptionSpec* flags = optionByCrateKey("rustc-flags");
  REQUIRE(flags);
  for (const json& units : {json{"--cfg", "fast", "-Ccodegen-units=16"},
                            json{"-C", "codegen-units=4"}, json{"--codegen", "codegen-units=2"}}) {
    CAPTURE(units);
    auto problem = optionProblem(*flags, "rustc-flags", units);
    REQUIRE(problem);
    CHECK(problem->starts_with("rustc-flags must not set the codegen units ("));
    CHECK(problem->find(units.back().get<std::string>() + "): kernelscope compiles the crate as "
                                                          "one") != std::string::npos);
  }
  CHECK_FALSE(optionProblem(*flags, "extraRustcFlags", json{"-C", "opt-level=2", "--cfg", "x"}));

  // The CLI says it in the table's words.
  ProcessResult r = test::runKernelscope({"explain", "examples/saxpy.rs", "--opt", "9"});
  CHECK(r.exitCode == 2);
  CHECK(r.err.find("--opt must be 0, 1, 2 or 3") != std::string::npos);
}

namespace {

/// One command's part of `kernelscope --help`: its synopsis lines and its option entries,
/// each an option line with its continuation lines.
struct HelpSection {
  std::string synopsis;
  std::vector<std::string> entries;
};

/// `--help` read back by command ("lsp" for `kernelscope [lsp]`).
std::map<std::string, HelpSection> helpSections(const std::string& help) {
  std::map<std::string, HelpSection> sections;
  HelpSection* current = nullptr;
  for (std::string_view line : splitLines(help)) {
    if (line.starts_with("  kernelscope ")) {
      std::string_view rest = line.substr(14);
      std::string command(rest.substr(0, rest.find(' ')));
      current = &sections[command == "[lsp]" ? "lsp" : command];
      current->synopsis += std::string(line) + "\n";
    } else if (current && line.starts_with("      -")) {
      current->entries.emplace_back(line);
    } else if (current && !current->entries.empty() && line.starts_with(std::string(26, ' '))) {
      current->entries.back() += "\n" + std::string(line);
    } else if (current && line.starts_with(std::string(20, ' '))) {
      current->synopsis += std::string(line) + "\n";  // a synopsis continued
    } else {
      current = nullptr;
    }
  }
  return sections;
}

/// `text` with every run of white space one space.
std::string squeezed(std::string_view text) {
  std::string out;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c)))
      out += c;
    else if (!out.empty() && out.back() != ' ')
      out += ' ';
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

/// The flags (`--name`) a text mentions.
std::set<std::string> flagsIn(const std::string& text) {
  static const std::regex flag(R"((^|[\s\[|(])(--[a-z][a-z-]*))");
  std::set<std::string> flags;
  for (std::sregex_iterator it(text.begin(), text.end(), flag), end; it != end; ++it)
    flags.insert((*it)[2].str());
  return flags;
}

}  // namespace

TEST_CASE("kernelscope --help prints every option line from the table of flags") {
  ProcessResult r = test::runKernelscope({"--help"});
  REQUIRE(r.exitCode == 0);
  const auto sections = helpSections(r.out);
  const auto commands = cliCommands();
  for (std::string_view command : commands) {
    CAPTURE(command);
    REQUIRE(sections.count(std::string(command)));
    const HelpSection& section = sections.at(std::string(command));
    // Each entry in the table's order is the flag, its value's name and its help, in the
    // table's words (an options-table flag's from the options table), and nothing else.
    const auto flags = cliFlagsOf(command);
    REQUIRE(section.entries.size() == flags.size());
    for (size_t i = 0; i < flags.size(); ++i) {
      const CliFlag& f = *flags[i];
      CAPTURE(f.flag);
      std::string expected(f.flag);
      if (!cliFlagValue(f).empty()) expected += " " + std::string(cliFlagValue(f));
      CHECK(squeezed(section.entries[i]) == squeezed(expected + " " + std::string(cliFlagHelp(f))));
      if (f.help.empty()) {
        const OptionSpec* option = optionByCliFlag(f.flag);
        REQUIRE(option);
        CHECK(cliFlagHelp(f) == option->help);
        CHECK(cliFlagValue(f) == option->cliValue);
      }
    }
    // A flag the synopsis names is one the command takes.
    for (const std::string& flag : flagsIn(section.synopsis)) {
      CAPTURE(flag);
      CHECK(commandTakesFlag(command, flag));
    }
  }
  // Every option the options table gives a flag is some command's.
  for (const auto& o : optionTable()) {
    if (o.cliFlag.empty()) continue;
    CAPTURE(o.cliFlag);
    CHECK(std::any_of(commands.begin(), commands.end(),
                      [&](std::string_view c) { return commandTakesFlag(c, o.cliFlag); }));
  }
  CHECK(r.out.find('@') == std::string::npos);  // no placeholder left
  // `kernelscope lsp --help` has the same lines for the language server's flags.
  ProcessResult lsp = test::runKernelscope({"lsp", "--help"});
  CHECK(lsp.exitCode == 0);
  CHECK(lsp.out == "usage: kernelscope lsp [options]\n" + cliFlagLines("lsp"));
}

TEST_CASE("COMMAND --help prints that command's part of --help, from the same table") {
  const auto all = helpSections(test::runKernelscope({"--help"}).out);
  for (const char* command :
       {"explain", "compare", "diff", "passes", "run", "profile", "gpu-exec", "doctor", "setup"}) {
    CAPTURE(command);
    for (const char* help : {"--help", "-h"}) {
      // After other arguments too: `run k.rs --help` does not compile k.rs.
      ProcessResult r = test::runKernelscope({command, "no-such-file.rs", help});
      REQUIRE(r.exitCode == 0);
      CHECK(r.out.starts_with("usage:\n  kernelscope " + std::string(command)));
      const auto own = helpSections(r.out);
      REQUIRE(own.size() == 1);
      CHECK(own.begin()->second.synopsis == all.at(command).synopsis);
      CHECK(own.begin()->second.entries == all.at(command).entries);
    }
  }
  // An unknown command is still one.
  ProcessResult unknown = test::runKernelscope({"nosuch", "--help"});
  CHECK(unknown.exitCode == 2);
  CHECK(unknown.err.find("unknown command 'nosuch'") != std::string::npos);
}

TEST_CASE("each command takes the flags the table gives it, and no other") {
  TempDir tmp("options-test");
  // The language server's are left out: a flag it takes starts it.
  for (const char* command : {"explain", "diff", "compare", "passes", "run", "profile", "doctor"}) {
    for (const CliFlag* f : cliFlagsOf(command)) {
      CAPTURE(command);
      CAPTURE(f->flag);
      std::vector<std::string> args = {command, std::string(f->flag)};
      // --save-temps makes its directory at once: one in the temporary directory.
      if (!cliFlagValue(*f).empty())
        args.push_back(f->flag == "--save-temps" ? (tmp.path() / "temps").string() : "bad-value");
      // Without a file (or with a bad value) the command stops at once: never at this flag.
      ProcessResult r = test::runKernelscope(args);
      CHECK(r.exitCode == 2);
      CHECK(r.err.find("unknown option") == std::string::npos);
    }
  }
  // A flag of another command is refused, in the same words everywhere.
  for (const auto& commandAndFlag :
       std::vector<std::pair<std::string, std::string>>{{"diff", "--line"},
                                                        {"explain", "--vs-arch"},
                                                        {"passes", "--stages"},
                                                        {"profile", "--runs"},
                                                        {"run", "--ncu"},
                                                        {"compare", "--json"}}) {
    // References, not structured bindings: clang 14 cannot capture a binding in CAPTURE's lambda.
    const std::string& command = commandAndFlag.first;
    const std::string& flag = commandAndFlag.second;
    CAPTURE(command);
    REQUIRE_FALSE(commandTakesFlag(command, flag));
    ProcessResult r = test::runKernelscope({command, "examples/saxpy.rs", flag, "1"});
    CHECK(r.exitCode == 2);
    CHECK(r.err.find("unknown option '" + flag + "' (see kernelscope --help)") !=
          std::string::npos);
  }
}

TEST_CASE("README's command-line synopsis names only flags the commands take") {
  const std::string readme = source("README.md");
  const size_t at = readme.find("### Command line\n\n```\n");
  REQUIRE(at != std::string::npos);
  const size_t begin = readme.find("```\n", at) + 4;
  const std::string block = readme.substr(begin, readme.find("```", begin) - begin);
  std::string command;
  size_t lines = 0;
  for (std::string_view line : splitLines(block)) {
    if (line.starts_with("kernelscope ")) {
      std::string_view rest = line.substr(12);
      command = std::string(rest.substr(0, rest.find(' ')));
      if (command == "[lsp]") command = "lsp";
      ++lines;
    }
    // A line's comment (`# ...`) is prose.
    const std::string words(line.substr(0, line.find(" # ")));
    for (const std::string& flag : flagsIn(words)) {
      CAPTURE(command);
      CAPTURE(flag);
      CHECK(commandTakesFlag(command, flag));
    }
  }
  CHECK(lines >= 7);
}
