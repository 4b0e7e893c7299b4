// Command-line arguments shared by the subcommands (see CliArgs.h).
#include "CliArgs.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>

#include "Cli.h"
#include "CliFlags.h"
#include "Crate.h"
#include "Files.h"
#include "OptionDecoding.h"
#include "Settings.h"
#include "TextUtil.h"
#include "Trust.h"

namespace ks {

bool& cliVerbose() {
  static bool verbose = false;
  return verbose;
}

CompileOptions cliCompileOptions() {
  CompileOptions options;
  // The user ran the command on purpose: the workspace's values apply, with a note on
  // stderr for those that need trust (printWorkspaceTrustNotes).
  options.workspaceTrusted = true;
  return options;
}

std::filesystem::path settingsFileAbove(const std::filesystem::path& file) {
  for (auto dir = std::filesystem::absolute(file).parent_path(); !dir.empty();
       dir = dir.parent_path()) {
    std::error_code ec;
    if (std::filesystem::exists(dir / "kernelscope.toml", ec)) return dir / "kernelscope.toml";
    if (dir == dir.root_path()) break;
  }
  return {};
}

void applySettingsFile(const std::filesystem::path& file, CompileOptions& options) {
  const std::filesystem::path settingsFile = settingsFileAbove(file);
  if (settingsFile.empty()) return;
  static std::mutex mutex;  // the engine resolves options on the threads that compile
  static std::set<std::filesystem::path> reported;
  std::vector<std::string> problems;
  const FileText read = readRegularFile(settingsFile);
  if (!read.ok()) problems.push_back("not read: " + read.error);
  server::SettingValues values = server::parseSettingsFile(read.text, problems);
  // What the file may not choose for itself (workspaceTrusted) stays out; the CLI trusts the
  // workspace (the user ran the command on purpose), so the rest applies.
  server::withholdUntrustedSettings(values, options.workspaceTrusted);
  {
    std::lock_guard lock(mutex);
    if (reported.insert(settingsFile).second)
      for (const auto& p : problems)
        std::cerr << settingsFile.string() << ": warning: " << p << "\n";
  }
  const CompileOptions fromFile = server::settingsFrom({&values}).compile;
  if (!options.arch) options.arch = fromFile.arch;
  if (!options.optLevel) options.optLevel = fromFile.optLevel;
  if (!options.profile) options.profile = fromFile.profile;
  if (!options.stages) options.stages = fromFile.stages;
  if (options.extraRustcFlags.empty()) options.extraRustcFlags = fromFile.extraRustcFlags;
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

std::string_view severityName(Severity s) {
  switch (s) {
    case Severity::Error:
      return "error";
    case Severity::Warning:
      return "warning";
    case Severity::Note:
      return "note";
    case Severity::Help:
      return "help";
  }
  return "error";
}

void printDiagnostic(std::ostream& out, const Diagnostic& d) {
  out << (d.range ? d.range->file + ":" + std::to_string(d.range->startLine) + ":" +
                        std::to_string(std::max(d.range->startColumn, 1u)) + ": "
                  : (d.source.empty() ? std::string("kernelscope") : d.source) + ": ")
      << severityName(d.severity) << (d.code.empty() ? "" : "[" + d.code + "]") << ": " << d.message
      << "\n";
  // Labels, notes and help at other spans, as the LSP gives them (related information).
  for (const RelatedNote& n : d.related)
    out << n.range.file << ":" << n.range.startLine << ":" << std::max(n.range.startColumn, 1u)
        << ": note: " << n.message << "\n";
}

void printWorkspaceTrustNotes(const std::vector<Diagnostic>& diagnostics) {
  for (const auto& d : diagnostics)
    if (d.code == kWorkspaceTrustCode) printDiagnostic(std::cerr, d);
}

std::optional<std::string> readCompileOption(std::string_view arg, ArgReader& args,
                                             CompileOptions& options) {
  if (arg.size() > 1 && arg.starts_with("-") && !commandTakesFlag(args.command(), arg))
    return "unknown option '" + std::string(arg) + "' (see kernelscope --help)";
  const OptionSpec* option = optionByCliFlag(arg);
  if (option && (arg == "--arch" || arg == "--opt" || arg == "--profile")) {
    auto text = args.value();
    if (!text) return std::string(arg) + " needs " + std::string(option->expected);
    const nlohmann::json value = cliOptionValue(*option, *text);
    if (auto problem = optionProblem(*option, arg, value)) return *problem;  // the table's
    if (arg == "--arch") {
      options.arch = *text;
    } else if (arg == "--opt") {
      options.optLevel = value.get<int>();
    } else {
      options.profile = profileFromName(*text);
    }
  } else if (arg == "--extern") {
    auto v = args.value();
    ExternCrate crate;
    if (auto problem = parseExternCrate(v ? *v : std::string(), crate)) return *problem;
    options.externCrates.push_back(std::move(crate));
  } else if (arg == "--verbose") {
    cliVerbose() = true;
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
  const OptionSpec& option = *optionByCliFlag("--stages");
  const nlohmann::json names = cliOptionValue(option, list);
  if (names.empty()) return "--stages needs " + std::string(option.expected);
  if (auto problem = optionProblem(option, "--stages", names)) return *problem;
  for (const auto& n : names) stages.push_back(*stageFromTypedName(n.get<std::string>()));
  return std::nullopt;
}

/// The nearest Cargo.toml at or above `dir`.
namespace {

std::optional<std::filesystem::path> manifestAbove(std::filesystem::path dir) {
  std::error_code ec;
  for (dir = std::filesystem::absolute(dir); !dir.empty(); dir = dir.parent_path()) {
    if (std::filesystem::is_regular_file(dir / "Cargo.toml", ec)) return dir / "Cargo.toml";
    if (dir == dir.root_path()) break;
  }
  return std::nullopt;
}

}  // namespace

std::optional<CratePackage> cargoCrate(const Toolchain& tc, const CargoSelection& a,
                                       std::string& problem) {
  std::optional<std::filesystem::path> manifest;
  if (!a.manifestPath.empty()) {
    manifest = std::filesystem::absolute(a.manifestPath);
  } else if (!a.target.empty() && std::filesystem::path(a.target).filename() == "Cargo.toml") {
    manifest = std::filesystem::absolute(a.target);
  } else {
    std::error_code ec;
    std::filesystem::path from =
        a.target.empty() ? std::filesystem::current_path() : std::filesystem::path(a.target);
    if (!a.target.empty() && !std::filesystem::is_directory(from, ec))
      from = std::filesystem::absolute(from).parent_path();
    manifest = manifestAbove(from);
  }
  if (!manifest) {
    problem = "no Cargo.toml at or above " + (a.target.empty() ? std::string(".") : a.target) +
              " (a crate is needed here; kernelscope explain takes a single file)";
    return std::nullopt;
  }
  if (!a.package.empty()) {
    std::vector<WorkspacePackage> packages = workspacePackages(tc, *manifest, problem);
    if (packages.empty()) return std::nullopt;
    std::string names;
    for (const auto& p : packages) {
      if (p.name == a.package) return loadPackage(tc, p.manifest, &problem);
      names += (names.empty() ? "" : ", ") + p.name;
    }
    problem = "no package '" + a.package + "' in the workspace of " + manifest->string() +
              " (its packages: " + names + ")";
    return std::nullopt;
  }
  return loadPackage(tc, *manifest, &problem);
}

std::string shownPath(const std::string& file) {
  std::error_code ec;
  std::string cwd = normalizePath(std::filesystem::current_path(ec).string()) + "/";
  return !ec && file.starts_with(cwd) ? file.substr(cwd.size()) : file;
}

}  // namespace ks
