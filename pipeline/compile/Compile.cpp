// The compile driver: one skeleton over the front ends (FrontEnd.h) and the shared back
// end (PtxBackend.h), publishing each group of stages as soon as it exists.
#include "Compile.h"

#include "Crate.h"
#include "Cuda.h"
#include "DependentCrates.h"
#include "FrontEnd.h"
#include "PtxBackend.h"
#include "TextUtil.h"
#include "Trust.h"

namespace ks {

namespace fs = std::filesystem;

ResolvedOptions resolveOptions(const CompileOptions& chosen, const CrateSettings* crate,
                               bool cudaSource) {
  ResolvedOptions r;
  static_cast<CommonCompileOptions&>(r) = chosen;
  if (chosen.arch)
    r.arch = *chosen.arch;
  else if (crate && crate->arch)
    r.arch = *crate->arch;
  if (chosen.optLevel)
    r.optLevel = *chosen.optLevel;
  else if (crate && crate->optLevel)
    r.optLevel = *crate->optLevel;
  // A profile that runs cargo runs the crate's build scripts: only for a trusted workspace.
  if (chosen.profile)
    r.profile = *chosen.profile;
  else if (crate && crate->profile &&
           (chosen.workspaceTrusted || !profileRunsCargo(*crate->profile)))
    r.profile = *crate->profile;
  if (chosen.stages)
    r.stages = *chosen.stages;
  else if (cudaSource)  // CUDA C++ has no MIR or LLVM IR
    r.stages = {Stage::Ptx, Stage::Sass};
  return r;
}

bool CompileOptions::operator==(const CompileOptions& other) const {
  auto choices = [](const CompileOptions& o) {
    return std::tie(o.extraRustcFlags, o.externCrates, o.workspaceTrusted, o.toolTimeout, o.remarks,
                    o.costs, o.occupancyBlockSize, o.saveTempsDir, o.kernelImages, o.backEndJobs,
                    o.arch, o.optLevel, o.profile, o.stages);
  };
  return choices(*this) == choices(other);
}

CompileOptions ResolvedOptions::asChosen() const {
  CompileOptions o;
  static_cast<CommonCompileOptions&>(o) = *this;
  o.arch = arch;
  o.optLevel = optLevel;
  o.profile = profile;
  o.stages = stages;
  return o;
}

const std::shared_ptr<const Artifact>& StageOutcome::emptyArtifact() {
  static const std::shared_ptr<const Artifact> empty = std::make_shared<const Artifact>();
  return empty;
}

void CompileResult::markUnavailable(const ResolvedOptions& opts, Stage s, const std::string& why) {
  if (!opts.wants(s)) return;
  auto& st = stages[s];
  st.available = false;
  st.unavailableReason = why;
}

const KernelInfo* findKernel(const CompileResult& result, std::string_view name) {
  for (const auto& k : result.kernels)
    if (namesKernel(k.symbol, k.demangled, name)) return &k;
  return nullptr;
}

const std::string* cubinOf(const CompileResult& result, const std::string& symbol) {
  auto it = result.cubins.find(symbol);
  return it == result.cubins.end() || !it->second ? nullptr : it->second.get();
}

const StageOutcome* CompileResult::stage(Stage s) const {
  auto it = stages.find(s);
  return it == stages.end() ? nullptr : &it->second;
}

void failStages(const ResolvedOptions& opts, CompileResult& result, const std::string& why) {
  for (Stage s : kAllStages)
    if (!result.stages.count(s)) result.markUnavailable(opts, s, why);
}

std::nullopt_t failCompile(const ResolvedOptions& opts, CompileResult& result,
                           const std::string& why) {
  result.diagnostics.push_back(toolError(why));
  failStages(opts, result, why);
  return std::nullopt;
}

std::nullopt_t cancelCompile(const ResolvedOptions& opts, CompileResult& result) {
  result.cancelled = true;
  failStages(opts, result, "cancelled");
  return std::nullopt;
}

namespace {

std::unique_ptr<FrontEnd> frontEndFor(const CompileInput& input, const ResolvedOptions& opts) {
  if (isCudaSource(input.path)) return cudaFrontEnd();  // the CUDA C++ twin
  if (opts.profile != ToolchainProfile::RustcNvptx)     // rust-cuda, cuda-oxide
    return profileFrontEnd(opts.profile);
  return rustcFrontEnd();
}

}  // namespace

CompileResult compileWithDefaults(const Toolchain& tc, const CompileInput& input,
                                  const CompileOptions& opts, const CancellationToken& cancel) {
  return compileKernel(tc, input, resolveOptions(opts), cancel);
}

CompileResult compileKernel(const Toolchain& tc, const CompileInput& input,
                            const ResolvedOptions& opts, const CancellationToken& cancel) {
  // A file of a crate without kernels: what the kernel crates that use it made of it.
  if (opts.profile == ToolchainProfile::RustcNvptx)
    if (auto users = kernelCratesUsing(tc, input); !users.empty()) {
      std::vector<CompileResult> results;
      ResolvedOptions each = opts;
      if (users.size() > 1) each.onStages = nullptr;  // only the merged result is whole
      CompileInput viaUser{{}, std::nullopt, input.overlays};
      if (input.text) viaUser.overlays[input.path] = *input.text;
      for (const auto& root : users) {
        viaUser.path = root;
        results.push_back(compileKernel(tc, viaUser, each, cancel));
      }
      return mergeCompileResults(std::move(results));
    }
  auto started = std::chrono::steady_clock::now();
  CompileResult result;
  result.arch = opts.arch;
  result.optLevel = opts.optLevel;
  result.profile = opts.profile;
  auto finish = [&]() -> CompileResult& {
    result.totalTime = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - started);
    return result;
  };
  std::unique_ptr<FrontEnd> frontEnd = frontEndFor(input, opts);
  for (Stage s : kAllStages)
    if (auto why = frontEnd->neverProduces(s)) result.markUnavailable(opts, s, *why);
  if (auto bad = validateArch(opts.arch)) {
    result.diagnostics.push_back(toolError(*bad));
    failStages(opts, result, *bad);
    return finish();
  }

  TempDir work("kernelscope-" + std::string(frontEnd->name()));
  fs::path out = work.path() / "out";
  fs::create_directories(out);
  std::optional<FrontEndOutput> code =
      frontEnd->compile(tc, input, opts, cancel, work.path(), out, result);
  if (!code) return finish();
  kernelTable(*code, opts, result);
  // What comes after the front end, published stage by stage: a user reads the PTX while
  // its exact chains are completed and ptxas and nvdisasm run.
  const bool assembles = (opts.wants(Stage::Ptx) || opts.wants(Stage::Sass)) && tc.ptxas.found();
  const bool disassembles = assembles && opts.wants(Stage::Sass) && tc.nvdisasm.found();
  auto publish = [&](std::vector<std::string> pending) {
    if (!opts.onStages || pending.empty() || cancel.cancelled()) return;
    auto partial = std::make_shared<CompileResult>(result);
    partial->pending = std::move(pending);
    partial->totalTime = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - started);
    opts.onStages(std::move(partial));
  };
  std::vector<std::string> coming;
  if (assembles) coming.push_back("resources");
  if (disassembles) coming.push_back("sass");
  publish(coming);
  // ptxas and nvdisasm run on their own thread while the front end completes the chains.
  BackEndTools tools(tc, opts, cancel, *code, out);
  frontEnd->afterFirstView(*code, opts, result);  // comes with the resources
  std::optional<Assembled> assembled = assemble(tc, opts, tools, *code, result);
  if (assembled && assembled->sassToCome && disassembles) publish({"sass"});
  if (!assembled || !disassemble(tc, opts, tools, *code, *assembled, result))
    result.cancelled = true;
  frontEnd->complete(input, opts, result);
  return finish();
}

}  // namespace ks
