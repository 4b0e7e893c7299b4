// `kernelscope diff`: what the generated code of a kernel became between two files, or
// between two settings of one file, stage by stage, with a one-line summary.
//
// The comparison is the pipeline's (Diff.h): register and label numbering, debug
// locations and SASS addresses are normalized away, so only changes of the code show.
#include <fstream>
#include <iostream>

#include "Cli.h"
#include "CliArgs.h"
#include "Compile.h"
#include "Diff.h"
#include "Engine.h"
#include "OptionDecoding.h"
#include "TextUtil.h"

namespace ks {

namespace {

struct DiffArgs {
  std::vector<std::string> files;
  CompileOptions before = cliCompileOptions(), after;
  std::optional<std::string> vsArch;
  std::optional<int> vsOpt;
  DiffOptions diff;
  bool summaryOnly = false;
};

std::optional<std::string> parseArgs(int argc, char** argv, DiffArgs& a) {
  ArgReader args("diff", argc, argv);
  while (auto next = args.next()) {
    std::string_view arg = *next;
    if (auto bad = readCompileOption(arg, args, a.before)) {
      if (!bad->empty()) return *bad;
    } else if (arg == "--vs-arch" || arg == "--vs-opt") {  // checked as --arch, --opt are
      const OptionSpec& option = *optionByCliFlag(arg == "--vs-arch" ? "--arch" : "--opt");
      auto v = args.value();
      if (!v) return std::string(arg) + " needs " + std::string(option.expected);
      const nlohmann::json value = cliOptionValue(option, *v);
      if (auto bad = optionProblem(option, arg, value)) return *bad;
      if (arg == "--vs-arch")
        a.vsArch = *v;
      else
        a.vsOpt = value.get<int>();
    } else if (arg == "--stages") {
      auto v = args.value();
      if (!v) return "--stages needs a list such as ptx,sass";
      if (auto bad = parseStageList(*v, a.before.stages.emplace())) return *bad;
    } else if (arg == "--context") {
      auto v = args.value();
      auto n = v ? text::parseUint(*v) : std::nullopt;
      if (!n) return "--context needs a number of lines";
      a.diff.context = static_cast<int>(*n);
    } else if (arg == "--summary") {
      a.summaryOnly = true;
    } else if (arg == "--raw") {
      a.diff.normalize = false;
    } else if (arg.starts_with("-")) {
      return "unknown option '" + std::string(arg) + "' (see kernelscope --help)";
    } else {
      a.files.emplace_back(arg);
    }
  }
  a.before.remarks = false;  // remarks are not compared
  a.after = a.before;
  if (a.vsArch) a.after.arch = *a.vsArch;
  if (a.vsOpt) a.after.optLevel = *a.vsOpt;
  const bool vsSettings = a.vsArch || a.vsOpt;
  if (a.files.size() == 1 && !vsSettings)
    return "one file needs settings to compare: --vs-arch sm_XX or --vs-opt N (or give two files)";
  if (a.files.size() == 2 && vsSettings)
    return "--vs-arch and --vs-opt compare one file under two settings";
  if (a.files.empty() || a.files.size() > 2)
    return "kernelscope diff BEFORE.rs AFTER.rs, or kernelscope diff FILE --vs-arch sm_XX | "
           "--vs-opt N";
  return std::nullopt;
}

std::string label(const std::string& file, const ResolvedOptions& o, bool withSettings) {
  return withSettings ? file + " (" + o.arch + ", opt-level " + std::to_string(o.optLevel) + ")"
                      : file;
}

}  // namespace

int diffMain(int argc, char** argv) {
  DiffArgs args;
  if (auto err = parseArgs(argc, argv, args)) {
    std::cerr << "kernelscope diff: " << *err << "\n";
    return kExitUsage;
  }
  for (const auto& f : args.files)
    if (auto bad = inputFileProblem(f)) {
      std::cerr << "kernelscope diff: cannot read " << f << ": " << *bad << "\n";
      return kExitUsage;
    }
  Engine& engine = cliEngine();
  const std::string& beforeFile = args.files.front();
  const std::string& afterFile = args.files.back();
  const bool vsSettings = args.files.size() == 1;
  // What the command line left unset comes from each file's [package.metadata.kernelscope].
  const std::filesystem::path beforePath = std::filesystem::absolute(beforeFile);
  const std::filesystem::path afterPath = std::filesystem::absolute(afterFile);
  const ResolvedOptions beforeOptions = engine.optionsFor(beforePath, args.before);
  const ResolvedOptions afterOptions = engine.optionsFor(afterPath, args.after);
  const auto beforeResult = engine.compile({beforePath, std::nullopt, {}}, args.before);
  const auto afterResult = engine.compile({afterPath, std::nullopt, {}}, args.after);
  const CompileResult &before = *beforeResult, &after = *afterResult;
  for (const auto* r : {&before, &after}) {
    printWorkspaceTrustNotes(r->diagnostics);
    if (r->succeeded) continue;
    for (const auto& d : r->diagnostics)
      if (d.severity == Severity::Error) printDiagnostic(std::cerr, d);
    std::cerr << "kernelscope diff: " << (r == &before ? beforeFile : afterFile) << ": "
              << failureText(*r) << "\n";
    return kExitFailed;
  }

  CompileDiff d = diffCompiles(before, after, label(beforeFile, beforeOptions, vsSettings),
                               label(afterFile, afterOptions, vsSettings), args.diff);
  if (!args.summaryOnly) {
    for (const StageDiff& s : d.stages) {
      if (!s.changed()) continue;
      std::cout << "== " << stageTitle(s.stage) << " (+" << s.added << " −" << s.removed
                << " instructions)\n"
                << s.unified << "\n";
    }
  }
  std::cout << d.summary << "\n";
  for (Stage s : beforeOptions.stages) {
    const StageOutcome* x = before.stage(s);
    const StageOutcome* y = after.stage(s);
    if (x && y && x->available && y->available) continue;
    const StageOutcome* missing = x && !x->available ? x : y;
    std::cerr << "kernelscope diff: stage unavailable: " << stageName(s) << ": "
              << (missing ? missing->unavailableReason : "not run") << "\n";
  }
  return d.changed() ? kExitDifferent : kExitOk;
}

}  // namespace ks
