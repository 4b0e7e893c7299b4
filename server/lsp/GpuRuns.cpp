// kernelscope/run and kernelscope/profile: the jobs, the real job and the requests. See
// GpuRuns.h.
#include "GpuRuns.h"

#include "GpuFeatures.h"
#include "GpuResults.h"
#include "LspServer.h"
#include "Runner.h"
#include "Trust.h"
#include "Uri.h"

namespace ks::server {

using lsp::ErrorCode;
using nlohmann::json;

const gpu::LineCounters* ShownProfile::at(uint32_t line) const {
  for (const auto& l : lines.lines)
    if (l.line == line && l.file == path) return &l;
  return nullptr;
}

// --- The real job

GpuOutcome runGpuJob(Engine& engine, const GpuJob& job, const GpuProgress& progress,
                     const CancellationToken& cancel) {
  gpu::GpuOutcome o = gpu::runOnGpu(engine, job, progress, cancel);
  GpuOutcome out;
  if (o.cancelled) {
    out.cancelled = true;
    return out;
  }
  if (!o.ok()) {
    // gpu-exec says what to do in the CLI's words (kNoDriverHint); the server's reply says
    // it in the editor's (runnerHintFor).
    out.error = o.message();
    return out;
  }
  if (!job.profile) {
    out.result = runResultOf(job.input.path, *o.plan, o.run);
    return out;
  }
  out.result = profileResultOf(job.input.path, *o.lines, o.run.device, *o.plan);
  auto shown = std::make_shared<ShownProfile>();
  shown->path = job.input.path.string();
  shown->text = job.input.text.value_or("");
  shown->lines = std::move(*o.lines);
  shown->compile = std::move(o.compile);
  shown->device = o.run.device.describe();
  out.shown = std::move(shown);
  return out;
}

// --- The jobs

struct GpuRuns::Shared {
  bool alive = true;  // read and written on the io thread only
};

GpuRuns::GpuRuns(GpuFunction run, PostFunction post, bool runInline)
    : run_(std::move(run)),
      post_(std::move(post)),
      runInline_(runInline),
      shared_(std::make_shared<Shared>()) {}

GpuRuns::~GpuRuns() {
  shared_->alive = false;
  for (auto& [id, job] : jobs_) job.token.cancel();
}

void GpuRuns::start(const std::string& requestId, GpuJob job, GpuProgress progress, Reply reply) {
  Job& j = jobs_[requestId];
  j.reply = std::move(reply);
  if (runInline_) {
    finish(requestId, run_(job, progress, j.token));
    return;
  }
  // Progress and the outcome travel to the io thread; after the server is gone they are
  // dropped.
  auto shared = shared_;
  auto post = post_;
  GpuProgress posted = [post, shared, progress](const std::string& message) {
    post([shared, progress, message] {
      if (shared->alive) progress(message);
    });
  };
  runner_.run(
      [this, requestId, job = std::move(job), posted, token = j.token, shared, post, run = run_] {
        auto outcome = std::make_shared<GpuOutcome>(run(job, posted, token));
        post([this, requestId, outcome, shared] {
          if (shared->alive) finish(requestId, std::move(*outcome));
        });
      });
}

void GpuRuns::finish(const std::string& requestId, GpuOutcome outcome) {
  auto it = jobs_.find(requestId);
  if (it == jobs_.end()) return;  // cancelled and answered already
  Reply reply = std::move(it->second.reply);
  jobs_.erase(it);
  reply(std::move(outcome));
}

bool GpuRuns::cancel(const std::string& requestId) {
  auto it = jobs_.find(requestId);
  if (it == jobs_.end()) return false;
  // The reply waits for the job to end: its processes are dead and its folders removed
  // before the client hears "cancelled".
  it->second.token.cancel();
  return true;
}

std::shared_ptr<const ShownProfile> GpuRuns::shown(const std::string& uri,
                                                   const std::string& text) const {
  auto it = shown_.find(uri);
  if (it == shown_.end() || it->second->text != text) return nullptr;
  return it->second;
}

void GpuRuns::show(const std::string& uri, std::shared_ptr<const ShownProfile> profile) {
  shown_[uri] = std::move(profile);
}

bool GpuRuns::dropIfStale(const std::string& uri, const std::string& text) {
  auto it = shown_.find(uri);
  if (it == shown_.end() || it->second->text == text) return false;
  shown_.erase(it);
  return true;
}

// --- The requests

void LspServer::onRun(const lsp::GpuRunParams& p, Callback<json> reply) {
  startGpuJob(p, /*profile=*/false, std::move(reply));
}

void LspServer::onProfile(const lsp::GpuRunParams& p, Callback<json> reply) {
  startGpuJob(p, /*profile=*/true, std::move(reply));
}

void LspServer::startGpuJob(const lsp::GpuRunParams& p, bool profile, Callback<json> reply) {
  const char* method = profile ? "kernelscope/profile" : "kernelscope/run";
  if (!options_.gpu)
    return reply(lsp::ResponseError{
        ErrorCode::RequestFailed, std::string("this server cannot run kernels (") + method + ")"});
  if (p.kernel.empty())
    return reply(
        lsp::ResponseError{ErrorCode::InvalidParams, std::string(method) + " needs a kernel"});
  Document* d = workspace_.find(p.textDocument.uri);
  if (!d)
    return reply(lsp::ResponseError{ErrorCode::InvalidParams,
                                    "unknown document " + p.textDocument.uri + " (open it first)"});
  GpuJob job;
  job.profile = profile;
  job.kernel = p.kernel;
  job.input.path = d->path;
  job.input.text = d->text;
  for (Document* o : workspace_.documents())
    if (o->path != d->path && o->path.ends_with(".rs")) {
      job.input.overlays[o->path] = o->text;
      job.launch.unsavedText[o->path] = o->text;
    }
  job.launch.unsavedText[d->path] = d->text;
  job.options = settings_.compileOptions();
  job.launch.specItems = p.spec;
  job.launch.specOrigin = std::string(method) + " spec";
  if (p.runs) job.launch.runs = *p.runs;
  job.launch.ncu = settings_.ncu;
  if (std::string why = gpu::splitRunner(settings_.gpuRunner, job.launch.runner); !why.empty())
    return reply(lsp::ResponseError{ErrorCode::InvalidParams, "gpuRunner: " + why});

  // Progress goes to the client's token, else to one of ours when the client takes them.
  const bool clientToken = !p.workDoneToken.is_null();
  const std::string token = clientToken
                                ? (p.workDoneToken.is_string() ? p.workDoneToken.get<std::string>()
                                                               : p.workDoneToken.dump())
                                : std::string(method) + "/" + currentId_.dump();
  auto report = [this, clientToken, token, tokenJson = p.workDoneToken](
                    std::string_view kind, const std::string& message) {
    if (!clientToken) return progress(token, kind, message);
    json value = {{"kind", kind}, {"message", message}};
    if (kind == "begin") value["title"] = "kernelscope", value["cancellable"] = true;
    notify("$/progress", {{"token", tokenJson}, {"value", value}});
  };
  report("begin", profile ? "profiling " + p.kernel : "running " + p.kernel);
  if (!gpu_)
    gpu_ = std::make_unique<GpuRuns>(
        options_.gpu, [this](std::function<void()> fn) { transport_.post(std::move(fn)); },
        options_.scheduler.workers == 0);
  const std::string uri = d->uri;
  gpu_->start(
      currentId_.dump(), std::move(job),
      [report](const std::string& message) { report("report", message); },
      [this, report, reply, uri, filters = p.filters, alive = alive_](GpuOutcome outcome) {
        if (!*alive) return;
        if (outcome.cancelled) {
          report("end", "cancelled");
          return reply(lsp::ResponseError{ErrorCode::RequestCancelled, "cancelled"});
        }
        if (!outcome.error.empty()) {
          report("end", "failed");
          if (size_t at = outcome.error.find(gpu::kNoDriverHint); at != std::string::npos)
            outcome.error.replace(at, std::string_view(gpu::kNoDriverHint).size(), runnerHint_);
          return reply(lsp::ResponseError{ErrorCode::RequestFailed, outcome.error});
        }
        report("end", "done");
        if (outcome.shown) {
          Document* doc = workspace_.find(uri);
          const bool current = doc && doc->text == outcome.shown->text;
          outcome.result["editor"] = profileEditorJson(*outcome.shown, uri, current,
                                                       filters.value_or(lsp::ArtifactFilters{}));
          if (current) {
            gpu_->show(uri, outcome.shown);
            if (client_.inlayHintRefresh) request("workspace/inlayHint/refresh", nullptr);
          }
        }
        reply(std::move(outcome.result));
      });
}

std::shared_ptr<const ShownProfile> LspServer::shownProfile(const Document& d) const {
  return gpu_ ? gpu_->shown(d.uri, d.text) : nullptr;
}

void LspServer::insertLaunchSpec(const json& args, Callback<json> reply) {
  const json a = args.is_array() && !args.empty() ? args[0] : json();
  if (!a.is_object() || !a.contains("uri") || !a["uri"].is_string() || !a.contains("kernel") ||
      !a["kernel"].is_string())
    return reply(lsp::ResponseError{ErrorCode::InvalidParams,
                                    "kernelscope.insertLaunchSpec takes {uri, kernel}"});
  const std::string uri = a["uri"].get<std::string>();
  auto s = snapshotFor(uri);
  if (!s) return reply(s.error());
  if (s->second->text != s->first->text)
    return reply(lsp::ResponseError{ErrorCode::ContentModified,
                                    "the document changed since it compiled; try again"});
  std::string problem;
  auto ins = specInsertion(*s->second, a["kernel"].get<std::string>(), encoding_, problem);
  if (!ins) return reply(lsp::ResponseError{ErrorCode::InvalidParams, problem});
  json edit = {{"range", {{"start", ins->at}, {"end", ins->at}}}, {"newText", ins->text}};
  request("workspace/applyEdit",
          {{"label", "Add launch spec"}, {"edit", {{"changes", {{uri, json::array({edit})}}}}}});
  reply(json(nullptr));
}

}  // namespace ks::server
