// kernelscope/run and kernelscope/profile: the jobs and the profiles shown. See GpuRuns.h.
#include "GpuRuns.h"

namespace ks::server {

const gpu::LineCounters* ShownProfile::at(uint32_t line) const {
  for (const auto& l : lines.lines)
    if (l.line == line && l.file == path) return &l;
  return nullptr;
}

const gpu::LineDelta* ShownProfile::deltaAt(uint32_t line) const {
  for (const auto& d : deltas)
    if (d.line == line) return &d;
  return nullptr;
}

std::shared_ptr<const ShownProfile> ShownProfile::of(std::string path, std::string text,
                                                     gpu::GpuOutcome& outcome) {
  auto shown = std::make_shared<ShownProfile>();
  shown->path = std::move(path);
  shown->text = std::move(text);
  shown->lines = std::move(*outcome.lines);
  shown->compile = std::move(outcome.compile);
  shown->device = outcome.run.device.describe();
  if (outcome.deltas) shown->deltas = std::move(*outcome.deltas);
  shown->since = outcome.since;
  return shown;
}

GpuRuns::GpuRuns(GpuFunction run, PostFunction post, bool runInline)
    : run_(std::move(run)), jobs_(std::move(post), runInline) {}

void GpuRuns::start(const std::string& requestId, GpuJob job, GpuProgress progress, Reply reply) {
  // Progress travels to the io thread; after the server is gone it is dropped.
  GpuProgress posted = [toIo = jobs_.toIoThread(), progress](const std::string& message) {
    toIo([progress, message] { progress(message); });
  };
  jobs_.start<gpu::GpuOutcome>(
      requestId,
      [run = run_, job = std::move(job), posted](const CancellationToken& token) {
        return run(job, posted, token);
      },
      std::move(reply));
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

}  // namespace ks::server
