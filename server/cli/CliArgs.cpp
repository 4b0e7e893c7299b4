// Command-line arguments shared by the subcommands (see CliArgs.h).
#include "CliArgs.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "Cli.h"
#include "Files.h"
#include "TextUtil.h"
#include "Trust.h"

namespace ks {

CompileOptions cliCompileOptions() {
  CompileOptions options;
  options.archChosen = false;
  options.optLevelChosen = false;
  // The user ran the command on purpose: the workspace's values apply, with a note on
  // stderr for those that need trust (printWorkspaceTrustNotes).
  options.workspaceTrusted = true;
  return options;
}

std::optional<std::string> inputFileProblem(const std::string& file) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return "no such file";
  try {  // rustc takes only UTF-8 paths; nlohmann/json's encoder is the UTF-8 check
    (void)nlohmann::json(file).dump();
  } catch (const nlohmann::json::exception&) {
    return "the file name is not valid UTF-8, which rustc cannot compile; rename the file";
  }
  if (auto bad = unreadableFileProblem(file)) return *bad;
  if (::access(file.c_str(), R_OK) != 0) return std::strerror(errno);
  return std::nullopt;
}

std::string failureText(const CompileResult& r) {
  if (r.cancelled) return "cancelled";
  return r.failure.empty() ? "does not compile" : r.failure;
}

void printWorkspaceTrustNotes(const std::vector<Diagnostic>& diagnostics) {
  for (const auto& d : diagnostics)
    if (d.code == kWorkspaceTrustCode)
      std::cerr << (d.range ? d.range->file + ": " : "")
                << (d.severity == Severity::Note ? "note: " : "warning: ") << d.message << "\n";
}

std::optional<int> parseOptLevel(std::string_view value) {
  auto n = text::parseUint(value);
  return n && *n <= 3 ? std::optional<int>(static_cast<int>(*n)) : std::nullopt;
}

std::optional<std::string> readCompileOption(std::string_view arg, ArgReader& args,
                                             CompileOptions& options) {
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
    if (!v || v->empty()) return "--save-temps needs a directory";
    // Made now, so that a path that cannot be a directory is an error before any compile.
    std::error_code ec;
    std::filesystem::path dir = std::filesystem::absolute(*v, ec);
    if (!ec) std::filesystem::create_directories(dir, ec);
    if (ec || !std::filesystem::is_directory(dir))
      return "--save-temps: cannot create the directory " + *v +
             (ec ? ": " + ec.message() : ": a file is in the way");
    options.saveTempsDir = dir;
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
