// The shared back end: ptxas, nvdisasm, line map and kernel table. See PtxBackend.h.
#include "PtxBackend.h"

#include <algorithm>
#include <atomic>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <thread>
#include <unordered_set>

#include "Files.h"
#include "GpuArch.h"
#include "Parsers.h"
#include "StableHash.h"
#include "TextUtil.h"

namespace ks {

namespace fs = std::filesystem;

Diagnostic toolError(std::string message, std::string source) {
  Diagnostic d;
  d.source = std::move(source);
  d.severity = Severity::Error;
  d.message = std::move(message);
  return d;
}

void saveTemp(const ResolvedOptions& opts, const std::string& name, const std::string& content) {
  if (opts.saveTempsDir.empty()) return;
  std::error_code ec;
  fs::create_directories(opts.saveTempsDir, ec);
  std::ofstream(opts.saveTempsDir / name, std::ios::binary) << content;
}

namespace {

size_t instructionsOf(const Artifact& a, const std::string& symbol) {
  for (const auto& f : a.functions) {
    if (f.symbol != symbol) continue;
    size_t n = 0;
    for (uint32_t l = f.firstLine; l <= f.lastLine; ++l)
      n += a.lines()[l].kind == LineKind::Instruction;
    return n;
  }
  return 0;
}

/// The functions the PTX calls without defining them (calls into `core` that were not
/// inlined, when nothing linked them), by their `.extern .func [(RET)] NAME(` lines: ptxas
/// links those only in relocatable mode (-c), which still compiles the kernels and reports
/// their resources, but makes no cubin to load.
std::vector<std::string> externFunctions(const Artifact& ptx) {
  constexpr std::string_view kExtern = ".extern .func";
  std::vector<std::string> names;
  for (size_t i = 0; i < ptx.lines().size(); ++i) {
    std::string_view t = ptx.lineText(i);
    auto start = t.find_first_not_of(" \t");
    if (start == std::string_view::npos || !t.substr(start).starts_with(kExtern)) continue;
    std::string_view rest = t.substr(start + kExtern.size());
    rest.remove_prefix(std::min(rest.size(), rest.find_first_not_of(" \t")));
    if (rest.starts_with('(')) {  // the return value's parameter
      const size_t close = rest.find(')');
      rest = close == std::string_view::npos ? std::string_view{} : rest.substr(close + 1);
      rest.remove_prefix(std::min(rest.size(), rest.find_first_not_of(" \t")));
    }
    std::string name(rest.substr(0, rest.find_first_of(" \t(;")));
    if (name.empty()) name = "(a function whose name the PTX does not give on its line)";
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  return names;
}

/// The functions ptxas named in "Unresolved extern function 'NAME'".
std::vector<std::string> unresolvedByPtxas(const std::string& err) {
  std::vector<std::string> names;
  constexpr std::string_view kSays = "Unresolved extern function '";
  for (size_t at = err.find(kSays); at != std::string::npos; at = err.find(kSays, at + 1)) {
    const size_t start = at + kSays.size(), end = err.find('\'', start);
    if (end == std::string::npos) break;
    std::string name = err.substr(start, end - start);
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  return names;
}

/// The PTX ptxas assembles: the launched image.
const Artifact& imageOf(const FrontEndOutput& in) { return in.linked ? *in.linked : in.ptx; }

}  // namespace

void kernelTable(const FrontEndOutput& in, const ResolvedOptions&, CompileResult& result) {
  for (auto& [stage, st] : result.stages)
    if (st.available) in.lineMap->addArtifact(*st.artifact);
  result.lineMap = in.lineMap;
  const Artifact& ptx = in.ptx;
  for (const auto& f : ptx.functions) {
    if (!f.isKernel) continue;
    KernelInfo k;
    k.symbol = f.symbol;
    k.demangled = f.demangled;
    for (const auto& irf : in.ir.functions)
      if (irf.symbol == f.symbol) k.definition = irf.definition;
    for (uint32_t l = f.firstLine; k.definition.line == 0 && l <= f.lastLine;
         ++l)  // no IR (nvcc): the first user line
      for (const auto& fr : ptx.lines()[l].location)
        if (fr.line != 0 && in.lineMap->isUserFile(fr.file)) {
          k.definition = fr;
          break;
        }
    k.ptxInstructions = instructionsOf(ptx, f.symbol);
    result.kernels.push_back(std::move(k));
  }
}

void replacePtx(const FrontEndOutput& in, const ResolvedOptions& opts, CompileResult& result) {
  if (!opts.wants(Stage::Ptx) || !result.lineMap) return;
  auto& st = result.stages[Stage::Ptx];
  st.setArtifact(in.ptx);
  auto lineMap = std::make_shared<LineMap>(*result.lineMap);
  lineMap->addArtifact(*st.artifact);
  result.lineMap = std::move(lineMap);
}

namespace {

/// A ptxas message about PTX line `d.ptxLine` goes to the user's source line that the PTX
/// line came from, and names the PTX line; one about compiler-generated code stays unplaced.
void attachToSource(Diagnostic& d, const Artifact& ptx, const LineMap& lineMap) {
  uint32_t index = *d.ptxLine - 1;
  d.message += " (PTX line " + std::to_string(*d.ptxLine) + ")";
  if (d.range || index >= ptx.lines().size()) return;
  LineOrigin o = lineMap.attributeChain(ptx.lines()[index].location);
  if (o.attribution != Attribution::Direct) return;
  d.range = SourceRange{o.user.file, o.user.line, std::max(o.user.column, 1u), o.user.line,
                        std::max(o.user.column, 1u)};
}

}  // namespace

namespace {

/// How many tools the back end runs at once: the cores, unless the options say.
size_t backEndJobs(const ResolvedOptions& opts) {
  return opts.backEndJobs > 0 ? opts.backEndJobs
                              : std::max(1u, std::thread::hardware_concurrency());
}

/// Runs `work(0..n-1)` on up to `jobs` threads (this one among them).
void inParallel(size_t n, size_t jobs, const std::function<void(size_t)>& work) {
  std::atomic<size_t> next{0};
  auto drain = [&] {
    for (size_t i = next++; i < n; i = next++) work(i);
  };
  const size_t threads = std::min(n, std::max<size_t>(1, jobs));
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(drain);
  drain();
  for (auto& t : pool) t.join();
}

/// The cache key of a kernel's module: its text, what assembles and disassembles it, how.
std::string imageKey(const Toolchain& tc, const ResolvedOptions& opts, const KernelModule& m) {
  return stableDigest({"ptxas -v -lineinfo; nvdisasm -c -g -gi", tc.ptxas.path.string(),
                       tc.ptxas.version, tc.nvdisasm.path.string(), tc.nvdisasm.version, opts.arch,
                       m.relocatable ? "-c" : "", m.text});
}

/// ptxas on one module (`dir/STEM.ptx`), once more as relocatable (-c) when it names
/// functions it lacks; the image when it assembled it.
void runPtxas(const Toolchain& tc, const ResolvedOptions& opts, const CancellationToken& cancel,
              const fs::path& dir, const std::string& stem, BackEndTools::Kernel& k) {
  const fs::path ptxFile = dir / (stem + ".ptx");
  const fs::path cubin = dir / (stem + ".cubin");
  std::ofstream(ptxFile, std::ios::binary) << k.module.text;
  auto run = [&](bool relocatable) {
    ProcessSpec p;
    p.argv = {tc.ptxas.path.string(), "-arch=" + opts.arch, "-v", "-lineinfo"};
    if (relocatable) p.argv.push_back("-c");
    p.argv.insert(p.argv.end(), {ptxFile.string(), "-o", cubin.string()});
    p.timeout = opts.toolTimeout;
    p.cancel = cancel;
    return tc.run(p);
  };
  auto image = std::make_shared<KernelImage>();
  image->relocatable = k.module.relocatable;
  k.run = run(image->relocatable);
  if (!image->relocatable && !k.run.ok() &&
      k.run.err.find("Unresolved extern function") != std::string::npos) {
    const auto firstTry = k.run.elapsed;
    image->unresolved = unresolvedByPtxas(k.run.err);
    k.run = run(true);
    k.run.elapsed += firstTry;
    image->relocatable = true;
  }
  if (!k.run.ok()) return;
  image->report = k.run.err + k.run.out;
  image->cubin = std::make_shared<const std::string>(readWholeFile(cubin));
  k.image = std::move(image);
  // Kept once whole: with its SASS when nvdisasm is to run on it (runNvdisasm).
  const bool disassembles = opts.wants(Stage::Sass) && tc.nvdisasm.found();
  if (opts.kernelImages && !disassembles && !k.key.empty())
    opts.kernelImages->insert(k.key, k.image);
}

/// nvdisasm on a module's cubin (`dir/STEM.cubin`); the image with its SASS, or null when it
/// failed.
std::shared_ptr<const KernelImage> runNvdisasm(const Toolchain& tc, const ResolvedOptions& opts,
                                               const CancellationToken& cancel, const fs::path& dir,
                                               const std::string& stem,
                                               const BackEndTools::Kernel& k, ProcessResult& run) {
  const fs::path cubin = dir / (stem + ".cubin");
  if (!k.run.started && k.image->cubin)  // kept
    std::ofstream(cubin, std::ios::binary) << *k.image->cubin;
  ProcessSpec p;
  p.argv = {tc.nvdisasm.path.string(), "-c", "-g", "-gi", cubin.string()};
  p.timeout = opts.toolTimeout;
  p.cancel = cancel;
  run = tc.run(p);
  if (!run.ok()) return nullptr;
  auto image = std::make_shared<KernelImage>(*k.image);
  image->sass = std::move(run.out);
  if (opts.kernelImages && !k.key.empty()) opts.kernelImages->insert(k.key, image);
  return image;
}

/// The section a line of nvdisasm's listing opens (`//----- .text.NAME -----`), or empty.
std::string_view sectionOpenedBy(std::string_view line) {
  if (!line.starts_with("//---")) return {};
  line.remove_prefix(line.find_first_not_of('-', 2));
  text::skipBlanks(line);
  return line.substr(0, line.find_first_of(" \t"));
}

std::string groupStem(size_t index) { return "k" + std::to_string(index); }
std::string mergedStem(size_t index) { return "m" + std::to_string(index); }

bool defines(const KernelModule& m, std::string_view function) {
  return std::find(m.functions.begin(), m.functions.end(), function) != m.functions.end();
}

/// What ptxas -v said of `group`'s functions in `merged`, its report on a module that holds
/// them, as the group's own run says it: nullopt when it says more than each function's
/// resources (a warning, global memory), which only the group's own run tells apart.
std::optional<std::string> groupReport(std::string_view merged, const KernelModule& group) {
  std::string out;
  std::string_view function;  // whose lines these are
  bool ours = false;
  for (std::string_view line : splitLines(merged)) {
    const std::string_view t = text::trim(line);
    std::string_view m = t;
    if (t.empty()) continue;
    if (!text::consume(m, "ptxas info    : ")) {
      if (function.empty() || t.find("bytes stack frame") == std::string_view::npos)
        return std::nullopt;
    } else if (m == "0 bytes gmem") {  // what every module's report opens with
      function = {};
      ours = true;
    } else if (text::consume(m, "Compiling entry function '") ||
               text::consume(m, "Compiling function '")) {
      function = m.substr(0, m.find('\''));
      ours = defines(group, function);
    } else if (text::consume(m, "Function properties for ")) {
      if (m != function) ours = defines(group, function = m);
    } else if (!m.starts_with("Used ") || function.empty()) {
      return std::nullopt;
    }
    if (ours) {
      out.append(line);
      out += '\n';
    }
  }
  return out;
}

/// nvdisasm's listing of `merged`'s cubin cut to `group`'s functions, as nvdisasm lists the
/// group's own cubin: the header, then its functions' sections in the merged listing's order
/// (the cubins list their functions in the PTX's order, reversed), two blank lines between
/// them, line ids counting the group's own lines. nullopt when an id falls outside the group.
std::optional<std::string> groupSass(std::string_view sass, const KernelModule& merged,
                                     const KernelModule& group) {
  const std::string ids =
      merged.idLines.empty() ? std::string(sass) : wholePtxLineIds(sass, merged.idLines);
  std::string out;
  bool keep = true;  // the header
  forEachLine(ids, [&](std::string_view line) {
    if (std::string_view name = sectionOpenedBy(line); !name.empty())
      keep = defines(group, name.starts_with(".text.") ? name.substr(6) : name);
    if (keep) {
      out.append(line);
      out += '\n';
    }
  });
  while (out.ends_with("\n\n")) out.pop_back();  // nvdisasm ends its last section so
  if (group.idLines.empty()) return out;
  std::unordered_map<uint32_t, uint32_t> lineOf;  // the whole PTX's line -> the group's
  for (uint32_t l = 0; l < group.idLines.size(); ++l) lineOf.emplace(group.idLines[l], l);
  bool outside = false;
  out = renumberAfter(out, ", line ", [&](uint32_t id) -> std::optional<uint32_t> {
    if (id < kLineIdBase) return std::nullopt;
    auto it = lineOf.find(id - kLineIdBase);
    outside = outside || it == lineOf.end();
    return it == lineOf.end() ? std::nullopt : std::optional(kLineIdBase + it->second);
  });
  return outside ? std::nullopt : std::optional(std::move(out));
}

/// ptxas on a merged module for its groups (KernelModules.h), each given an image cut from
/// what it made: its functions' part of the report (groupReport) and the merged cubin, which
/// holds each group's code as the group's own would (a function's code does not depend on
/// what else is assembled with it). False when that cannot be cut (ptxas failed, linked or
/// said more than the resources): the groups are then assembled apart.
bool assembleMerged(const Toolchain& tc, const ResolvedOptions& opts,
                    const CancellationToken& cancel, const fs::path& dir, size_t index,
                    BackEndTools::Merged& merged, std::vector<BackEndTools::Kernel>& kernels) {
  runPtxas(tc, opts, cancel, dir, mergedStem(index), merged.whole);
  const ProcessResult& run = merged.whole.run;
  if (run.cancelled || (!run.started && cancel.cancelled())) {
    for (size_t m : merged.members) kernels[m].run = run;
    return true;
  }
  const auto& whole = merged.whole.image;
  if (!whole || whole->relocatable) return false;
  std::vector<std::string> reports;
  for (size_t m : merged.members) {
    std::optional<std::string> report = groupReport(whole->report, kernels[m].module);
    if (!report) return false;
    reports.push_back(std::move(*report));
  }
  const bool disassembles = opts.wants(Stage::Sass) && tc.nvdisasm.found();
  for (size_t i = 0; i < merged.members.size(); ++i) {
    BackEndTools::Kernel& k = kernels[merged.members[i]];
    auto image = std::make_shared<KernelImage>();
    image->report = std::move(reports[i]);
    image->cubin = whole->cubin;
    k.image = std::move(image);
    k.run = run;
    k.run.elapsed = {};  // counted once, in the merged run's
    if (opts.kernelImages && !disassembles) opts.kernelImages->insert(k.key, k.image);
  }
  merged.assembled = true;
  return true;
}

/// One run of a tool: on a merged module (KernelModules::merged) or on a group alone.
struct Unit {
  size_t kernels;
  std::optional<size_t> merged;
  size_t group = 0;
};

/// The runs to make: on each merged module that `together` takes, then on each group that
/// `alone` takes and none of those holds; the largest first, so that the last to end is a
/// small one.
std::vector<Unit> unitsOf(const BackEndTools::Ptxas& ptxas,
                          const std::function<bool(const BackEndTools::Merged&)>& together,
                          const std::function<bool(size_t)>& alone) {
  std::vector<Unit> units;
  std::vector<bool> inMerged(ptxas.kernels.size(), false);
  for (size_t j = 0; j < ptxas.merged.size(); ++j) {
    if (!together(ptxas.merged[j])) continue;
    units.push_back({ptxas.merged[j].whole.module.kernels.size(), j});
    for (size_t m : ptxas.merged[j].members) inMerged[m] = true;
  }
  for (size_t i = 0; i < ptxas.kernels.size(); ++i)
    if (!inMerged[i] && alone(i))
      units.push_back({ptxas.kernels[i].module.kernels.size(), std::nullopt, i});
  std::stable_sort(units.begin(), units.end(),
                   [](const Unit& a, const Unit& b) { return a.kernels > b.kernels; });
  return units;
}

/// Every kernel's ptxas that the cache does not answer, in parallel.
BackEndTools::Ptxas assembleKernels(const Toolchain& tc, const ResolvedOptions& opts,
                                    const CancellationToken& cancel, const fs::path& dir,
                                    BackEndTools::Ptxas out) {
  std::vector<size_t> misses;
  std::vector<bool> missed(out.kernels.size(), false);
  for (size_t i = 0; i < out.kernels.size(); ++i) {
    auto& k = out.kernels[i];
    k.image = opts.kernelImages ? opts.kernelImages->find(k.key) : nullptr;
    if (!k.image) misses.push_back(i);
    missed[i] = !k.image;
  }
  // A merged module is assembled when none of its groups is kept.
  const std::vector<Unit> units = unitsOf(
      out,
      [&](const BackEndTools::Merged& merged) {
        return std::all_of(merged.members.begin(), merged.members.end(),
                           [&](size_t m) { return missed[m]; });
      },
      [&](size_t i) { return missed[i]; });
  inParallel(units.size(), backEndJobs(opts), [&](size_t u) {
    const Unit& unit = units[u];
    if (cancel.cancelled()) return;
    if (!unit.merged)
      return runPtxas(tc, opts, cancel, dir, groupStem(unit.group), out.kernels[unit.group]);
    BackEndTools::Merged& merged = out.merged[*unit.merged];
    if (assembleMerged(tc, opts, cancel, dir, *unit.merged, merged, out.kernels)) return;
    for (size_t m : merged.members)
      if (!cancel.cancelled()) runPtxas(tc, opts, cancel, dir, groupStem(m), out.kernels[m]);
  });
  for (const auto& merged : out.merged) out.elapsed += merged.whole.run.elapsed;
  for (size_t i : misses) {
    out.elapsed += out.kernels[i].run.elapsed;
    out.cancelled = out.cancelled || out.kernels[i].run.cancelled || !out.kernels[i].run.started;
  }
  out.cancelled = out.cancelled && cancel.cancelled();
  return out;
}

/// Every kernel's nvdisasm whose SASS the cache does not hold, in parallel.
BackEndTools::Disassembly disassembleKernels(const Toolchain& tc, const ResolvedOptions& opts,
                                             const CancellationToken& cancel, const fs::path& dir,
                                             const BackEndTools::Ptxas& ptxas) {
  BackEndTools::Disassembly out;
  if (!opts.wants(Stage::Sass) || !tc.nvdisasm.found()) return out;
  for (const auto& k : ptxas.kernels)
    if (!k.image) return out;  // a ptxas failed: no SASS
  out.images.resize(ptxas.kernels.size());
  for (size_t i = 0; i < ptxas.kernels.size(); ++i) out.images[i] = ptxas.kernels[i].image;
  // A merged module's cubin is disassembled once for its groups (the images cut from it).
  const std::vector<Unit> units = unitsOf(
      ptxas, [](const BackEndTools::Merged& merged) { return merged.assembled; },
      [&](size_t i) { return !out.images[i]->sass; });
  // A merged run, and the runs of groups whose listing could not be cut from it.
  std::vector<std::vector<ProcessResult>> runs(units.size());
  inParallel(units.size(), backEndJobs(opts), [&](size_t u) {
    auto& done = runs[u].emplace_back();  // not started: cancelled before it
    if (cancel.cancelled()) return;
    const Unit& unit = units[u];
    if (!unit.merged) {
      out.images[unit.group] = runNvdisasm(tc, opts, cancel, dir, groupStem(unit.group),
                                           ptxas.kernels[unit.group], done);
      return;
    }
    const BackEndTools::Merged& merged = ptxas.merged[*unit.merged];
    const auto whole =
        runNvdisasm(tc, opts, cancel, dir, mergedStem(*unit.merged), merged.whole, done);
    for (size_t m : merged.members) {
      if (!whole) {
        out.images[m] = nullptr;
        continue;
      }
      const BackEndTools::Kernel& k = ptxas.kernels[m];
      if (auto sass = groupSass(*whole->sass, merged.whole.module, k.module)) {
        auto image = std::make_shared<KernelImage>(*k.image);
        image->sass = std::move(*sass);
        if (opts.kernelImages) opts.kernelImages->insert(k.key, image);
        out.images[m] = std::move(image);
        continue;
      }
      // Not expected (a group's functions have their lines in it): the group alone.
      BackEndTools::Kernel alone{k.module, k.key, nullptr, {}};
      runPtxas(tc, opts, cancel, dir, groupStem(m), alone);
      out.images[m] = alone.image ? runNvdisasm(tc, opts, cancel, dir, groupStem(m), alone,
                                                runs[u].emplace_back())
                                  : nullptr;
      if (!alone.image) runs[u].push_back(std::move(alone.run));
    }
  });
  for (auto& unitRuns : runs)
    for (auto& run : unitRuns) {
      out.elapsed += run.elapsed;
      out.cancelled = out.cancelled || run.cancelled || (!run.started && cancel.cancelled());
      if (!run.ok() && !out.failure) out.failure = std::move(run);
    }
  if (out.failure || out.cancelled) out.images.clear();
  return out;
}

}  // namespace

BackEndTools::BackEndTools(const Toolchain& tc, const ResolvedOptions& opts,
                           const CancellationToken& cancel, const FrontEndOutput& in,
                           const fs::path& outDir) {
  if ((!opts.wants(Stage::Ptx) && !opts.wants(Stage::Sass)) || !tc.ptxas.found()) return;
  // The thread reads only what does not change until the compile ends (the toolchain, the
  // options, the token) and what is made for it here; the PTX's chains change meanwhile.
  // nvcc's PTX is assembled as it printed it (its own `.loc` lines are exact).
  const Artifact text = in.ptxasText ? parsePtx(*in.ptxasText) : Artifact();
  // More groups than cores are merged (KernelModules.h) where nvdisasm is to run: its start
  // costs as much as a small group's whole listing.
  const bool disassembles = opts.wants(Stage::Sass) && tc.nvdisasm.found();
  KernelModules split =
      kernelModules(in.ptxasText ? text : imageOf(in), !in.ptxasText && in.lineIds,
                    in.linkedForLaunch, disassembles ? backEndJobs(opts) : 0);
  Ptxas input;
  input.functions = std::move(split.functions);
  input.lineIds = !split.modules.empty() && !split.modules.front().idLines.empty();
  for (auto& m : split.modules) {
    std::string key = imageKey(tc, opts, m);
    input.kernels.push_back({std::move(m), std::move(key), nullptr, {}});
  }
  for (auto& m : split.merged)
    input.merged.push_back({std::move(m.members), {std::move(m.module), {}, nullptr, {}}});
  auto ptxas = std::make_shared<std::promise<Ptxas>>();
  ptxas_ = ptxas->get_future().share();
  nvdisasm_ = std::async(
      std::launch::async, [&tc, &opts, &cancel, outDir, ptxas, input = std::move(input)]() mutable {
        Ptxas done = assembleKernels(tc, opts, cancel, outDir, std::move(input));
        Disassembly sass =
            done.cancelled ? Disassembly{} : disassembleKernels(tc, opts, cancel, outDir, done);
        ptxas->set_value(std::move(done));
        return sass;
      });
}

BackEndTools::~BackEndTools() {
  if (nvdisasm_.valid()) nvdisasm_.wait();
}

const BackEndTools::Ptxas& BackEndTools::ptxas() { return ptxas_.get(); }

BackEndTools::Disassembly BackEndTools::takeNvdisasm() {
  return nvdisasm_.valid() ? nvdisasm_.get() : Disassembly{};
}

std::optional<Assembled> assemble(const Toolchain& tc, const ResolvedOptions& opts,
                                  BackEndTools& tools, const FrontEndOutput& in,
                                  CompileResult& result) {
  if (!opts.wants(Stage::Ptx) && !opts.wants(Stage::Sass)) return Assembled{};
  if (!tc.ptxas.found()) {
    result.markUnavailable(opts, Stage::Sass,
                           "ptxas: " + tc.ptxas.problem + " (fix: " + tc.ptxas.fix + ")");
    return Assembled{};
  }
  const BackEndTools::Ptxas& ptxas = tools.ptxas();
  result.toolTime += ptxas.elapsed;
  if (ptxas.cancelled) return std::nullopt;
  std::string reports;
  std::vector<Diagnostic> diagnostics;
  std::vector<std::string> unresolved;
  const ProcessResult* failed = nullptr;
  std::vector<std::shared_ptr<const std::string>> cubins;
  for (const auto& k : ptxas.kernels) {
    const std::string& printed = k.image ? k.image->report : k.run.err + k.run.out;
    reports += printed;
    PtxasReport report = parsePtxasReport(printed);
    for (auto& d : report.diagnostics) {  // name the front end's PTX lines, not the module's
      if (d.ptxLine && *d.ptxLine >= 1 && *d.ptxLine <= k.module.imageLineOf.size())
        d.ptxLine = k.module.imageLineOf[*d.ptxLine - 1] + 1;
      if (d.ptxLine) attachToSource(d, imageOf(in), *in.lineMap);
      // A function several kernels call is reported with each.
      if (std::none_of(diagnostics.begin(), diagnostics.end(), [&](const Diagnostic& e) {
            return e.message == d.message && e.ptxLine == d.ptxLine;
          }))
        diagnostics.push_back(std::move(d));
    }
    const auto& ours = k.module.kernels;
    for (auto& kernel : result.kernels)
      for (const auto& res : report.functions)
        if (res.name == kernel.symbol &&
            std::find(ours.begin(), ours.end(), kernel.symbol) != ours.end()) {
          kernel.resources = res;
          kernel.occupancy = kernelOccupancy(opts.arch, res, opts.occupancyBlockSize);
        }
    if (!k.image) {
      if (!failed) failed = &k.run;
      continue;
    }
    if (!k.image->relocatable && k.image->cubin) {  // the loadable cubin: what `run` launches
      // Groups cut from one merged module share its cubin: held once (also when their images
      // came from the disk cache, each with its own copy).
      auto same = std::find_if(cubins.begin(), cubins.end(),
                               [&](const auto& c) { return *c == *k.image->cubin; });
      if (same == cubins.end()) same = cubins.insert(cubins.end(), k.image->cubin);
      for (const auto& kernel : ours) result.cubins[kernel] = *same;
      continue;
    }
    // Relocatable: calling what nothing defines, linked (unresolved) or not at all.
    for (const auto& name :
         k.image->unresolved.empty() ? externFunctions(imageOf(in)) : k.image->unresolved)
      if (std::find(unresolved.begin(), unresolved.end(), name) == unresolved.end())
        unresolved.push_back(name);
  }
  saveTemp(opts, "ptxas.stderr", reports);
  Assembled out{!failed && !ptxas.kernels.empty()};
  if (failed) {
    const ProcessResult& pr = *failed;
    std::string why = "ptxas " + pr.describe();
    if (pr.err.find("not defined for option") != std::string::npos)
      why = archNeedsCudaMessage("ptxas", tc.cudaRelease, tc.ptxas.path.string(), opts.arch);
    else if (pr.err.find("Unsupported .version") != std::string::npos)
      why = "ptxas " + tc.cudaRelease +
            " is older than the PTX ISA version the front end emitted: use a newer CUDA toolkit "
            "(set CUDA_HOME)";
    result.markUnavailable(opts, Stage::Sass, why);
    if (diagnostics.empty()) diagnostics.push_back(toolError(why, "ptxas"));
  } else if (!unresolved.empty()) {
    result.cubinProblem = unresolvedMessage(unresolved, in.unresolved);
    Diagnostic d = toolError("no loadable cubin to run: " + result.cubinProblem, "ptxas");
    d.severity = Severity::Warning;
    diagnostics.push_back(std::move(d));
  }
  for (auto& d : diagnostics) result.diagnostics.push_back(std::move(d));
  for (size_t i = 0; i < ptxas.kernels.size(); ++i)
    if (ptxas.kernels[i].image && ptxas.kernels[i].image->cubin)
      saveTemp(opts, groupStem(i) + ".cubin", *ptxas.kernels[i].image->cubin);
  return out;
}

namespace {

/// The front end's PTX line of each SASS line whose location is a line id; UINT32_MAX for
/// the others.
std::vector<uint32_t> ptxLinesOfSass(const Artifact& sass, const Artifact& ptx) {
  std::vector<uint32_t> out(sass.lines().size(), UINT32_MAX);
  for (size_t i = 0; i < sass.lines().size(); ++i) {
    const auto& loc = sass.lines()[i].location;
    if (sass.lines()[i].kind != LineKind::Instruction || loc.empty()) continue;
    uint32_t id = loc.front().line;
    if (id >= kLineIdBase && id - kLineIdBase < ptx.lines().size()) out[i] = id - kLineIdBase;
  }
  return out;
}

/// The costs of every SASS instruction (Costs.h): the live registers (Liveness.h) and control
/// codes from the cubins, local memory told apart, and the IR's local arrays where a kernel
/// has one.
std::shared_ptr<const SassCosts> sassCosts(const ResolvedOptions& opts, const Artifact& sass,
                                           const FrontEndOutput& in,
                                           const std::vector<uint32_t>& ptxLineOfSass,
                                           const CubinFunctions& code, const LineMap& lineMap,
                                           const std::vector<KernelInfo>& kernels) {
  auto spillsOf = [&](const std::string& symbol) -> std::optional<uint32_t> {
    for (const auto& k : kernels)
      if (k.symbol == symbol && k.resources)
        return k.resources->spillStores + k.resources->spillLoads;
    return std::nullopt;
  };
  auto costs = std::make_shared<SassCosts>();
  costs->lines.resize(sass.lines().size());
  countLiveRegisters(sass, code, *costs);
  readControlCodes(sass, code, opts.arch, *costs);
  classifyLocal(sass, in.ptx, ptxLineOfSass, spillsOf, *costs);
  // Only a function whose PTX keeps a local depot has an array there: the IR is parsed again
  // only then.
  std::vector<std::string> withDepot;
  for (const auto& f : in.ptx.functions)
    for (uint32_t l = f.firstLine; l <= f.lastLine && l < in.ptx.lines().size(); ++l)
      if (in.ptx.lineText(l).find("__local_depot") != std::string_view::npos) {
        withDepot.push_back(f.symbol);
        break;
      }
  if (!withDepot.empty()) costs->arrays = findLocalArrays(in.ir.text(), withDepot, lineMap);
  std::vector<std::string> functions;
  for (const auto& f : sass.functions) functions.push_back(f.symbol);
  costs->access = in.access.valid() ? accessesOf(in.access.get(), functions)
                                    : analyzeAccesses(in.ir.text(), functions, lineMap, opts.arch);
  return costs;
}

/// The modules' listings as one (see disassemble), and the code of each function listed,
/// from the cubin it is listed from.
std::string oneListing(const BackEndTools::Ptxas& ptxas,
                       const std::vector<std::shared_ptr<const KernelImage>>& images,
                       CubinFunctions& code) {
  struct Section {
    size_t rank;       // its function's place in the PTX (unknown: after them all)
    size_t module;     // whose labels it names
    std::string text;  // from its `//-----` line on
  };
  std::unordered_map<std::string_view, size_t> rank;
  for (size_t i = 0; i < ptxas.functions.size(); ++i) rank.emplace(ptxas.functions[i], i);
  std::string header;
  std::vector<Section> sections;
  std::unordered_set<std::string> listed;
  for (size_t m = 0; m < images.size(); ++m) {
    const std::string sass = wholePtxLineIds(*images[m]->sass, ptxas.kernels[m].module.idLines);
    if (images[m]->cubin)
      for (auto& [name, fn] : cubinFunctions(*images[m]->cubin)) code.try_emplace(name, fn);
    Section* into = nullptr;
    bool skip = false;
    forEachLine(sass, [&](std::string_view line) {
      if (std::string_view name = sectionOpenedBy(line); !name.empty()) {
        skip = !listed.emplace(name).second;  // listed from an earlier module
        if (!skip) {
          std::string_view symbol = name.starts_with(".text.") ? name.substr(6) : name;
          auto it = rank.find(symbol);
          sections.push_back({it == rank.end() ? rank.size() : it->second, m, {}});
          into = &sections.back();
        }
      }
      if (skip || (!into && m > 0)) return;  // listed already; the header, once
      std::string& to = into ? into->text : header;
      to.append(line);
      to += '\n';
    });
  }
  std::stable_sort(sections.begin(), sections.end(),
                   [](const Section& a, const Section& b) { return a.rank < b.rank; });
  // nvdisasm numbers the labels `.L_x_N` across each cubin: numbered again in the order they
  // come here, they do not depend on how the kernels were grouped.
  std::map<std::pair<size_t, uint32_t>, uint32_t> renumbered;
  std::string out = std::move(header);
  for (const Section& section : sections)
    out += renumberAfter(section.text, ".L_x_", [&](uint32_t label) {
      const auto next = static_cast<uint32_t>(renumbered.size());
      return std::optional(renumbered.try_emplace({section.module, label}, next).first->second);
    });
  return out;
}

}  // namespace

bool disassemble(const Toolchain& tc, const ResolvedOptions& opts, BackEndTools& tools,
                 const FrontEndOutput& in, const Assembled& assembled, CompileResult& result) {
  if (!opts.wants(Stage::Sass) || !assembled.sassToCome) return true;
  if (!tc.nvdisasm.found()) {
    result.markUnavailable(opts, Stage::Sass,
                           "nvdisasm: " + tc.nvdisasm.problem + " (fix: " + tc.nvdisasm.fix + ")");
    return true;
  }
  BackEndTools::Disassembly disassembly = tools.takeNvdisasm();
  result.toolTime += disassembly.elapsed;
  if (disassembly.cancelled) return false;
  if (disassembly.failure) {
    const ProcessResult& dr = *disassembly.failure;
    result.markUnavailable(opts, Stage::Sass,
                           "nvdisasm " + dr.describe() + ": " + dr.err.substr(0, 500));
    return true;
  }
  if (disassembly.images.empty()) return true;
  const BackEndTools::Ptxas& ptxas = tools.ptxas();
  // The cubins' images stay held (the code views into them) until the costs are read.
  CubinFunctions code;
  std::string listing = oneListing(ptxas, disassembly.images, code);
  saveTemp(opts, "k.sass", listing);
  auto& st = result.stages[Stage::Sass];
  Artifact sass = parseSass(std::move(listing));
  // The PTX line of each SASS instruction, while its location is still the line id.
  std::vector<uint32_t> ptxLineOfSass;
  if (opts.costs && ptxas.lineIds) ptxLineOfSass = ptxLinesOfSass(sass, in.ptx);
  // Decoded, SASS has its PTX's chains; without ids (nvcc's own `.loc`), complete them.
  if (!ptxas.lineIds || decodeSassLineIds(sass, imageOf(in)) == 0)
    recoverInlineChains(sass, in.ir, *in.lineMap);
  markLinkedFunctions(sass, result.linkedFunctions);
  st.setArtifact(std::move(sass));
  st.available = true;
  // A new map with SASS added: the one published before stays as it was.
  auto lineMap = std::make_shared<LineMap>(*result.lineMap);
  lineMap->addArtifact(*st.artifact);
  result.lineMap = std::move(lineMap);
  for (auto& k : result.kernels) k.sassInstructions = instructionsOf(*st.artifact, k.symbol);
  if (opts.costs)
    result.costs =
        sassCosts(opts, *st.artifact, in, ptxLineOfSass, code, *result.lineMap, result.kernels);
  return true;
}

}  // namespace ks
