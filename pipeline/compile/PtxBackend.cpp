// The shared back end: ptxas, nvdisasm, line map and kernel table. See PtxBackend.h.
#include "PtxBackend.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "Files.h"
#include "GpuArch.h"
#include "Parsers.h"

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

/// What ptxas is given for `in` (see BackEndTools): made before the tools' thread starts,
/// so that the thread reads nothing the front end changes meanwhile.
BackEndTools::Ptxas ptxasInput(const FrontEndOutput& in, const fs::path& outDir,
                               std::string& text) {
  BackEndTools::Ptxas out;
  out.cubin = outDir / (in.stem + ".cubin");
  const Artifact& image = imageOf(in);
  // Linked code declares only what ptxas may know itself (vprintf): a loadable cubin first.
  out.relocatable = !in.linkedForLaunch && !externFunctions(image).empty();
  if (in.ptxasText) {
    text = *in.ptxasText;
  } else if (in.lineIds) {
    LineIdPtx ids = ptxWithLineIds(image);
    text = std::move(ids.text);
    out.ptxLineOf = std::move(ids.newToOld);
    out.lineIds = ids.hasIds;
  } else {
    text = image.text();
  }
  return out;
}

/// Runs ptxas on `ptxFile`, once more as relocatable (-c) when it names functions it lacks.
void runPtxas(const Toolchain& tc, const ResolvedOptions& opts, const CancellationToken& cancel,
              const fs::path& ptxFile, BackEndTools::Ptxas& out) {
  auto run = [&](bool relocatable) {
    ProcessSpec p;
    p.argv = {tc.ptxas.path.string(), "-arch=" + opts.arch, "-v", "-lineinfo"};
    if (relocatable) p.argv.push_back("-c");
    p.argv.insert(p.argv.end(), {ptxFile.string(), "-o", out.cubin.string()});
    p.timeout = opts.toolTimeout;
    p.cancel = cancel;
    return tc.run(p);
  };
  out.run = run(out.relocatable);
  if (!out.relocatable && !out.run.ok() &&
      out.run.err.find("Unresolved extern function") != std::string::npos) {
    const auto firstTry = out.run.elapsed;
    out.unresolved = unresolvedByPtxas(out.run.err);
    out.run = run(true);
    out.run.elapsed += firstTry;
    out.relocatable = true;
  }
}

BackEndTools::Disassembly runNvdisasm(const Toolchain& tc, const ResolvedOptions& opts,
                                      const CancellationToken& cancel,
                                      const BackEndTools::Ptxas& ptxas) {
  if (!opts.wants(Stage::Sass) || !tc.nvdisasm.found() || !ptxas.run.ok()) return {};
  ProcessSpec p;
  p.argv = {tc.nvdisasm.path.string(), "-c", "-g", "-gi", ptxas.cubin.string()};
  p.timeout = opts.toolTimeout;
  p.cancel = cancel;
  return {tc.run(p)};
}

}  // namespace

BackEndTools::BackEndTools(const Toolchain& tc, const ResolvedOptions& opts,
                           const CancellationToken& cancel, const FrontEndOutput& in,
                           const fs::path& outDir) {
  if ((!opts.wants(Stage::Ptx) && !opts.wants(Stage::Sass)) || !tc.ptxas.found()) return;
  // The thread reads only what does not change until the compile ends (the toolchain, the
  // options, the token) and what is made for it here; the PTX's chains change meanwhile.
  const fs::path ptxFile = outDir / (in.stem + ".lineids.ptx");
  std::string text;
  Ptxas input = ptxasInput(in, outDir, text);
  std::ofstream(ptxFile, std::ios::binary) << text;
  auto ptxas = std::make_shared<std::promise<Ptxas>>();
  ptxas_ = ptxas->get_future().share();
  nvdisasm_ = std::async(
      std::launch::async, [&tc, &opts, &cancel, ptxFile, ptxas, done = std::move(input)]() mutable {
        runPtxas(tc, opts, cancel, ptxFile, done);
        const bool cancelled = done.run.cancelled;
        Disassembly sass = cancelled ? Disassembly{} : runNvdisasm(tc, opts, cancel, done);
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
  const ProcessResult& pr = ptxas.run;
  result.toolTime += pr.elapsed;
  if (pr.cancelled) return std::nullopt;
  saveTemp(opts, "ptxas.stderr", pr.err + pr.out);
  PtxasReport report = parsePtxasReport(pr.err + pr.out);
  for (auto& d : report.diagnostics) {  // name the front end's PTX lines, not our rewrite's
    if (d.ptxLine && *d.ptxLine >= 1 && *d.ptxLine <= ptxas.ptxLineOf.size())
      d.ptxLine = ptxas.ptxLineOf[*d.ptxLine - 1] + 1;
    if (d.ptxLine) attachToSource(d, imageOf(in), *in.lineMap);
  }
  Assembled out{ptxas.cubin};
  if (!pr.ok()) {
    std::string why = "ptxas " + pr.describe();
    if (pr.err.find("not defined for option") != std::string::npos)
      why = archNeedsCudaMessage("ptxas", tc.cudaRelease, tc.ptxas.path.string(), opts.arch);
    else if (pr.err.find("Unsupported .version") != std::string::npos)
      why = "ptxas " + tc.cudaRelease +
            " is older than the PTX ISA version the front end emitted: use a newer CUDA toolkit "
            "(set CUDA_HOME)";
    result.markUnavailable(opts, Stage::Sass, why);
    if (report.diagnostics.empty()) report.diagnostics.push_back(toolError(why, "ptxas"));
    out.cubin.clear();
  } else if (!ptxas.relocatable) {  // the loadable cubin: what `kernelscope run` launches
    result.cubin = std::make_shared<const std::string>(readWholeFile(out.cubin));
    saveTemp(opts, "k.cubin", *result.cubin);
  } else {  // relocatable: calling what nothing defines, linked (unresolved) or not at all
    result.cubinProblem = unresolvedMessage(
        ptxas.unresolved.empty() ? externFunctions(imageOf(in)) : ptxas.unresolved, in.unresolved);
    Diagnostic d = toolError("no loadable cubin to run: " + result.cubinProblem, "ptxas");
    d.severity = Severity::Warning;
    report.diagnostics.push_back(std::move(d));
  }
  for (auto& d : report.diagnostics) result.diagnostics.push_back(std::move(d));
  for (auto& k : result.kernels)
    for (const auto& res : report.functions)
      if (res.name == k.symbol) {
        k.resources = res;
        k.occupancy = kernelOccupancy(opts.arch, res, opts.occupancyBlockSize);
      }
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
/// codes from the cubin, local memory told apart, and the IR's local arrays where a kernel
/// has one.
std::shared_ptr<const SassCosts> sassCosts(const ResolvedOptions& opts, const Artifact& sass,
                                           const FrontEndOutput& in,
                                           const std::vector<uint32_t>& ptxLineOfSass,
                                           const fs::path& cubin, const LineMap& lineMap,
                                           const std::vector<KernelInfo>& kernels) {
  auto spillsOf = [&](const std::string& symbol) -> std::optional<uint32_t> {
    for (const auto& k : kernels)
      if (k.symbol == symbol && k.resources)
        return k.resources->spillStores + k.resources->spillLoads;
    return std::nullopt;
  };
  auto costs = std::make_shared<SassCosts>();
  costs->lines.resize(sass.lines().size());
  const std::string image = readWholeFile(cubin);
  countLiveRegisters(sass, image, *costs);
  readControlCodes(sass, image, opts.arch, *costs);
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

}  // namespace

bool disassemble(const Toolchain& tc, const ResolvedOptions& opts, BackEndTools& tools,
                 const FrontEndOutput& in, const Assembled& assembled, CompileResult& result) {
  if (!opts.wants(Stage::Sass) || assembled.cubin.empty()) return true;
  if (!tc.nvdisasm.found()) {
    result.markUnavailable(opts, Stage::Sass,
                           "nvdisasm: " + tc.nvdisasm.problem + " (fix: " + tc.nvdisasm.fix + ")");
    return true;
  }
  BackEndTools::Disassembly disassembly = tools.takeNvdisasm();
  if (!disassembly.sass) return true;
  ProcessResult& dr = *disassembly.sass;
  result.toolTime += dr.elapsed;
  if (dr.cancelled) return false;
  if (!dr.ok()) {
    result.markUnavailable(opts, Stage::Sass,
                           "nvdisasm " + dr.describe() + ": " + dr.err.substr(0, 500));
    return true;
  }
  saveTemp(opts, "k.sass", dr.out);
  auto& st = result.stages[Stage::Sass];
  Artifact sass = parseSass(std::move(dr.out));
  // The PTX line of each SASS instruction, while its location is still the line id.
  std::vector<uint32_t> ptxLineOfSass;
  if (opts.costs && tools.ptxas().lineIds) ptxLineOfSass = ptxLinesOfSass(sass, in.ptx);
  // Decoded, SASS has its PTX's chains; without ids (nvcc's own `.loc`), complete them.
  if (!tools.ptxas().lineIds || decodeSassLineIds(sass, imageOf(in)) == 0)
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
    result.costs = sassCosts(opts, *st.artifact, in, ptxLineOfSass, assembled.cubin,
                             *result.lineMap, result.kernels);
  return true;
}

}  // namespace ks
