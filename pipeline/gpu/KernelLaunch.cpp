#include "KernelLaunch.h"

#include <unistd.h>

#include <climits>

#include "Crate.h"
#include "Cuda.h"
#include "Files.h"
#include "KernelScan.h"
#include "SpecSkeleton.h"
#include "TextUtil.h"

namespace ks::gpu {

namespace fs = std::filesystem;

namespace {

/// The kernel's declaration in its source file: (file, text, entry), when found.
struct SourceDeclaration {
  fs::path file;
  std::string text;
  KernelEntry entry;
};
std::optional<SourceDeclaration> declaration(const CompileResult& result, const std::string& kernel,
                                             const std::map<fs::path, std::string>& unsaved = {}) {
  const KernelInfo* k = findKernel(result, kernel);
  std::vector<fs::path> candidates;
  if (k && !k->definition.file.empty()) candidates.push_back(k->definition.file.str());
  for (const auto& f : result.sourceFiles) candidates.push_back(f);
  for (const auto& file : candidates) {
    std::string text;
    if (auto it = unsaved.find(file); it != unsaved.end())
      text = it->second;
    else if (FileText read = readRegularFile(file); read.ok())
      text = std::move(read.text);
    else
      continue;
    bool cuda = isCudaSource(file);
    std::optional<KernelEntry> entry;
    for (const auto& e : scanKernelEntries(text, cuda))
      if (e.name == kernel) entry = e;
    if (!entry && !cuda) entry = kernelEntryFor(text, kernel);
    if (entry) return SourceDeclaration{file, std::move(text), *entry};
  }
  return std::nullopt;
}

std::string selfExecutable() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string("kernelscope");
}

/// What a kernel without a launch spec is told: the spec of its real parameters, and where
/// else to give one (the command line has --spec; an editor the `Add launch spec` lens).
std::string noSpecMessage(const std::string& kernel, const KernelSignature& signature,
                          const std::string& specOrigin) {
  return "no launch spec for " + kernel +
         ": write one above the kernel, e.g. `// kernelscope: " + specSkeleton(signature) + "`, " +
         (specOrigin == "--spec" ? "or pass --spec"
                                 : "or add it with the `Add launch spec` code lens");
}

}  // namespace

LaunchSpec writtenSpec(const Toolchain& tc, const CompileResult& result, const std::string& kernel,
                       std::vector<SpecError>& errors,
                       const std::map<fs::path, std::string>& unsaved) {
  LaunchSpec spec;
  if (auto decl = declaration(result, kernel, unsaved))
    spec = specFromComments(decl->text, decl->entry.line, decl->file.string(), errors);
  if (!result.crateManifest.empty()) {
    if (auto crate = findCrate(tc, result.crateManifest.parent_path() / "Cargo.toml")) {
      auto it = crate->settings.launch.find(kernel);
      if (it != crate->settings.launch.end()) {
        std::string origin =
            result.crateManifest.string() + " [package.metadata.kernelscope.launch." + kernel + "]";
        for (const auto& [key, value] : it->second)
          parseSpecItems(key + " = " + value, origin, 0, spec, errors);
      }
    }
  }
  return spec;
}

std::vector<std::string> kernelsWithWrittenSpecs(const Toolchain& tc, const CompileResult& result,
                                                 const CompileInput& input) {
  std::map<fs::path, std::string> unsaved = input.overlays;
  if (input.text) unsaved[input.path] = *input.text;
  std::vector<std::string> withSpec;
  for (const auto& k : result.kernels) {
    std::vector<SpecError> ignored;
    if (!writtenSpec(tc, result, k.symbol, ignored, unsaved).empty()) withSpec.push_back(k.symbol);
  }
  return withSpec;
}

std::optional<KernelSignature> kernelSignature(const CompileResult& result,
                                               const std::string& kernel,
                                               const std::map<fs::path, std::string>& unsaved,
                                               std::string& note) {
  const StageOutcome* ptx = result.stage(Stage::Ptx);
  if (!ptx || !ptx->available || !ptx->artifact) return std::nullopt;
  std::optional<KernelSignature> signature;
  for (const auto& f : ptx->artifact->functions)
    if (f.isKernel && f.symbol == kernel) signature = ptxSignature(*ptx->artifact, f);
  if (!signature) return std::nullopt;
  if (auto decl = declaration(result, kernel, unsaved)) {
    size_t offset = text::offsetOf(decl->text, decl->entry.line, decl->entry.column);
    if (std::string why =
            addSourceSignature(*signature, decl->text, offset, isCudaSource(decl->file));
        !why.empty())
      note = "parameters checked against the PTX only: " + why;
  } else {
    note = "the kernel's source declaration was not found: parameters checked against the PTX only";
  }
  return signature;
}

PreparedLaunch prepareLaunch(const Toolchain& tc, const CompileResult& result,
                             const std::string& cubin, const std::string& kernel,
                             const LaunchSettings& settings, ExecRequest::Mode mode) {
  PreparedLaunch out;
  if (cubin.empty()) {
    const StageOutcome* sass = result.stage(Stage::Sass);
    out.errors.push_back("no cubin to run: " +
                         (!result.cubinProblem.empty() ? result.cubinProblem
                          : sass && !sass->unavailableReason.empty()
                              ? sass->unavailableReason
                              : std::string("ptxas did not make a loadable cubin")));
    return out;
  }
  const StageOutcome* ptx = result.stage(Stage::Ptx);
  if (!ptx || !ptx->available) {
    out.errors.push_back("no PTX: the kernel's parameters are unknown");
    return out;
  }
  std::string note;
  std::optional<KernelSignature> signature =
      kernelSignature(result, kernel, settings.unsavedText, note);
  if (!signature) {
    std::string known;
    for (const auto& k : result.kernels) known += (known.empty() ? "" : ", ") + k.symbol;
    out.errors.push_back("no kernel named '" + kernel +
                         "' (kernels: " + (known.empty() ? "none" : known) + ")");
    return out;
  }
  if (!note.empty()) out.notes.push_back(note);
  auto decl = declaration(result, kernel, settings.unsavedText);
  out.signature = *signature;

  std::vector<SpecError> errors;
  out.spec = writtenSpec(tc, result, kernel, errors, settings.unsavedText);
  if (out.spec.empty())
    for (const auto& items : settings.fallbackSpecItems)
      parseSpecItems(items, settings.specOrigin, 0, out.spec, errors);
  for (const auto& items : settings.specItems)
    parseSpecItems(items, settings.specOrigin, 0, out.spec, errors);
  if (out.spec.empty() && errors.empty()) {
    out.errors.push_back(noSpecMessage(kernel, *signature, settings.specOrigin));
    return out;
  }
  std::optional<LaunchPlan> plan = resolveSpec(out.spec, *signature, errors);
  for (const auto& e : errors) out.errors.push_back(e.describe());
  if (!plan) return out;

  ExecRequest request;
  request.mode = mode;
  request.plan = *plan;
  request.cubin = cubin;
  request.warmup = settings.warmup;
  request.runs = settings.runs;
  request.dump = settings.dump;
  request.ncu = settings.ncu;
  request.argData.resize(plan->args.size());
  fs::path root = !result.crateManifest.empty()
                      ? result.crateManifest.parent_path()
                      : (decl ? decl->file.parent_path() : fs::current_path());
  for (size_t i = 0; i < plan->args.size(); ++i) {
    const ArgPlan& a = plan->args[i];
    if (!a.buffer || a.fill.kind != Fill::Kind::File) continue;
    // Paths are relative to the spec's file; command-line paths to the working directory, and
    // a request's (the editor's) to the workspace, which they stay inside.
    fs::path origin = a.origin;
    const bool given = a.origin == settings.specOrigin;
    const bool commandLine = given && settings.specOrigin == "--spec";
    fs::path dir = commandLine ? fs::current_path() : given ? root : origin.parent_path();
    if (!given && a.origin.find(" [package.metadata") != std::string::npos)
      dir = result.crateManifest.parent_path();
    fs::path allowed = commandLine ? fs::current_path() : root;
    if (std::string why = readBufferFile(a, dir, allowed, request.argData[i]); !why.empty())
      out.errors.push_back(
          SpecError{given ? a.origin : a.origin.substr(0, a.origin.find(" [")), a.line, why}
              .describe());
  }
  if (!out.errors.empty()) return out;
  out.request = std::move(request);
  return out;
}

LaunchCompile compileForLaunch(Engine& engine, const CompileInput& input, CompileOptions options,
                               const std::string& kernel, const CancellationToken& cancel) {
  LaunchCompile c;
  const Toolchain tc = engine.toolchain();
  options.stages = isCudaSource(input.path)  // CUDA C++ has no LLVM IR
                       ? std::vector<Stage>{Stage::Ptx, Stage::Sass}
                       : std::vector<Stage>{Stage::LlvmIr, Stage::Ptx, Stage::Sass};
  options.remarks = false;
  options.onStages = nullptr;
  // The cubins come with the result (CompileResult::cubins): an unchanged kernel is answered
  // from the engine's caches as explain's is.
  c.result = *engine.compile(input, options, cancel);
  for (const auto& d : c.result.diagnostics)
    if (d.severity == Severity::Error)
      c.errors.push_back((d.range ? d.range->file + ":" + std::to_string(d.range->startLine) + ": "
                                  : std::string()) +
                         "error: " + d.message);
  if (c.result.cancelled) {
    c.problem = "cancelled";
    return c;
  }
  const std::string file = input.path.filename().string();
  if (c.result.kernels.empty()) {
    c.problem = file + " has no kernels" + (c.result.succeeded ? "" : " (it did not compile)");
    return c;
  }
  if (!kernel.empty()) {
    const KernelInfo* k = findKernel(c.result, kernel);
    c.kernel = k ? k->symbol : kernel;  // an unknown name is reported by prepareLaunch
    if (const std::string* image = cubinOf(c.result, c.kernel)) c.cubin = *image;
    return c;
  }
  // The only kernel, else the only one with a spec.
  const std::vector<std::string> withSpec = kernelsWithWrittenSpecs(tc, c.result, input);
  if (c.result.kernels.size() == 1) {
    c.kernel = c.result.kernels[0].symbol;
  } else if (withSpec.size() == 1) {
    c.kernel = withSpec[0];
  } else {
    std::string names;
    for (const auto& k : c.result.kernels) names += " " + k.symbol;
    c.problem = file + " has several kernels; choose one with --kernel:" + names;
  }
  if (const std::string* image = cubinOf(c.result, c.kernel)) c.cubin = *image;
  return c;
}

std::string splitRunner(const std::string& text, std::vector<std::string>& argv) {
  argv.clear();
  std::string word;
  bool inWord = false;
  char quote = 0;
  for (char c : text) {
    if (quote) {
      if (c == quote)
        quote = 0;
      else
        word += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      inWord = true;
    } else if (c == ' ' || c == '\t') {
      if (inWord) argv.push_back(word), word.clear(), inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) return "unclosed quote in the runner setting";
  if (inWord) argv.push_back(word);
  return {};
}

std::vector<std::string> gpuExecCommand(const LaunchSettings& s) {
  std::vector<std::string> argv = s.runner;
  std::string program = !s.remoteKernelscope.empty() ? s.remoteKernelscope
                        : s.runner.empty()           ? selfExecutable()
                                                     : std::string("kernelscope");
  argv.push_back(program);
  argv.push_back("gpu-exec");
  return argv;
}

std::string decodeResultFor(const ExecRequest& request, std::string_view message, RunResult& r) {
  if (std::string why = decodeResult(message, r); !why.empty()) return why;
  if (std::string why = checkResultAgainstPlan(request, r); !why.empty()) {
    r = RunResult{};
    return "a result that does not answer this request: " + why;
  }
  return {};
}

RunResult runGpuExec(const ExecRequest& request, const LaunchSettings& settings,
                     const CancellationToken& cancel) {
  ProcessSpec spec;
  spec.argv = gpuExecCommand(settings);
  spec.stdinText = encodeRequest(request);
  spec.timeout = settings.timeout;
  spec.cancel = cancel;
  // A runner may have work of its own to stop (srun's job step, ssh's remote command).
  if (!settings.runner.empty()) spec.termGrace = std::chrono::seconds(5);
  spec.outputCap = resultSizeLimit(request);  // dumped buffers come back on stdout
  spec.errorCap = kRunnerErrorCap;
  ProcessResult p = runProcess(spec);
  RunResult r;
  auto fail = [&](std::string kind, std::string message) {
    r.ok = false;
    r.errorKind = std::move(kind);
    r.error = std::move(message);
    return r;
  };
  std::string where = settings.runner.empty()
                          ? "gpu-exec"
                          : "gpu-exec through the runner '" + settings.runner[0] + "'";
  if (!p.started) return fail("protocol", "cannot start " + where + ": " + p.error);
  if (p.cancelled) return fail("cancelled", "cancelled");
  if (p.timedOut)
    return fail("timeout", "kernel " + request.plan.kernel + ": " + where + " " + p.describe() +
                               " (a kernel that never ends? the limit is --timeout)");
  if (p.truncated && p.out.size() >= spec.outputCap)
    return fail("protocol", where + " printed more than the " +
                                std::to_string(spec.outputCap >> 20) +
                                " MiB a result of this plan can need; it was stopped");
  if (std::string why = decodeResultFor(request, p.out, r); !why.empty()) {
    std::string err = text::withoutControls(p.err.substr(0, 2000), true);
    return fail("protocol", where + " " + p.describe() + " without a result (" + why + ")" +
                                (err.empty() ? "" : ":\n" + err));
  }
  return r;
}

std::optional<KernelLineProfile> lineProfile(const CompileResult& result, const std::string& kernel,
                                             const RunResult& run, std::string& problem) {
  const StageOutcome* sass = result.stage(Stage::Sass);
  if (!sass || !sass->available || !result.lineMap) {
    problem = "no SASS listing to attribute the profile to";
    return std::nullopt;
  }
  NcuSourceProfile source;
  if (std::string why = parseNcuSourceCsv(run.ncuSourceCsv, source); !why.empty()) {
    problem = why;
    return std::nullopt;
  }
  auto lines = attributeToLines(
      source, kernel, *sass->artifact,
      [&](const std::string& f) { return result.lineMap->isUserFile(f); }, problem);
  if (lines && !run.ncuMetricsCsv.empty()) {
    if (std::string why = parseNcuMetricsCsv(run.ncuMetricsCsv, lines->metrics); !why.empty())
      problem = why;
  }
  return lines;
}

}  // namespace ks::gpu
