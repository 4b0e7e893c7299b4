// Command-line arguments shared by the subcommands (see CliArgs.h).
#include "CliArgs.h"

#include <filesystem>

#include "Cli.h"
#include "TextUtil.h"

namespace ks {

CompileOptions cliCompileOptions() {
  CompileOptions options;
  options.archChosen = false;
  options.optLevelChosen = false;
  return options;
}

std::optional<int> parseOptLevel(std::string_view value) {
  auto n = text::parseUint(value);
  return n && *n <= 3 ? std::optional<int>(static_cast<int>(*n)) : std::nullopt;
}

std::optional<std::string> readCompileOption(std::string_view arg, ArgReader& args, CompileOptions& options) {
  if (arg == "--arch") {
    auto v = args.value();
    if (!v) return "--arch needs an architecture such as sm_90";
    if (auto bad = validateArch(*v)) return *bad;
    options.arch = *v;
    options.archChosen = true;
  } else if (arg == "--opt") {
    auto v = args.value();
    auto n = v ? parseOptLevel(*v) : std::nullopt;
    if (!n) return "--opt needs an optimization level 0, 1, 2 or 3";
    options.optLevel = *n;
    options.optLevelChosen = true;
  } else if (arg == "--profile") {
    if (auto bad = parseProfileArg(args.value(), options.profile)) return *bad;
  } else if (arg == "--save-temps") {
    auto v = args.value();
    if (!v) return "--save-temps needs a directory";
    options.saveTempsDir = std::filesystem::absolute(*v);
  } else {
    return std::nullopt;
  }
  return std::string();
}

std::optional<std::string> parseStageList(std::string_view list, std::vector<Stage>& stages) {
  stages.clear();
  while (!list.empty()) {
    std::string_view name = list.substr(0, list.find(','));
    list = name.size() < list.size() ? list.substr(name.size() + 1) : std::string_view{};
    auto s = stageFromName(text::trim(name));
    if (!s) return "unknown stage '" + std::string(name) + "': expected mir, llvm-ir, ptx or sass";
    stages.push_back(*s);
  }
  if (stages.empty()) return "no stage named: expected a list such as ptx,sass";
  return std::nullopt;
}

}  // namespace ks
