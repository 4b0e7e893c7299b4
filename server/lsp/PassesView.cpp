// kernelscope/passes: the request, its cache of runs per Snapshot and kernel, and the
// conversion of the pipeline's pass list to the wire. See PassesView.h.
#include "PassesView.h"

#include <filesystem>

#include "Features.h"
#include "LspServer.h"
#include "Uri.h"

namespace ks::server {

using lsp::ErrorCode;

namespace {

/// The document's file as its reader knows it: from its crate's folder (`kern/src/lib.rs`),
/// or by its name when it compiles on its own.
std::string shownPath(const Snapshot& s) {
  const std::filesystem::path file(s.path);
  if (s.result->crateManifest.empty()) return file.filename().string();
  const std::filesystem::path crate = s.result->crateManifest.parent_path();
  const std::filesystem::path inCrate = file.lexically_relative(crate);
  if (inCrate.empty() || *inCrate.begin() == "..") return file.filename().string();
  return (crate.filename() / inCrate).string();
}

}  // namespace

lsp::PassesResult passesReplyOf(const Snapshot& s, const PassesResult& r,
                                std::optional<Stage> only) {
  lsp::PassesResult out;
  out.uri = lsp::makePassesUri(s.path, r.demangled);
  out.kernel = r.demangled;
  out.revision = s.revision;
  PassesResult shown = r;
  if (only) std::erase_if(shown.stages, [&](const StagePasses& sp) { return sp.stage != *only; });
  out.text =
      renderPasses(shown, passesTitle(shown, shownPath(s), s.result->arch, s.result->optLevel));
  for (const StagePasses& sp : shown.stages)
    for (const PassChange& c : sp.changes)
      out.passes.push_back(lsp::PassInfo{std::string(stageName(sp.stage)), c.pass, c.unit,
                                         static_cast<int>(c.before), static_cast<int>(c.after),
                                         c.diff});
  return out;
}

// --- The cache

struct PassesCache::Shared {
  bool alive = true;  // read and written on the io thread only
};

PassesCache::PassesCache(PassesFunction compute, PostFunction post, bool runInline)
    : compute_(std::move(compute)),
      post_(std::move(post)),
      runInline_(runInline),
      shared_(std::make_shared<Shared>()) {}

PassesCache::~PassesCache() {
  shared_->alive = false;
  for (auto& [key, e] : entries_) e->token.cancel();
}

void PassesCache::prune() {
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (it->second->snapshot.expired()) {
      it->second->token.cancel();
      for (auto& [id, reply] : it->second->waiting) reply(nullptr);
      it = entries_.erase(it);
    } else {
      ++it;
    }
  }
}

void PassesCache::get(const std::shared_ptr<const Snapshot>& snapshot, const CompileInput& input,
                      const CompileOptions& options, const std::string& kernel,
                      const std::string& requestId, Reply reply) {
  prune();
  const Key key{snapshot.get(), kernel};
  auto& entry = entries_[key];
  if (entry && entry->result) return reply(entry->result.get());
  const bool start = !entry;
  if (start) {
    entry = std::make_shared<Entry>();
    entry->snapshot = snapshot;
  }
  entry->waiting.emplace_back(requestId, std::move(reply));
  if (!start) return;  // a run for it is in flight already
  if (runInline_) {
    finish(key, entry,
           std::make_shared<const PassesResult>(compute_(input, options, kernel, entry->token)));
    return;
  }
  runs_.run([this, key, input, options, kernel, token = entry->token, run = entry, shared = shared_,
             compute = compute_, post = post_] {
    auto result = std::make_shared<const PassesResult>(compute(input, options, kernel, token));
    post([this, key, run, result, shared] {
      if (shared->alive) finish(key, run, result);
    });
  });
}

void PassesCache::finish(const Key& key, const std::shared_ptr<Entry>& run,
                         std::shared_ptr<const PassesResult> result) {
  auto it = entries_.find(key);
  if (it == entries_.end() || it->second != run) return;  // pruned, or cancelled and started again
  std::shared_ptr<Entry> e = it->second;
  auto waiting = std::move(e->waiting);
  e->waiting.clear();
  if (result->cancelled) {
    entries_.erase(it);  // not a result: the next request runs it again
  } else {
    e->result = result;
  }
  for (auto& [id, reply] : waiting) reply(result->cancelled ? nullptr : result.get());
}

bool PassesCache::cancel(const std::string& requestId) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    auto& waiting = it->second->waiting;
    for (auto w = waiting.begin(); w != waiting.end(); ++w) {
      if (w->first != requestId) continue;
      Reply reply = std::move(w->second);
      waiting.erase(w);
      if (waiting.empty() && !it->second->result) {  // nobody waits: stop its rustc
        it->second->token.cancel();
        entries_.erase(it);
      }
      reply(nullptr);
      return true;
    }
  }
  return false;
}

// --- The request

void LspServer::onPasses(const lsp::PassesParams& p, Callback<lsp::PassesResult> reply) {
  if (!options_.passes)
    return reply(lsp::ResponseError{ErrorCode::RequestFailed,
                                    "this server cannot run the compiler's passes"});
  std::optional<Stage> only;
  if (p.stage) {
    only = stageOfName(*p.stage);
    if (!only || (*only != Stage::LlvmIr && *only != Stage::Mir))
      return reply(lsp::ResponseError{
          ErrorCode::InvalidParams, "passes are shown for llvm-ir or mir, not '" + *p.stage + "'"});
  }
  const std::string uri = p.uri ? *p.uri : p.textDocument ? p.textDocument->uri : std::string();
  if (uri.empty())
    return reply(lsp::ResponseError{ErrorCode::InvalidParams,
                                    "kernelscope/passes needs textDocument or uri"});
  std::optional<std::string> kernel = p.kernel;
  std::string sourceUri = uri;
  if (uri.starts_with(
          "kernelscope:")) {  // kernelscope:/passes/<path>.passes?kernel=NAME names both
    auto v = lsp::parsePassesUri(uri);
    Document* d = v ? workspace_.findByPath(normalizePath(v->path)) : nullptr;
    if (!d)
      return reply(lsp::ResponseError{
          ErrorCode::InvalidParams,
          "no open kernel for " + uri + ": virtual documents name only what kernelscope compiled"});
    sourceUri = d->uri;
    if (!kernel) kernel = v->kernel;
  }
  if (!kernel || kernel->empty())
    return reply(lsp::ResponseError{ErrorCode::InvalidParams, "kernelscope/passes needs a kernel"});
  auto s = snapshotFor(sourceUri);
  if (!s) return reply(s.error());
  std::shared_ptr<const Snapshot> snapshot = s->second;

  // The kernel as the compile knows it: its symbol, demangled path, or last segment.
  const KernelInfo* found = findKernel(*snapshot->result, *kernel);
  std::string names;
  for (const KernelInfo& k : snapshot->result->kernels)
    names += (names.empty() ? "" : ", ") + k.demangled;
  if (!found)
    return reply(lsp::ResponseError{
        ErrorCode::InvalidParams,
        "unknown kernel '" + *kernel + "'" +
            (names.empty() ? ": the document has no kernels" : " (kernels: " + names + ")")});

  // What the document's compile compiled: its text, the other open files' unsaved text.
  CompileInput input;
  input.path = snapshot->path;
  input.text = snapshot->text;
  for (Document* o : workspace_.documents())
    if (o->path != snapshot->path && o->path.ends_with(".rs")) input.overlays[o->path] = o->text;
  CompileOptions options = settings_.compileOptions();
  options.remarks = false;

  if (!passes_)
    passes_ = std::make_unique<PassesCache>(
        options_.passes, [this](std::function<void()> fn) { transport_.post(std::move(fn)); },
        options_.scheduler.workers == 0);
  passes_->get(snapshot, input, options, found->symbol, currentId_.dump(),
               [reply, snapshot, only, alive = alive_](const PassesResult* r) {
                 if (!*alive) return;
                 if (!r) return reply(lsp::ResponseError{ErrorCode::RequestCancelled, "cancelled"});
                 if (!r->error.empty())
                   return reply(lsp::ResponseError{ErrorCode::RequestFailed, r->error});
                 reply(passesReplyOf(*snapshot, *r, only));
               });
}

}  // namespace ks::server
