// The options table (Options.h) against every place that spells the options: the settings
// table of docs/lsp-extensions.md, VS Code's package.json and the settings config.ts sends,
// the Neovim docs' examples, `kernelscope --help`; and one message per bad value whatever
// the surface.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "Options.h"
#include "TestSupport.h"

using namespace ks;
using nlohmann::json;

namespace {

std::string source(const std::string& rel) { return test::readFile(test::sourceDir() / rel); }

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
  std::istringstream lines(doc.substr(start));
  std::string line;
  std::getline(lines, line);
  for (bool inTable = false; std::getline(lines, line);) {
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
  CHECK(crateKeyList() == "arch, opt-level, profile, rustc-flags, launch");
  const OptionSpec* cache = optionBySetting("compileCacheMB");
  REQUIRE(cache);
  CHECK(optionProblem(*cache, "compileCacheMB", -1) == "compileCacheMB must be 0 to 1048576 (MiB)");
  CHECK(optionProblem(*cache, "compileCacheMB", "64") ==
        "compileCacheMB must be 0 to 1048576 (MiB)");
  CHECK_FALSE(optionProblem(*cache, "compileCacheMB", 0));

  // The CLI says it in the table's words.
  ProcessResult r = test::runKernelscope({"explain", "examples/saxpy.rs", "--opt", "9"});
  CHECK(r.exitCode == 2);
  CHECK(r.err.find("--opt must be 0, 1, 2 or 3") != std::string::npos);
}

TEST_CASE("kernelscope --help lists every command-line option of the table") {
  ProcessResult r = test::runKernelscope({"--help"});
  for (const auto& o : optionTable()) {
    if (o.cliFlag.empty()) continue;
    CAPTURE(o.cliFlag);
    // Its line comes from the table: the flag, its value's name and the table's help.
    const size_t at = r.out.find(std::string(o.cliFlag) + " " + std::string(o.cliValue) + " ");
    REQUIRE(at != std::string::npos);
    CHECK(r.out.substr(at, r.out.find('\n', at) - at).ends_with(o.help));
  }
  CHECK(r.out.find('@') == std::string::npos);  // no placeholder left
}
