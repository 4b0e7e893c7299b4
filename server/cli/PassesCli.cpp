// `kernelscope passes FILE --kernel NAME`: the LLVM and MIR passes that changed a kernel,
// each with its diff and the instruction (statement) count before and after.
//
// The pipeline computes it (Passes.h); this file parses arguments and prints text or JSON.
#include <filesystem>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "Cli.h"
#include "CliArgs.h"
#include "Compile.h"
#include "Engine.h"
#include "PassSummary.h"
#include "Passes.h"
#include "TextUtil.h"

namespace ks {

namespace {

struct PassesArgs {
  std::string file, kernel;
  CompileOptions compile = cliCompileOptions();
  PassesOptions passes;
  bool json = false;
};

std::optional<std::string> parseArgs(int argc, char** argv, PassesArgs& a) {
  bool onlyLlvm = false, onlyMir = false;
  ArgReader args("passes", argc, argv);
  while (auto next = args.next()) {
    std::string_view arg = *next;
    if (auto bad = readCompileOption(arg, args, a.compile)) {
      if (!bad->empty()) return *bad;
    } else if (arg == "--kernel") {
      auto v = args.value();
      if (!v) return "--kernel needs a kernel name";
      a.kernel = *v;
    } else if (arg == "--context") {
      auto v = args.value();
      auto n = v ? text::parseUint(*v) : std::nullopt;
      if (!n) return "--context needs a number of lines";
      a.passes.context = static_cast<int>(*n);
    } else if (arg == "--llvm") {
      onlyLlvm = true;
    } else if (arg == "--mir") {
      onlyMir = true;
    } else if (arg == "--json") {
      a.json = true;
    } else if (arg.starts_with("-")) {
      return "unknown option '" + std::string(arg) + "' (see kernelscope --help)";
    } else if (a.file.empty()) {
      a.file = arg;
    } else {
      return "one file at a time";
    }
  }
  if (a.file.empty()) return "kernelscope passes FILE --kernel NAME [--llvm|--mir] [--json]";
  if (a.kernel.empty()) return "--kernel NAME is needed: which kernel's passes to show";
  if (onlyLlvm || onlyMir) {  // neither or both: both
    a.passes.llvm = onlyLlvm;
    a.passes.mir = onlyMir;
  }
  a.compile.remarks = false;
  return std::nullopt;
}

nlohmann::json toJson(const PassesResult& r) {
  nlohmann::json stages = nlohmann::json::array();
  for (const StagePasses& sp : r.stages) {
    nlohmann::json passes = nlohmann::json::array();
    for (const PassChange& c : sp.changes) passes.push_back(passInfoOf(c));
    stages.push_back({{"stage", stageName(sp.stage)},
                      {"passesRun", sp.passesRun},
                      {"initialCount", sp.initialCount},
                      {"finalCount", sp.finalCount},
                      {"passes", std::move(passes)}});
  }
  return {{"kernel", r.demangled}, {"symbol", r.kernel}, {"stages", std::move(stages)}};
}

}  // namespace

int passesMain(int argc, char** argv) {
  PassesArgs args;
  if (auto err = parseArgs(argc, argv, args)) {
    std::cerr << "kernelscope passes: " << *err << "\n";
    return kExitUsage;
  }
  if (auto bad = inputFileProblem(args.file)) {
    std::cerr << "kernelscope passes: cannot read " << args.file << ": " << *bad << "\n";
    return kExitUsage;
  }
  Engine& engine = cliEngine();
  const std::filesystem::path path = std::filesystem::absolute(args.file);
  // What the command line left unset comes from kernelscope.toml, else
  // [package.metadata.kernelscope].
  const ResolvedOptions resolved = engine.optionsFor(path, args.compile);
  PassesResult r = engine.passes({path, std::nullopt, {}}, args.compile, args.kernel, args.passes);
  printWorkspaceTrustNotes(r.diagnostics);
  if (!r.error.empty()) {
    for (const auto& d : r.diagnostics)
      if (d.severity == Severity::Error) printDiagnostic(std::cerr, d);
    std::cerr << "kernelscope passes: " << r.error << "\n";
    // A kernel name the crate does not have is a bad argument, like an unknown option.
    return r.error.starts_with("unknown kernel") ? kExitUsage : kExitFailed;
  }
  if (args.json)
    std::cout << toJson(r).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  else
    std::cout << renderPasses(r, passesTitle(r, args.file, resolved.arch, resolved.optLevel));
  return kExitOk;
}

}  // namespace ks
