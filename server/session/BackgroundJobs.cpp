// BackgroundJobs: jobs off the io thread, their outcomes posted back. See BackgroundJobs.h.
#include "BackgroundJobs.h"

namespace ks::server {

BackgroundJobs::BackgroundJobs(PostFunction post, bool runInline)
    : post_(std::move(post)), runInline_(runInline) {}

BackgroundJobs::~BackgroundJobs() {
  shared_->alive = false;
  for (auto& [id, job] : jobs_) job.token.cancel();
}

void BackgroundJobs::startJob(const std::string& id,
                              std::function<Completion(const CancellationToken&)> work) {
  Job& job = jobs_[id];
  job.token = CancellationToken();
  job.serial = ++started_;
  if (runInline_) {
    finish(id, job.serial, work(job.token));
    return;
  }
  runner_.run([this, id, serial = job.serial, token = job.token, work = std::move(work),
               shared = shared_, post = post_] {
    Completion done = work(token);
    post([this, id, serial, done = std::move(done), shared] {
      if (shared->alive) finish(id, serial, done);
    });
  });
}

void BackgroundJobs::finish(const std::string& id, uint64_t serial, const Completion& done) {
  if (auto it = jobs_.find(id); it != jobs_.end() && it->second.serial == serial) jobs_.erase(it);
  done();
}

bool BackgroundJobs::cancel(const std::string& id) {
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return false;
  it->second.token.cancel();
  return true;
}

PostFunction BackgroundJobs::toIoThread() const {
  if (runInline_) return [](std::function<void()> fn) { fn(); };
  return [post = post_, shared = shared_](std::function<void()> fn) {
    post([shared, fn = std::move(fn)] {
      if (shared->alive) fn();
    });
  };
}

}  // namespace ks::server
