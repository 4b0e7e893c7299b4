// `kernelscope explain`: each source line of a kernel with what it became in every stage,
// then the resources of each kernel. Text for people, `--json` for scripts.
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "ArtifactView.h"
#include "BaselineFile.h"
#include "Budgets.h"
#include "Cli.h"
#include "CliArgs.h"
#include "Compile.h"
#include "CostSummary.h"
#include "Diff.h"
#include "Engine.h"
#include "Files.h"
#include "GpuService.h"
#include "InstructionDocs.h"
#include "KernelSummary.h"
#include "Remarks.h"
#include "Report.h"
#include "ReportHtml.h"
#include "TextUtil.h"
#include "ValueFlow.h"

namespace ks {

namespace {

struct ExplainArgs {
  std::string file;
  std::optional<uint32_t> line;
  CompileOptions options = cliCompileOptions();
  bool json = false;
  bool annotate = false;  // explain each instruction after it (InstructionDocs.h)
  bool costs = false;     // the full table of costs per line (Costs.h)
  bool stream = false;    // each group of stages as soon as it exists (streamStages)
  RemarkFilter remarks = *RemarkFilter::named("default");
  std::string html;            // `kernelscope report`: the page to write (ReportHtml.h)
  std::string baseline;        // report: a `check` baseline to show the kernels against
  std::string profileResult;   // report: a recorded gpu-exec profile result, for the heat
  std::string kernel;          // report: the profiled kernel
  gpu::LaunchSettings launch;  // report: the profile's --spec items
};

/// Parses the arguments of `command` (explain or report); returns an error message on bad
/// input.
std::optional<std::string> parseArgs(std::string_view command, int argc, char** argv,
                                     ExplainArgs& a) {
  ArgReader args(command, argc, argv);
  if (command == "report") a.html = "kernelscope-report.html";
  while (auto next = args.next()) {
    std::string_view arg = *next;
    if (auto bad = readCompileOption(arg, args, a.options)) {
      if (!bad->empty()) return *bad;
    } else if (command == "report" && (arg == "-o" || arg == "--output")) {
      auto v = args.value();
      if (!v) return std::string(arg) + " needs the file to write";
      a.html = *v;
    } else if (command == "report" &&
               (arg == "--baseline" || arg == "--profile-result" || arg == "--kernel")) {
      auto v = args.value();
      if (!v) return std::string(arg) + (arg == "--kernel" ? " needs a name" : " needs a file");
      (arg == "--baseline" ? a.baseline : arg == "--kernel" ? a.kernel : a.profileResult) = *v;
    } else if (command == "report" && arg == "--spec") {
      auto v = args.value();
      if (!v) return "--spec needs items, e.g. --spec 'n = 4096; block = 128'";
      a.launch.specItems.push_back(*v);
    } else if (command == "explain" && arg == "--json") {
      a.json = true;
    } else if (command == "explain" && arg == "--annotate") {
      a.annotate = true;
    } else if (command == "explain" && arg == "--costs") {
      a.costs = true;
    } else if (command == "explain" && arg == "--stream") {
      a.stream = true;
    } else if (arg == "--remarks") {
      auto v = args.value();
      auto f = v ? RemarkFilter::named(*v) : std::nullopt;
      if (!f) return "--remarks needs all, missed, passed, analysis, none or default";
      a.remarks = *f;
      a.options.remarks = f->showsAny();  // none: rustc runs without -C remark=all
    } else if (arg == "--block-size") {
      auto v = args.value();
      auto n = v ? text::parseUint(*v) : std::nullopt;
      if (!n || *n == 0 || *n > 1024) return "--block-size needs a number of threads, 1 to 1024";
      a.options.occupancyBlockSize = *n;
    } else if (command == "explain" && arg == "--line") {
      auto v = args.value();
      auto n = v ? text::parseUint(*v) : std::nullopt;
      if (!n || *n == 0) return "--line needs a line number (1-based)";
      a.line = *n;
    } else if (arg == "--stages") {
      auto v = args.value();
      if (!v) return "--stages needs a list such as mir,llvm-ir,ptx,sass";
      if (auto bad = parseStageList(*v, a.options.stages.emplace())) return *bad;
    } else if (arg.starts_with("-")) {
      return "unknown option '" + std::string(arg) + "' (see kernelscope " + std::string(command) +
             " --help)";
    } else if (a.file.empty()) {
      a.file = std::string(arg);
    } else {
      return "more than one file given ('" + a.file + "' and '" + std::string(arg) + "')";
    }
  }
  if (a.file.empty()) return "no kernel file given: kernelscope " + std::string(command) + " FILE";
  return std::nullopt;
}

std::string frameText(const Frame& f) {
  std::string file = f.file;
  if (auto slash = file.rfind("/src/");
      slash != std::string::npos && file.find("/rustlib/") != std::string::npos)
    file = file.substr(slash + 5);  // core's files by their path inside the library
  std::string s = f.function.empty() ? "" : f.function + " ";
  return s + "(" + file + ":" + std::to_string(f.line) + ")";
}

/// What an instruction shown under a source line is, when it is not simply that line's code:
/// "inlined from line 11 (scale)" for the user's own function inlined into this line (with
/// its file when it is another: "inlined from fastmath/src/lib.rs:7 (fastmath::smoothstep)"),
/// "in smooth, inlined at kernels/src/shade.rs:5" for this line's code inlined into a kernel
/// from another file, "via core::ptr::add (ptr/mut_ptr.rs:1012)" for library code.
std::string markerFor(const LineOrigin& o, const SourceLine& shownFor,
                      const std::string& function) {
  if (o.user.line != shownFor.line || o.user.file != shownFor.file) {
    std::string where = o.user.file == shownFor.file
                            ? "line " + std::to_string(o.user.line)
                            : shownPath(o.user.file) + ":" + std::to_string(o.user.line);
    return "inlined from " + where + (o.user.function.empty() ? "" : " (" + o.user.function + ")");
  }
  std::string marker;
  auto site = std::find_if(o.outerUserFrames.begin(), o.outerUserFrames.end(),
                           [&](const Frame& f) { return f.file != shownFor.file; });
  if (site != o.outerUserFrames.end()) {
    marker = (function.empty() ? "" : "in " + function + ", ") + "inlined at " +
             shownPath(site->file) + ":" + std::to_string(site->line);
  }
  if (o.viaLibrary) marker += (marker.empty() ? "" : "; ") + ("via " + frameText(o.chain.front()));
  return marker;
}

/// The demangled name of the function that artifact line `line` belongs to ("" outside any).
std::string functionOf(const Artifact& a, uint32_t line) {
  const int32_t f = line < a.lines().size() ? a.lines()[line].function : -1;
  return f >= 0 && static_cast<size_t>(f) < a.functions.size() ? a.functions[f].demangled
                                                               : std::string();
}

/// An artifact line as shown in a terminal: tabs folded, MIR's span comment dropped
/// (the location it gives is what the map already shows).
std::string displayText(Stage stage, std::string_view line) {
  if (stage == Stage::Mir) line = line.substr(0, line.find("//"));
  std::string out;
  for (char c : text::trim(line)) {
    if (c == '\t') c = ' ';
    if (c == ' ' && !out.empty() && out.back() == ' ') continue;
    out += c;
  }
  return out;
}

/// The compiler-generated instructions of one stage as runs of the same text in one
/// function (ptxas pads each function with a dozen NOPs): (first line, repeats).
std::vector<std::pair<uint32_t, size_t>> compilerGeneratedRuns(const CompileResult& r, Stage s) {
  std::vector<std::pair<uint32_t, size_t>> runs;
  const Artifact& a = *r.stage(s)->artifact;
  auto shown = [&](uint32_t l) {
    std::string t = displayText(s, a.lineText(l));
    if (t.starts_with("/*") && t.find("*/") != std::string::npos)
      t = std::string(text::trim(t.substr(t.find("*/") + 2)));
    return t;
  };
  for (uint32_t l : r.lineMap->compilerGenerated(s)) {
    if (!runs.empty() && a.lines()[runs.back().first].function == a.lines()[l].function &&
        shown(runs.back().first) == shown(l)) {
      ++runs.back().second;
      continue;
    }
    runs.emplace_back(l, 1);
  }
  return runs;
}

nlohmann::json frameJson(const Frame& f) {
  return {{"file", f.file}, {"line", f.line}, {"column", f.column}, {"function", f.function}};
}

nlohmann::json kernelJson(const KernelInfo& k) {
  nlohmann::json j = {{"name", k.symbol},
                      {"demangled", k.demangled},
                      {"line", k.definition.line},
                      {"instructions", {{"ptx", k.ptxInstructions}, {"sass", k.sassInstructions}}}};
  // The fields of `kernelscope/kernels` (KernelSummary.h), plus the best block size's.
  if (k.resources) j.update(nlohmann::json(resourceUsageOf(*k.resources)));
  if (k.occupancy) {
    j["occupancy"] = occupancySummaryOf(k.occupancy->atBlockSize);
    j["bestOccupancy"] = occupancySummaryOf(k.occupancy->best);
  }
  return j;
}

/// The remarks that the filter lets through, by the user line they are on: made once, so
/// that each line's lookup does not go through every remark of the file.
class RemarksByLine {
 public:
  RemarksByLine(const CompileResult& r, const RemarkFilter& filter) {
    for (const auto& rem : r.remarks)
      if (rem.userLocation && filter.accepts(rem))
        byLine_[{rem.userLocation->file, rem.userLocation->line}].push_back(&rem);
  }
  const std::vector<const Remark*>& on(const std::string& file, uint32_t line) const {
    static const std::vector<const Remark*> kNone;
    auto it = byLine_.find({file, line});
    return it == byLine_.end() ? kNone : it->second;
  }

 private:
  std::map<std::pair<std::string, uint32_t>, std::vector<const Remark*>> byLine_;
};

/// "missed loop-vectorize: loop not vectorized (3 times)"
std::string remarkText(const Remark& rem) {
  std::string s =
      std::string(remarkKindName(rem.kind)) + " " + rem.pass + ": " + remarkMessage(rem);
  if (rem.count > 1) s += " (" + std::to_string(rem.count) + " times)";
  if (rem.viaLibrary && rem.location) s += "   // in " + frameText(*rem.location);
  return s;
}

nlohmann::json remarkJson(const Remark& rem) {
  nlohmann::json j = {{"kind", remarkKindName(rem.kind)},
                      {"pass", rem.pass},
                      {"name", rem.name},
                      {"function", rem.function},
                      {"message", remarkMessage(rem)},
                      {"count", rem.count},
                      {"viaLibrary", rem.viaLibrary}};
  if (rem.userLocation) j["file"] = rem.userLocation->file, j["line"] = rem.userLocation->line;
  if (rem.location) j["location"] = frameJson(*rem.location);
  return j;
}

/// The code with no source line, after the source lines: copies and constants the backend
/// made, ptxas's padding. Runs of one text are shown once with their count.
void printCompilerGenerated(std::ostream& out, const CompileResult& r,
                            const std::vector<Stage>& stages) {
  std::ostringstream block;
  for (Stage s : stages) {
    const StageOutcome* st = r.stage(s);
    if (!st || !st->available || !r.lineMap) continue;
    for (auto [al, repeats] : compilerGeneratedRuns(r, s)) {
      const ArtifactLine& l = st->artifact->lines()[al];
      block << "      " << std::left << std::setw(8) << stageName(s) << std::right
            << displayText(s, st->artifact->lineText(al));
      if (repeats > 1) block << "   (x" << repeats << ")";
      if (l.function >= 0) block << "   // in " << st->artifact->functions[l.function].demangled;
      block << "\n";
    }
  }
  if (block.str().empty()) return;
  out << "\n    - | compiler-generated (no source line)\n" << block.str();
}

void printKernelTable(std::ostream& out, const CompileResult& r) {
  if (r.kernels.empty()) return;
  out << "\nkernels (" << r.arch << ", opt-level " << r.optLevel << ")\n";
  // The name and "limited by" columns grow to fit (a module path, "registers, warps").
  int nameWidth = 24, limitWidth = 15;
  for (const auto& k : r.kernels) {
    nameWidth = std::max(nameWidth, static_cast<int>(k.demangled.size()) + 2);
    if (k.occupancy)
      limitWidth =
          std::max(limitWidth, static_cast<int>(k.occupancy->atBlockSize.limitText().size()) + 2);
  }
  out << "  " << std::left << std::setw(nameWidth) << "kernel" << std::right << std::setw(6)
      << "regs" << std::setw(12) << "spill st/ld" << std::setw(7) << "stack" << std::setw(7)
      << "smem" << std::setw(7) << "cmem" << std::setw(7) << "lmem" << std::setw(6) << "ptx"
      << std::setw(6) << "sass";
  for (const auto& k : r.kernels)
    if (k.occupancy) {
      out << std::setw(10) << "occ@" + std::to_string(k.occupancy->atBlockSize.blockSize) << "  "
          << std::left << std::setw(limitWidth) << "limited by" << std::right << "best";
      break;
    }
  out << "\n";
  for (const auto& k : r.kernels) {
    out << "  " << std::left << std::setw(nameWidth) << k.demangled << std::right;
    if (k.resources) {
      const auto& x = *k.resources;
      out << std::setw(6) << x.registers << std::setw(12)
          << (std::to_string(x.spillStores) + "/" + std::to_string(x.spillLoads)) << std::setw(7)
          << x.stackFrame << std::setw(7) << x.sharedMemory << std::setw(7) << x.constantMemory
          << std::setw(7) << x.localMemory;
    } else {
      out << std::setw(6) << "-" << std::setw(12) << "-" << std::setw(7) << "-" << std::setw(7)
          << "-" << std::setw(7) << "-" << std::setw(7) << "-";
    }
    out << std::setw(6) << k.ptxInstructions << std::setw(6) << k.sassInstructions;
    if (k.occupancy) {
      const auto& o = *k.occupancy;
      out << std::setw(10) << o.atBlockSize.percent() << "  " << std::left << std::setw(limitWidth)
          << o.atBlockSize.limitText() << std::right << o.best.percent() << " @"
          << o.best.blockSize;
    }
    out << "\n";
  }
}

/// What both renderings of `explain` read: the arguments, the compile and the lines to show.
struct ExplainView {
  const ExplainArgs& args;
  const CompileResult& r;
  const std::string& file;  // normalized, as the line map names it
  const std::vector<std::string_view>& sourceLines;
  const RemarksByLine& remarks;  // the remarks --remarks lets through
  std::vector<uint32_t> lines;   // 1-based: --line, or every line of the file

  /// The SASS and its costs when both are there and SASS is shown, else null.
  const Artifact* costedSass() const {
    const StageOutcome* st = r.stage(Stage::Sass);
    // args.options are resolved (explainOrReport): their stages are those shown.
    const auto& shown = *args.options.stages;
    if (!r.costs || !r.lineMap || !st || !st->available ||
        std::find(shown.begin(), shown.end(), Stage::Sass) == shown.end())
      return nullptr;
    return st->artifact.get();
  }
  /// What source line `ln` costs; nullopt without costs or code.
  std::optional<LineCost> costOfLine(uint32_t ln) const {
    const Artifact* sass = costedSass();
    if (!sass) return std::nullopt;
    LineCost c = lineCost(*sass, *r.lineMap, *r.costs, {file, ln});
    if (!c.any()) return std::nullopt;
    return c;
  }
  /// SASS line `line`'s value flow in words (`--annotate`): its function's graph is built
  /// once and kept for the function's other instructions.
  std::string valueFlowText(const Artifact& sass, uint32_t line) const {
    const int32_t fn = line < sass.lines().size() ? sass.lines()[line].function : -1;
    if (fn < 0 || !r.lineMap) return {};
    auto& graph = flowGraphs[fn];
    if (!graph) graph = std::make_unique<SassFlowGraph>(sass, size_t(fn));
    return describeValueFlow(sass, *r.lineMap, graph->flowOf(line));
  }
  mutable std::map<int32_t, std::unique_ptr<SassFlowGraph>> flowGraphs;
};

nlohmann::json diagnosticsJson(const CompileResult& r) {
  nlohmann::json diags = nlohmann::json::array();
  for (const auto& d : r.diagnostics) {
    nlohmann::json dj = {
        {"severity", severityName(d.severity)}, {"source", d.source}, {"message", d.message}};
    if (!d.code.empty()) dj["code"] = d.code;
    if (d.range)
      dj["range"] = {{"file", d.range->file},
                     {"line", d.range->startLine},
                     {"column", d.range->startColumn},
                     {"endLine", d.range->endLine},
                     {"endColumn", d.range->endColumn}};
    diags.push_back(dj);
  }
  return diags;
}

/// Calls `visit(stage, outcome, artifact line, inlined)` for each instruction that source
/// line `ln` became in each stage shown: those it made directly first, then those inlined.
template <typename Visit>
void forEachInstruction(const ExplainView& v, uint32_t ln, Visit&& visit) {
  for (Stage s : *v.args.options.stages) {
    const StageOutcome* st = v.r.stage(s);
    if (!st || !st->available || !v.r.lineMap) continue;
    const StageLines& sl = v.r.lineMap->linesFor(s, {v.file, ln});
    for (uint32_t al : sl.direct) visit(s, *st, al, false);
    for (uint32_t al : sl.inlined) visit(s, *st, al, true);
  }
}

/// The inline chains of the instructions shown, each once, in the order first met: an
/// instruction names its chain by index (as a copy under each instruction, the chains were
/// 83% of an 80-kernel file's JSON). The stages intern chains each on their own, so one
/// chain of several stages is found by its frames.
class ChainTable {
 public:
  explicit ChainTable(const ExplainView& v) {
    for (uint32_t ln : v.lines)
      forEachInstruction(v, ln, [&](Stage s, const StageOutcome&, uint32_t al, bool) {
        add(v.r.lineMap->origin(s, al).chain);
      });
  }
  /// The index of a chain of an instruction shown.
  int indexOf(const Chain& chain) const { return byId_.at(chain.id()); }
  nlohmann::json json() const {
    nlohmann::json j = nlohmann::json::array();
    for (const Chain& chain : chains_) {
      nlohmann::json frames = nlohmann::json::array();
      for (const Frame& f : chain) frames.push_back(frameJson(f));
      j.push_back(std::move(frames));
    }
    return j;
  }

 private:
  // The canonical chain of some frames is the first met with them, so its id is in byId_
  // whenever another chain with those frames comes.
  void add(const Chain& chain) {
    if (byId_.count(chain.id())) return;
    const Chain canonical = byFrames_.intern(chain);
    auto [it, added] = byId_.try_emplace(canonical.id(), static_cast<int>(chains_.size()));
    if (added) chains_.push_back(canonical);
    const int index = it->second;
    byId_.emplace(chain.id(), index);  // nothing when `chain` is the canonical one
  }

  std::unordered_map<const void*, int> byId_;  // any chain met → its index
  ChainInterner byFrames_;                     // equal frames → one canonical chain
  std::vector<Chain> chains_;
};

/// One source line with what each stage made of it and its remarks.
nlohmann::json lineJson(const ExplainView& v, const ChainTable& chains, uint32_t ln) {
  const CompileResult& r = v.r;
  nlohmann::json lj = {{"line", ln}, {"text", std::string(v.sourceLines[ln - 1])}};
  nlohmann::json per = nlohmann::json::object();
  forEachInstruction(v, ln, [&](Stage s, const StageOutcome& st, uint32_t al, bool inlined) {
    const LineOrigin& o = r.lineMap->origin(s, al);
    nlohmann::json& arr = per[std::string(stageName(s))];
    arr.push_back({{"line", al + 1},
                   {"text", displayText(s, st.artifact->lineText(al))},
                   {"inlined", inlined},
                   {"viaLibrary", o.viaLibrary},
                   {"guessed", st.artifact->lines()[al].source == LocationSource::Guessed},
                   {"chain", chains.indexOf(o.chain)}});
    if (v.args.annotate)
      if (auto doc = describeInstruction(s, st.artifact->lineText(al)))
        arr.back()["explanation"] = renderOneLine(*doc);
    if (s == Stage::Sass && r.costs && al < r.costs->lines.size()) {
      const InstructionCost& c = r.costs->lines[al];
      if (c.hasLive) arr.back()["live"] = {c.gpr, c.pred, c.ugpr};
      if (c.hasControl) arr.back()["control"] = controlCodeNotation(c.control);
      if (c.local != LocalUse::None)
        arr.back()["local"] = c.local == LocalUse::Spill ? "spill" : "array";
      if (v.args.annotate && c.hasControl)
        arr.back()["controlText"] = describeControl(*st.artifact, *r.lineMap, *r.costs, al);
    }
    if (s == Stage::Sass && v.args.annotate)
      if (std::string flow = v.valueFlowText(*st.artifact, al); !flow.empty())
        arr.back()["valueFlow"] = flow;
  });
  lj["stages"] = per;
  if (auto cost = v.costOfLine(ln)) lj["cost"] = lineCostInfoOf(*cost, static_cast<int>(ln));
  nlohmann::json remarks = nlohmann::json::array();
  for (const Remark* rem : v.remarks.on(v.file, ln)) remarks.push_back(remarkJson(*rem));
  if (!remarks.empty()) lj["remarks"] = remarks;
  return lj;
}

/// Code the compiler gave no source line, per stage.
nlohmann::json compilerGeneratedJson(const ExplainView& v) {
  nlohmann::json generated = nlohmann::json::object();
  for (Stage s : *v.args.options.stages) {
    const StageOutcome* st = v.r.stage(s);
    if (!st || !st->available || !v.r.lineMap) continue;
    nlohmann::json arr = nlohmann::json::array();
    for (uint32_t al : v.r.lineMap->compilerGenerated(s)) {
      const ArtifactLine& l = st->artifact->lines()[al];
      arr.push_back(
          {{"line", al + 1},
           {"text", displayText(s, st->artifact->lineText(al))},
           {"function", l.function >= 0 ? st->artifact->functions[l.function].demangled : ""}});
    }
    if (!arr.empty()) generated[std::string(stageName(s))] = arr;
  }
  return generated;
}

/// `explain --json`'s object without its "lines" (a null in their place, so that the keys
/// keep their order): those are written one by one (writeExplainJson).
nlohmann::json explainJsonHead(const ExplainView& v) {
  const CompileResult& r = v.r;
  nlohmann::json j = {{"file", v.file},
                      {"arch", r.arch},
                      {"optLevel", r.optLevel},
                      {"compiled", r.succeeded},
                      {"profile", profileName(r.profile)},
                      {"diagnostics", diagnosticsJson(r)},
                      {"lines", nullptr}};
  nlohmann::json stages = nlohmann::json::object();
  for (Stage s : *v.args.options.stages) {
    const StageOutcome* st = r.stage(s);
    const std::string name(stageName(s));
    const bool coming = std::find(r.pending.begin(), r.pending.end(), name) != r.pending.end();
    stages[name] = st && st->available
                       ? nlohmann::json{{"available", true},
                                        {"instructions", st->artifact->instructionCount()}}
                   : coming ? nlohmann::json{{"available", false}, {"pending", true}}
                            : nlohmann::json{{"available", false},
                                             {"reason", st ? st->unavailableReason : "not run"}};
  }
  j["stages"] = stages;
  // Only in a result published before the compile ended (--stream): what is still coming.
  if (!r.pending.empty()) j["pending"] = r.pending;
  if (!v.args.line) j["compilerGenerated"] = compilerGeneratedJson(v);  // whole-file runs only
  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& k : r.kernels) kernels.push_back(kernelJson(k));
  j["kernels"] = kernels;
  nlohmann::json remarks = nlohmann::json::array();
  for (const auto& rem : r.remarks)
    if (v.args.remarks.accepts(rem)) remarks.push_back(remarkJson(rem));
  j["remarks"] = remarks;
  if (v.costedSass()) {  // the kernels' register pressure and the lines to look at first
    nlohmann::json costs = lineCostsOf(r, v.file, 1);
    costs.erase("lines");  // each line's cost is under the line
    costs.erase("revision");
    costs.erase("arch");
    j["costs"] = costs;
  }
  return j;
}

/// JSON as printed: `indent` -1 for one line; a file name need not be UTF-8, so bytes that
/// are not print as U+FFFD.
std::string jsonText(const nlohmann::json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

/// `value` printed `depth` levels in, as the enclosing value's dump(indent) would print it.
void writeNested(std::ostream& out, const nlohmann::json& value, int indent, int depth) {
  std::string text = jsonText(value, indent);
  if (indent < 0) {
    out << text;
    return;
  }
  // A JSON text has no raw newline inside a string, so each one starts a nested line.
  const std::string pad(static_cast<size_t>(indent * depth), ' ');
  size_t from = 0;
  for (size_t nl; (nl = text.find('\n', from)) != std::string::npos; from = nl + 1)
    out.write(text.data() + from, static_cast<std::streamsize>(nl + 1 - from)) << pad;
  out.write(text.data() + from, static_cast<std::streamsize>(text.size() - from));
}

/// `explain --json`'s object, byte for byte as one dump(indent) of it would be, with the
/// lines made and written one at a time: a whole file's lines carry every instruction of
/// every stage (hundreds of MB for a file of 80 kernels), which as one JSON value in memory
/// took gigabytes.
void writeExplainJson(std::ostream& out, const ExplainView& v, int indent) {
  const ChainTable chains(v);
  nlohmann::json head = explainJsonHead(v);
  head["chains"] = chains.json();
  const bool pretty = indent >= 0;
  const std::string pad1(pretty ? static_cast<size_t>(indent) : 0, ' ');
  const std::string pad2 = pad1 + pad1;
  const char* keySep = pretty ? "\": " : "\":";  // the keys are ours: plain ASCII
  out << '{';
  bool firstKey = true;
  for (const auto& [key, value] : head.items()) {
    out << (firstKey ? "" : ",") << (pretty ? "\n" : "") << pad1 << '"' << key << keySep;
    firstKey = false;
    if (key != "lines") {
      writeNested(out, value, indent, 1);
      continue;
    }
    out << '[';
    bool firstLine = true;
    for (uint32_t ln : v.lines) {
      nlohmann::json lj = lineJson(v, chains, ln);
      if (!v.args.line && lj["stages"].empty() && !lj.contains("remarks"))
        continue;  // whole-file JSON lists lines with code only
      out << (firstLine ? "" : ",") << (pretty ? "\n" : "") << pad2;
      writeNested(out, lj, indent, 2);
      firstLine = false;
    }
    if (!firstLine && pretty) out << '\n' << pad1;
    out << ']';
  }
  if (pretty && !firstKey) out << '\n';
  out << '}';
}

/// One source line with what each stage made of it, as text; false when it made nothing.
bool printLine(std::ostream& block, const ExplainView& v, uint32_t ln) {
  const CompileResult& r = v.r;
  bool any = false;
  for (Stage s : *v.args.options.stages) {
    const StageOutcome* st = r.stage(s);
    if (!st || !st->available || !r.lineMap) continue;
    const StageLines& sl = r.lineMap->linesFor(s, {v.file, ln});
    auto emit = [&](uint32_t al) {
      const LineOrigin& o = r.lineMap->origin(s, al);
      std::string marker = markerFor(o, {v.file, ln}, functionOf(*st->artifact, al));
      block << "      " << std::left << std::setw(8) << stageName(s) << std::right
            << displayText(s, st->artifact->lineText(al));
      if (!marker.empty()) block << "   // " << marker;
      block << "\n";
      if (v.args.annotate)
        if (auto doc = describeInstruction(s, st->artifact->lineText(al)))
          block << "              = " << renderOneLine(*doc) << "\n";
      if (v.args.annotate && s == Stage::Sass && r.costs)
        if (std::string c = describeControl(*st->artifact, *r.lineMap, *r.costs, al); !c.empty())
          block << "              = control " << c << "\n";
      if (v.args.annotate && s == Stage::Sass)
        if (std::string flow = v.valueFlowText(*st->artifact, al); !flow.empty())
          block << "              = values " << flow << "\n";
    };
    for (uint32_t al : sl.direct) emit(al);
    for (uint32_t al : sl.inlined) emit(al);
    any |= !sl.direct.empty() || !sl.inlined.empty();
  }
  if (auto cost = v.costOfLine(ln))
    block << "      " << std::left << std::setw(8) << "cost" << std::right << lineCostText(*cost)
          << "\n";
  for (const Remark* rem : v.remarks.on(v.file, ln)) {
    block << "      " << std::left << std::setw(8) << "remark" << std::right << remarkText(*rem)
          << "\n";
    any = true;
  }
  return any;
}

/// Each kernel's register pressure, local memory and occupancy step; with --costs, the
/// table of every line's cost; then the lines to look at first.
void printCosts(std::ostream& out, const ExplainView& v) {
  if (!v.costedSass()) return;
  const lsp::LineCostsResult costs = lineCostsOf(v.r, v.file, 1);
  auto lineList = [](const std::vector<int>& lines) {
    std::string s;
    for (size_t i = 0; i < lines.size(); ++i) s += (i ? ", " : "") + std::to_string(lines[i]);
    return s;
  };
  out << "\ncosts (static: read off the SASS before it runs)\n";
  for (const auto& k : costs.kernels) {
    out << "  " << k.name << ": " << (k.summary.empty() ? "no resources" : k.summary) << "\n";
    if (!k.registerNote.empty()) out << "    registers: " << k.registerNote << "\n";
    if (!k.spillLines.empty())
      out << "    warning: spills to local memory at line" << (k.spillLines.size() > 1 ? "s " : " ")
          << lineList(k.spillLines) << "\n";
    for (const auto& a : k.localArrays) {
      out << "    local memory: a per-thread array" << (a.name.empty() ? "" : " `" + a.name + "`")
          << " of " << a.bytes << " bytes";
      if (!a.indexedAt.empty())
        out << ", indexed at run time at line" << (a.indexedAt.size() > 1 ? "s " : " ")
            << lineList(a.indexedAt) << " (so it cannot live in registers)";
      else if (a.usedAt)
        out << ", used at line " << *a.usedAt;
      if (!k.arrayLines.empty()) out << "; its LDL/STL at lines " << lineList(k.arrayLines);
      out << "\n";
    }
  }
  if (v.args.costs) {
    out << "\n  " << std::setw(5) << "line" << std::setw(6) << "live" << std::setw(6) << "pred"
        << std::setw(6) << "ugpr" << std::setw(6) << "LDL" << std::setw(6) << "STL" << std::setw(7)
        << "spill" << std::setw(7) << "array" << std::setw(9) << "issue≥"
        << "  memory\n";
    for (const auto& c : costs.lines) {
      auto opt = [](const std::optional<int>& x) { return x ? std::to_string(*x) : "-"; };
      std::string memory;
      for (const auto& m : c.memory) {
        if (!memory.empty()) memory += ", ";
        memory += m.space + " " + std::to_string(m.loads) + "ld/" + std::to_string(m.stores) +
                  "st" + (m.atomics ? "/" + std::to_string(m.atomics) + "atom" : "") + " " +
                  std::to_string(m.widestBits) + "b";
      }
      out << "  " << std::setw(5) << c.line << std::setw(6)
          << (c.live ? std::to_string(c.live->gpr) : "-") << std::setw(6)
          << (c.live ? std::to_string(c.live->predicate) : "-") << std::setw(6)
          << (c.live ? std::to_string(c.live->uniform) : "-") << std::setw(6) << c.ldl
          << std::setw(6) << c.stl << std::setw(7) << c.spill << std::setw(7) << c.array
          << std::setw(8) << opt(c.issueCycles) << "  " << memory << "\n";
      // The predicted access of the line's loads and stores, and divergence (Access.h).
      for (const auto& a : c.access)
        out << "         " << a.what << " ×" << a.count << ": " << a.how << "\n";
      if (c.mayDiverge) out << "         branch may diverge (depends on " << *c.mayDiverge << ")\n";
    }
    out << "  (live: the most registers live across one of the line's SASS instructions, "
           "nvdisasm's count; issue≥: the stall counts ptxas encoded, summed: a lower bound of "
           "the cycles, not a time; under a row, its loads and stores across a warp as "
           "predicted from the LLVM IR)\n";
  }
  if (!costs.lookFirst.empty()) {
    out << "\n  look first at\n";
    for (const auto& l : costs.lookFirst)
      out << "    line " << std::setw(4) << std::left << l.line << std::right << " " << l.why
          << "\n";
  }
}

void printExplainText(std::ostream& out, const ExplainView& v, const Toolchain& tc) {
  const CompileResult& r = v.r;
  out << v.file << "  (" << r.arch << ", opt-level " << r.optLevel << "; "
      << (r.profile == ToolchainProfile::RustcNvptx
              ? "rustc " + tc.rustcRelease
              : "profile " + std::string(profileName(r.profile)))
      << (tc.ptxas.found() ? ", ptxas " + tc.cudaRelease : "") << ")\n";
  for (uint32_t ln : v.lines) {
    std::ostringstream block;
    const bool any = printLine(block, v, ln);
    if (!any && !v.args.line) continue;  // the whole-file view shows lines that made code
    out << "\n" << std::setw(5) << ln << " | " << v.sourceLines[ln - 1] << "\n";
    if (!any) out << "      (no code in the requested stages)\n";
    out << block.str();
  }
  if (!v.args.line) printCompilerGenerated(out, r, *v.args.options.stages);
  printKernelTable(out, r);
  printCosts(out, v);
}

/// The source lines `explain` goes through: --line, or every line of the file (1-based).
std::vector<uint32_t> linesShown(const ExplainArgs& args, size_t lineCount) {
  if (args.line) return {*args.line};
  std::vector<uint32_t> lines;
  for (uint32_t i = 1; i <= lineCount; ++i) lines.push_back(i);
  return lines;
}

/// Writes `explain --json`'s object for `r`, the final result or one published before the end.
void printExplainJson(std::ostream& out, const ExplainArgs& args, const CompileResult& r,
                      const std::string& file, const std::vector<std::string_view>& sourceLines,
                      int indent) {
  const RemarksByLine remarks(r, args.remarks);
  writeExplainJson(
      out, {args, r, file, sourceLines, remarks, linesShown(args, sourceLines.size()), {}}, indent);
}

/// "mir, llvm-ir, ptx ready after 0.9 s; still coming: resources, sass"
std::string readyText(const ExplainArgs& args, const CompileResult& r) {
  std::string ready, coming;
  for (Stage s : *args.options.stages)
    if (const StageOutcome* st = r.stage(s); st && st->available)
      ready += (ready.empty() ? "" : ", ") + std::string(stageName(s));
  for (const std::string& p : r.pending) coming += (coming.empty() ? "" : ", ") + p;
  std::ostringstream seconds;
  seconds << std::fixed << std::setprecision(1) << r.totalTime.count() / 1000.0;
  return (ready.empty() ? "nothing" : ready) + " ready after " + seconds.str() +
         " s; still coming: " + coming;
}

/// --stream: each group of stages as soon as the compile has it (CompileOptions::onStages).
/// With --json, one line of `explain --json`'s object for the result so far, with `pending`;
/// the final result follows on the last line, without it. As text, a line on stderr saying
/// what is ready. Flushed at once, so that a reader sees PTX while ptxas and nvdisasm run.
StageListener stageStream(const ExplainArgs& args, const std::string& file,
                          const std::vector<std::string_view>& sourceLines) {
  return [&args, &file, &sourceLines](std::shared_ptr<const CompileResult> partial) {
    if (args.json) {
      printExplainJson(std::cout, args, *partial, file, sourceLines, -1);
      std::cout << std::endl;
    } else
      std::cerr << "kernelscope: " << readyText(args, *partial) << std::endl;
  };
}

}  // namespace

namespace {

/// The report's kernels against `args.baseline` ({"file", "kernels": {name: {"now", "then"}}});
/// null without one. The problem in `problem`.
nlohmann::json reportBaseline(const ExplainArgs& args, const CompileResult& r,
                              std::string& problem) {
  if (args.baseline.empty()) return nullptr;
  std::map<std::string, KernelFigures> then;
  if (std::string why = readBaseline(args.baseline, r.arch, then); !why.empty()) {
    problem = args.baseline + ": " + why;
    return nullptr;
  }
  nlohmann::json kernels = nlohmann::json::object();
  for (const auto& [name, now] : kernelFigures(r, args.options.occupancyBlockSize)) {
    auto old = then.find(name);
    kernels[name] = {
        {"now", figuresJson(now)},
        {"then", old == then.end() ? nlohmann::json(nullptr) : figuresJson(old->second)}};
  }
  return {{"file", args.baseline}, {"kernels", kernels}};
}

/// The heat of `args.profileResult` on the report's lines ({"kernel", "device", "lines":
/// [{line, share, headline}]}), replayed through the GPU service as `profile --replay`
/// does; null without one. The problem in `problem`.
nlohmann::json reportProfile(const ExplainArgs& args, const std::filesystem::path& path,
                             const std::string& file, std::string& problem) {
  if (args.profileResult.empty()) return nullptr;
  gpu::GpuRequest request;
  request.profile = true;
  request.input = {path, std::nullopt, {}};
  request.options = args.options;
  request.kernel = args.kernel;
  request.launch = args.launch;
  request.replay = args.profileResult;
  gpu::GpuOutcome out = gpu::runOnGpu(cliEngine(), request);
  if (!out.ok() || !out.lines) {
    problem = args.profileResult + ": " + (out.ok() ? "no per-line counters in it" : out.message());
    return nullptr;
  }
  nlohmann::json lines = nlohmann::json::array();
  for (const auto& l : out.lines->lines)
    if (l.line != 0 && l.file == file)
      lines.push_back({{"line", l.line},
                       {"share", out.lines->share(l)},
                       {"headline", gpu::lineHeadline(*out.lines, l)}});
  return {{"kernel", out.lines->kernel}, {"device", out.run.device.describe()}, {"lines", lines}};
}

/// A stage's views as the editors show them (ArtifactView.h), for the report's panes: which
/// filters hide each line, as runs [first, last, bits] of artifact lines with the same
/// nonzero bits, and the text of each line that a filter rewrites (SASS compacted, MIR
/// without its scope spans) by artifact line, with that filter's bit. The page keeps the
/// artifact's lines, so the line map's numbers serve every view and every line.
nlohmann::json reportView(const Artifact& a) {
  nlohmann::json hidden = nlohmann::json::array(), rewritten = nlohmann::json::object();
  const std::vector<uint8_t> bits = lineFilters(a);
  for (size_t l = 0; l < bits.size(); ++l) {
    if (!bits[l]) continue;
    if (!hidden.empty() && hidden.back()[1].get<size_t>() == l - 1 &&
        hidden.back()[2].get<uint8_t>() == bits[l])
      hidden.back()[1] = l;
    else
      hidden.push_back({l, l, bits[l]});
  }
  // The filters that rewrite lines, without those that only hide: every line they rewrite.
  lsp::ArtifactFilters rewriting;
  rewriting.debugLocations = rewriting.compactSass = true;
  const ArtifactView view(a, rewriting);
  const std::vector<std::string_view> shown = splitLines(view.text());
  for (size_t v = 0; v < std::min(shown.size(), view.size()); ++v) {
    const int l = view.artifactLine(static_cast<int>(v));
    if (shown[v] != a.shownLine(l)) rewritten[std::to_string(l)] = std::string(shown[v]);
  }
  const FilterBit by = a.stage == Stage::Mir ? kFilterDebugLocations : kFilterCompactSass;
  return {{"hidden", hidden}, {"rewritten", rewritten}, {"rewrittenBy", by}};
}

/// The filters the page offers, as the editors do: each one's key, bit and whether the
/// editors' views start with it on.
nlohmann::json reportFilters() {
  nlohmann::json filters = nlohmann::json::array();
  const uint8_t on = filterBits(defaultViewFilters());
  for (const ViewFilter& f : viewFilters())
    filters.push_back({{"name", f.name}, {"bit", f.bit}, {"on", (on & f.bit) != 0}});
  return filters;
}

/// Writes the report page of `r` to `args.html`; the problem, or "".
std::string writeReport(const ExplainArgs& args, const CompileResult& r, const std::string& file,
                        const std::string& source, const std::vector<std::string_view>& lines) {
  std::string problem;
  const nlohmann::json baseline = reportBaseline(args, r, problem);
  const nlohmann::json profile =
      problem.empty() ? reportProfile(args, std::filesystem::path(file), file, problem) : nullptr;
  if (!problem.empty()) return problem;
  std::ostringstream explain;
  printExplainJson(explain, args, r, file, lines, -1);
  nlohmann::json stages = nlohmann::json::object(), order = nlohmann::json::array();
  for (Stage s : *args.options.stages)
    if (const StageOutcome* o = r.stage(s); o && o->available) {
      stages[std::string(stageName(s))] = {{"title", std::string(stageTitle(s))},
                                           {"text", o->artifact->shownText()},
                                           {"view", reportView(*o->artifact)}};
      order.push_back(std::string(stageName(s)));
    }
  // The explain object goes in as it was written: one parse fewer for a large file.
  const std::string data =
      "{\"explain\": " + explain.str() + ", \"source\": " +
      nlohmann::json(source).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
      ", \"stages\": " + stages.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
      ", \"order\": " + order.dump() + ", \"filters\": " + reportFilters().dump() +
      ", \"baseline\": " + baseline.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
      ", \"profile\": " + profile.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
      "}";
  return writeFileAtomically(args.html, reportHtml(data));
}

int explainOrReport(std::string_view command, int argc, char** argv) {
  ExplainArgs args;
  if (auto err = parseArgs(command, argc, argv, args)) {
    std::cerr << "kernelscope " << command << ": " << *err << "\n";
    return kExitUsage;
  }
  std::filesystem::path path = std::filesystem::absolute(args.file);
  const auto bad = inputFileProblem(args.file);
  const FileText input = bad ? FileText{} : readRegularFile(path);
  if (bad || !input.ok()) {
    std::cerr << "kernelscope explain: cannot read " << args.file << ": "
              << (bad ? *bad : input.error) << "\n";
    return kExitUsage;
  }
  const std::string source = input.text;
  const auto sourceLines = splitLines(source);
  if (args.line && *args.line > sourceLines.size()) {
    std::cerr << "kernelscope explain: --line " << *args.line << " is past the end of " << args.file
              << " (" << sourceLines.size() << " lines)\n";
    return kExitUsage;
  }

  Engine& engine = cliEngine();
  const Toolchain tc = engine.toolchain();
  // What the command line left unset comes from kernelscope.toml, else
  // [package.metadata.kernelscope]; a `.cu` file has PTX and SASS unless --stages chose others.
  // Resolved here, once: the stages below are those the compile has.
  args.options = engine.optionsFor(path, args.options).asChosen();
  const std::string file = normalizePath(path.string());
  if (args.stream) args.options.onStages = stageStream(args, file, sourceLines);
  const std::shared_ptr<const CompileResult> compiled =
      engine.compile({path, std::nullopt, {}}, args.options);
  const CompileResult& r = *compiled;

  // Diagnostics first, compiler style, on stderr.
  if (args.json) printWorkspaceTrustNotes(r.diagnostics);
  if (!args.json)
    for (const auto& d : r.diagnostics) printDiagnostic(std::cerr, d);
  std::vector<std::string> unavailable;
  for (Stage s : *args.options.stages) {
    const StageOutcome* st = r.stage(s);
    if (st && !st->available)
      unavailable.push_back(std::string(stageName(s)) + ": " + st->unavailableReason);
  }

  if (!args.html.empty()) {
    if (!r.succeeded) {
      std::cerr << "kernelscope report: " << args.file << ": " << failureText(r) << "\n";
      return kExitFailed;
    }
    if (std::string why = writeReport(args, r, file, source, sourceLines); !why.empty()) {
      std::cerr << "kernelscope report: " << why << "\n";
      return kExitFailed;
    }
    std::cout << "wrote " << args.html << " (open it in a browser)\n";
    return kExitOk;
  }
  if (args.json) {  // streamed: the last of its lines
    printExplainJson(std::cout, args, r, file, sourceLines, args.stream ? -1 : 2);
    std::cout << "\n";
  } else {
    const RemarksByLine remarks(r, args.remarks);
    printExplainText(
        std::cout, {args, r, file, sourceLines, remarks, linesShown(args, sourceLines.size()), {}},
        tc);
  }

  if (!r.succeeded) {
    std::cerr << "kernelscope explain: " << args.file << ": " << failureText(r) << "\n";
    return kExitFailed;
  }
  if (!unavailable.empty()) {
    for (const auto& u : unavailable)
      std::cerr << "kernelscope explain: stage unavailable: " << u << "\n";
    return kExitStageUnavailable;
  }
  return kExitOk;
}

}  // namespace

int explainMain(int argc, char** argv) { return explainOrReport("explain", argc, argv); }

int reportMain(int argc, char** argv) { return explainOrReport("report", argc, argv); }

}  // namespace ks
