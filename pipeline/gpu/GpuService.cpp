#include "GpuService.h"

#include <atomic>
#include <fstream>
#include <map>
#include <thread>

#include "Files.h"
#include "Runner.h"
#include "TextUtil.h"

namespace ks::gpu {

namespace fs = std::filesystem;

namespace {

/// The text of `file` as the request sees it: its unsaved text, else the disk.
std::string documentText(const GpuRequest& req, const std::string& file) {
  if (file == req.input.path.string() && req.input.text) return *req.input.text;
  if (auto it = req.input.overlays.find(file); it != req.input.overlays.end()) return it->second;
  return readRegularFile(file).text;
}

/// Each profiled line's source text.
void fillLineTexts(const GpuRequest& req, KernelLineProfile& lp) {
  std::map<std::string, std::pair<std::string, std::vector<std::string_view>>> files;
  for (auto& l : lp.lines) {
    if (l.line == 0) continue;
    auto [it, fresh] = files.try_emplace(l.file);
    if (fresh) {
      it->second.first = documentText(req, l.file);
      it->second.second = splitLines(it->second.first);
    }
    const auto& lines = it->second.second;
    if (l.line <= lines.size()) l.text = std::string(text::trim(lines[l.line - 1]));
  }
}

/// Where the launch runs, for progress messages.
std::string where(const LaunchSettings& s) {
  if (s.runner.empty()) return "this machine";
  std::string r;
  for (const auto& w : s.runner) r += (r.empty() ? "" : " ") + w;
  return "'" + r + "'";
}

/// The baseline `req` names, read before this profile is kept; nullopt with `problem` when
/// there is none (and no problem when an optional "last" is not kept yet).
std::optional<ProfileSnapshot> readBaseline(const fs::path& cacheDir, const GpuRequest& req,
                                            const ProfileSnapshot& now, std::string& problem) {
  const bool last = req.baseline == "last";
  const fs::path path = last ? keptProfilePath(cacheDir, now) : fs::path(req.baseline);
  FileText text = readRegularFile(path, size_t(64) << 20);
  if (!text.ok()) {
    if (last && req.baselineOptional && !fs::exists(path)) return std::nullopt;
    problem = last ? "no earlier profile of " + now.kernel +
                         " with this spec (each profile is kept for the next)"
                   : req.baseline + ": " + text.error;
    return std::nullopt;
  }
  ProfileSnapshot before;
  if (std::string why = decodeSnapshot(text.text, before); !why.empty()) {
    problem = path.string() + ": " + why;
    return std::nullopt;
  }
  return before;
}

/// Keeps the profile in `out` and compares it with the request's baseline.
void keepAndCompare(const fs::path& cacheDir, const GpuRequest& req, GpuOutcome& out) {
  const std::string file = req.input.path.string();
  std::string spec;
  for (const auto& item : out.spec.items) spec += item.key + " = " + item.value + "; ";
  out.snapshot = snapshotOf(*out.lines, file, documentText(req, file), spec);
  std::optional<ProfileSnapshot> before;
  if (!req.baseline.empty())
    before = readBaseline(cacheDir, req, *out.snapshot, out.baselineProblem);
  if (std::string why = keepProfile(cacheDir, *out.snapshot); !why.empty())
    out.notes.push_back("the profile is not kept: " + why);
  if (!before) return;
  out.deltas = compareProfiles(*before, *out.snapshot);
  out.since = req.baseline == "last" ? "last profile" : "baseline";
}

}  // namespace

std::string GpuOutcome::message() const {
  std::string s;
  for (const auto& d : details) s += (s.empty() ? "" : "\n") + d;
  if (!error.empty()) s += (s.empty() ? "" : "\n") + error;
  return s;
}

GpuOutcome runOnGpu(Engine& engine, const GpuRequest& req, const GpuProgress& progress,
                    const CancellationToken& cancel) {
  auto say = [&](const std::string& m) {
    if (progress) progress(m);
  };
  GpuOutcome out;
  say("compiling " + req.input.path.filename().string());
  LaunchCompile c = compileForLaunch(engine, req.input, req.options, req.kernel, cancel);
  if (cancel.cancelled() || c.problem == "cancelled") {
    out.cancelled = true;
    return out;
  }
  out.kernel = c.kernel;
  if (!c.problem.empty()) {
    out.details = c.errors;
    out.error = c.problem;
    return out;
  }
  const auto mode = req.profile ? ExecRequest::Mode::Profile : ExecRequest::Mode::Run;
  PreparedLaunch prepared =
      prepareLaunch(engine.toolchain(), c.result, c.cubin, c.kernel, req.launch, mode);
  out.notes = prepared.notes;
  out.spec = prepared.spec;
  if (!prepared.request) {
    out.details = prepared.errors;
    return out;
  }
  out.plan = prepared.request->plan;
  if (!req.saveRequest.empty()) {
    std::ofstream(req.saveRequest, std::ios::binary) << encodeRequest(*prepared.request);
    out.requestSaved = true;
    return out;
  }
  if (!req.replay.empty()) {
    FileText recorded = readRegularFile(req.replay, resultSizeLimit(*prepared.request));
    if (!recorded.ok()) return out.error = req.replay.string() + ": " + recorded.error, out;
    if (std::string why = decodeResultFor(*prepared.request, recorded.text, out.run); !why.empty())
      return out.error = req.replay.string() + ": " + why, out;
  } else {
    say(req.profile ? "profiling " + c.kernel + " with ncu on " + where(req.launch)
                    : "launching " + c.kernel + " on " + where(req.launch));
    out.run = runGpuExec(*prepared.request, req.launch, cancel);
  }
  if (cancel.cancelled() || out.run.errorKind == "cancelled") {
    out.cancelled = true;
    return out;
  }
  if (!out.run.ok) return out.error = out.run.error, out;
  if (req.profile) {
    say("attributing the counters to source lines");
    std::string problem;
    out.lines = lineProfile(c.result, c.kernel, out.run, problem);
    if (!out.lines) return out.error = problem, out;
    if (!problem.empty()) out.notes.push_back(problem);
    fillLineTexts(req, *out.lines);
    keepAndCompare(engine.toolchain().cacheDir, req, out);
  }
  out.compile = std::make_shared<const CompileResult>(std::move(c.result));
  return out;
}

SpecifiedKernels kernelsWithSpecs(Engine& engine, const CompileInput& input,
                                  const CompileOptions& options, const CancellationToken& cancel) {
  SpecifiedKernels out;
  // The compile a launch makes (the engine keeps it for the launches that follow).
  LaunchCompile c = compileForLaunch(engine, input, options, "", cancel);
  if (c.problem == "cancelled") return out.problem = c.problem, out;
  if (c.result.kernels.empty()) {
    out.details = c.errors;
    out.problem = c.problem;
    return out;
  }
  out.kernels = kernelsWithWrittenSpecs(engine.toolchain(), c.result, input);
  if (out.kernels.empty())
    out.problem = input.path.filename().string() + " has no kernel with a launch spec";
  return out;
}

std::vector<GpuOutcome> runKernelsOnGpu(Engine& engine, const GpuRequest& req,
                                        const std::vector<std::string>& kernels, size_t parallel,
                                        const GpuProgress& progress,
                                        const CancellationToken& cancel) {
  std::vector<GpuOutcome> out(kernels.size());
  forEachAtOnce(kernels.size(), parallel, [&](size_t i) {
    if (cancel.cancelled()) return void(out[i].cancelled = true);
    GpuRequest one = req;
    one.kernel = kernels[i];
    out[i] = runOnGpu(engine, one, progress, cancel);
  });
  return out;
}

void forEachAtOnce(size_t total, size_t parallel, const std::function<void(size_t)>& each) {
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next++) < total;) each(i);
  };
  std::vector<std::thread> threads;
  for (size_t t = 1; t < std::min(std::max<size_t>(parallel, 1), total); ++t)
    threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
}

}  // namespace ks::gpu
