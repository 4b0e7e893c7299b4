// `kernelscope check`: every kernel of a crate against its budgets and a committed baseline,
// for CI. Text (compiler style), --json, GitHub Actions annotations and SARIF 2.1.0 for code
// scanning; --bless writes the baseline. The comparisons are the pipeline's (Budgets.h);
// this file reads the arguments, the baseline file, and writes the reports.
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "BaselineFile.h"
#include "Budgets.h"
#include "Cli.h"
#include "CliArgs.h"
#include "Crate.h"
#include "Engine.h"
#include "Files.h"
#include "Options.h"
#include "Settings.h"
#include "TextUtil.h"

namespace ks {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct CheckArgs {
  std::string target;  // a crate directory, a Cargo.toml or a kernel file; empty: "."
  std::string package, manifestPath;
  std::string baseline;
  bool bless = false;
  std::string format = "text";  // text, json, github
  std::string sarif;
  CompileOptions options = cliCompileOptions();
};

std::optional<std::string> parseArgs(int argc, char** argv, CheckArgs& a) {
  ArgReader args("check", argc, argv);
  while (auto arg = args.next()) {
    auto needs = [&](std::string& into, const char* what) -> std::optional<std::string> {
      auto v = args.value();
      if (!v) return std::string(*arg) + " needs " + what;
      into = *v;
      return std::nullopt;
    };
    std::optional<std::string> problem;
    if (*arg == "-p" || *arg == "--package")
      problem = needs(a.package, "a package name");
    else if (*arg == "--manifest-path")
      problem = needs(a.manifestPath, "a Cargo.toml");
    else if (*arg == "--baseline")
      problem = needs(a.baseline, "a file");
    else if (*arg == "--sarif")
      problem = needs(a.sarif, "a file to write");
    else if (*arg == "--format") {
      problem = needs(a.format, "text, json or github");
      if (!problem && a.format != "text" && a.format != "json" && a.format != "github")
        problem = "--format is text, json or github, not '" + a.format + "'";
    } else if (*arg == "--json")
      a.format = "json";
    else if (*arg == "--bless")
      a.bless = true;
    else if (*arg == "--block-size") {
      std::string v;
      problem = needs(v, "a number of threads");
      std::optional<uint32_t> n = problem ? std::nullopt : text::parseUint(v);
      if (!problem && (!n || *n < 1 || *n > 1024))
        problem = "--block-size is a number of threads from 1 to 1024";
      if (n) a.options.occupancyBlockSize = *n;
    } else if (auto r = readCompileOption(*arg, args, a.options)) {
      if (!r->empty()) return r;
    } else if (!arg->starts_with("-") && a.target.empty())
      a.target = std::string(*arg);
    else
      return "unknown option '" + std::string(*arg) + "'";
    if (problem) return problem;
  }
  return std::nullopt;
}

// --- Reports ----------------------------------------------------------------------------

std::string ruleOf(const BudgetFinding& f) {
  return (f.kind == BudgetFinding::Kind::OverBudget ? "budget/" : "regression/") + f.figure;
}

/// A GitHub Actions workflow command's property value: `%`, CR, LF, `:` and `,` escaped.
std::string escapeProperty(std::string_view s, bool message) {
  std::string out;
  for (char c : s) {
    if (c == '%')
      out += "%25";
    else if (c == '\r')
      out += "%0D";
    else if (c == '\n')
      out += "%0A";
    else if (!message && c == ':')
      out += "%3A";
    else if (!message && c == ',')
      out += "%2C";
    else
      out += c;
  }
  return out;
}

/// A finding's 1-based line as every format shows it: 1 where the line is not known (SARIF's
/// lines and GitHub's annotations start at 1; a compiler-style `file:0:1` is no place).
uint32_t shownLine(const Frame& at) { return std::max<uint32_t>(1, at.line); }

/// A SARIF physicalLocation: the file (a relative one under %SRCROOT%) and the line.
json physicalLocation(const Frame& at) {
  json location = {{"artifactLocation", {{"uri", shownPath(at.file)}}},
                   {"region", {{"startLine", shownLine(at)}}}};
  if (!fs::path(shownPath(at.file)).is_absolute())
    location["artifactLocation"]["uriBaseId"] = "%SRCROOT%";
  return location;
}

/// SARIF 2.1.0: one run, a rule per kind of finding, a result per finding on its line.
json sarifLog(const std::vector<BudgetFinding>& findings) {
  json rules = json::array(), results = json::array();
  std::map<std::string, size_t> ruleIndex;
  for (const BudgetFinding& f : findings) {
    const std::string rule = ruleOf(f);
    if (!ruleIndex.count(rule)) {
      ruleIndex[rule] = rules.size();
      const bool budget = f.kind == BudgetFinding::Kind::OverBudget;
      rules.push_back(
          {{"id", rule},
           {"name", budget ? "KernelOverBudget" : "KernelRegression"},
           {"shortDescription",
            {{"text", budget ? "A kernel's " + f.figure + " is beyond its budget"
                             : "A kernel's " + f.figure + " got worse than the baseline"}}},
           {"defaultConfiguration", {{"level", "error"}}}});
    }
    json location = {{"physicalLocation", physicalLocation(f.location)}};
    // The other responsible lines. The finding's own is not always the first of them: it
    // passes over the kernel's `fn` line, which then is one of these.
    json related = json::array();
    for (const Frame& line : f.lines)
      if (line.file != f.location.file || line.line != f.location.line)
        related.push_back({{"id", static_cast<int>(related.size()) + 1},
                           {"physicalLocation", physicalLocation(line)},
                           {"message", {{"text", "local memory here"}}}});
    json result = {{"ruleId", rule},
                   {"ruleIndex", ruleIndex[rule]},
                   {"level", "error"},
                   {"message", {{"text", f.message}}},
                   {"locations", json::array({location})}};
    if (!related.empty()) result["relatedLocations"] = related;
    results.push_back(result);
  }
  return {
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
      {"version", "2.1.0"},
      {"runs",
       json::array(
           {{{"tool",
              {{"driver",
                {{"name", "kernelscope"}, {"version", KERNELSCOPE_VERSION}, {"rules", rules}}}}},
             {"results", results}}})}};
}

/// The findings on stdout, as `a.format` asks: compiler-style text, GitHub annotations or
/// one JSON report; the text ends with a summary line.
void printFindings(const CheckArgs& a, const CratePackage& crate, const CompileResult& result,
                   const std::map<std::string, KernelFigures>& figures,
                   const std::vector<BudgetFinding>& failing,
                   const std::optional<fs::path>& baseline) {
  const bool haveBaseline = baseline.has_value();
  if (a.format == "json") {
    json kernels = json::object();
    for (const auto& [name, f] : figures) kernels[name] = figuresJson(f);
    json list = json::array();
    for (const auto& f : failing)
      list.push_back({{"kernel", f.kernel},
                      {"rule", ruleOf(f)},
                      {"figure", f.figure},
                      {"limit", f.limit},
                      {"actual", f.actual},
                      {"file", f.location.file},
                      {"line", f.location.line},
                      {"message", f.message}});
    std::cout << json({{"crate", crate.name},
                       {"arch", result.arch},
                       {"baseline", haveBaseline ? json(baseline->string()) : json(nullptr)},
                       {"kernels", kernels},
                       {"findings", list},
                       {"passed", failing.empty()}})
                     .dump(2)
              << "\n";
  } else {
    for (const auto& f : failing) {
      if (a.format == "github")
        std::cout << "::error file=" << escapeProperty(shownPath(f.location.file), false)
                  << ",line=" << shownLine(f.location)
                  << ",title=" << escapeProperty("kernelscope " + ruleOf(f), false)
                  << "::" << escapeProperty(f.message, true) << "\n";
      else
        std::cout << shownPath(f.location.file) << ":" << shownLine(f.location) << ":1: error["
                  << ruleOf(f) << "]: " << f.message << "\n";
    }
    std::cout << "kernelscope check: " << crate.name << ", " << figures.size() << " kernels ("
              << result.arch << "): "
              << (failing.empty() ? std::string("ok") : std::to_string(failing.size()) + " failed")
              << (haveBaseline ? ", against " + shownPath(baseline->string())
                  : a.bless    ? ""
                               : ", no baseline (--bless writes one)")
              << "\n";
  }
}

/// The budgets of `crate`: its own [package.metadata.kernelscope.budget] over those of the
/// workspace's kernelscope.toml, which budgets every crate under it. Problems are warnings.
std::map<std::string, KernelBudget> budgetsOf(const CratePackage& crate) {
  for (const std::string& p : crate.settings.problems)
    std::cerr << crate.manifest.string() << ": warning: [package.metadata.kernelscope] " << p
              << "\n";
  std::map<std::string, KernelBudget> budgets = crate.settings.budgets;
  if (const fs::path settings = settingsFileAbove(crate.manifest); !settings.empty()) {
    std::vector<std::string> problems;
    const FileText read = readRegularFile(settings);
    addBudgetsBelow(budgets, server::settingsFileBudgets(read.text, problems));
    for (const std::string& p : problems)
      std::cerr << settings.string() << ": warning: " << p << "\n";
  }
  return budgets;
}

/// Reads the baseline `file` into `out` when it exists: true when it did. A file the user
/// named (`named`) must exist; `why` says what is wrong with it.
bool loadBaseline(const fs::path& file, bool named, const std::string& arch,
                  std::map<std::string, KernelFigures>& out, std::string& why) {
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    if (named) why = "no such file";
    return false;
  }
  why = readBaseline(file, arch, out);
  return why.empty();
}

}  // namespace

int checkMain(int argc, char** argv) {
  CheckArgs a;
  if (auto err = parseArgs(argc, argv, a)) {
    std::cerr << "kernelscope check: " << *err << "\n";
    return kExitUsage;
  }
  Engine& engine = cliEngine();
  const Toolchain tc = engine.toolchain();
  std::string problem;
  auto crate = cargoCrate(tc, {a.target, a.package, a.manifestPath}, problem);
  if (!crate) {
    std::cerr << "kernelscope check: " << problem << "\n";
    return kExitUsage;
  }
  const std::map<std::string, KernelBudget> budgets = budgetsOf(*crate);
  ResolvedOptions options = engine.optionsFor(crate->libRoot, a.options);
  options.stages = {Stage::Ptx, Stage::Sass};
  const auto result = engine.compile({crate->libRoot, std::nullopt, {}}, options.asChosen());
  for (const auto& d : result->diagnostics) printDiagnostic(std::cerr, d);
  if (!result->succeeded) {
    std::cerr << "kernelscope check: " << crate->name << ": " << failureText(*result) << "\n";
    return kExitFailed;
  }
  const uint32_t blockSize = options.occupancyBlockSize;
  const auto figures = kernelFigures(*result, blockSize);
  if (figures.empty()) {
    std::cerr << "kernelscope check: " << crate->name
              << ": no kernel with resources (is ptxas missing? see kernelscope doctor)\n";
    return kExitFailed;
  }
  const fs::path baselineFile =
      a.baseline.empty() ? crate->root / kBaselineName : fs::absolute(a.baseline);
  std::map<std::string, KernelFigures> baseline;
  bool haveBaseline = false;
  if (!a.bless) {
    std::string why;
    haveBaseline = loadBaseline(baselineFile, !a.baseline.empty(), result->arch, baseline, why);
    if (!why.empty()) {
      std::cerr << "kernelscope check: " << baselineFile.string() << ": " << why << "\n";
      return kExitUsage;
    }
  }
  const auto findings =
      checkKernels(*result, budgets, haveBaseline ? &baseline : nullptr, blockSize);
  // --bless takes today's figures as the baseline; budgets are limits the crate set, and
  // still fail.
  std::vector<BudgetFinding> failing;
  for (const auto& f : findings)
    if (!a.bless || f.kind == BudgetFinding::Kind::OverBudget) failing.push_back(f);
  if (a.bless) {
    if (std::string why = writeBaseline(baselineFile, result->arch, options.optLevel, figures);
        !why.empty()) {
      std::cerr << "kernelscope check: " << why << "\n";
      return kExitFailed;
    }
    std::cerr << "kernelscope check: wrote " << baselineFile.string() << " (" << figures.size()
              << " kernels)\n";
  }
  if (!a.sarif.empty()) {
    std::ofstream out(a.sarif, std::ios::binary);
    out << sarifLog(failing).dump(2) << "\n";
    if (!out.flush()) {
      std::cerr << "kernelscope check: cannot write " << a.sarif << "\n";
      return kExitFailed;
    }
  }
  printFindings(a, *crate, *result, figures, failing,
                haveBaseline ? std::optional<fs::path>(baselineFile) : std::nullopt);
  return failing.empty() ? kExitOk : kExitFailed;
}

}  // namespace ks
