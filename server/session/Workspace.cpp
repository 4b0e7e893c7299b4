// Workspace: documents, revisions and Snapshot history.
#include "Workspace.h"

#include <algorithm>

#include "LineMap.h"

namespace ks::server {

namespace {

/// What a parked Snapshot's result keeps (Snapshot::parked), none of its code.
std::shared_ptr<const CompileResult> withoutCode(const CompileResult& r) {
  auto light = std::make_shared<CompileResult>();
  light->succeeded = r.succeeded;
  light->diagnostics = r.diagnostics;
  light->kernels = r.kernels;
  if (r.lineMap) light->lineMap = std::make_shared<LineMap>(r.lineMap->userFiles());
  light->sourceFiles = r.sourceFiles;
  light->crateManifest = r.crateManifest;
  light->arch = r.arch;
  light->optLevel = r.optLevel;
  light->profile = r.profile;
  light->totalTime = r.totalTime;
  light->toolTime = r.toolTime;
  light->failure = r.failure;
  return light;
}

}  // namespace

bool Workspace::use(Document& d, std::chrono::steady_clock::time_point now) {
  d.lastUsed = now;
  return d.snapshots.empty() || unparked(d, d.snapshots.back());
}

std::shared_ptr<const Snapshot> Workspace::unparked(Document& d,
                                                    std::shared_ptr<const Snapshot> s) {
  if (!s || !s->parked) return s;
  auto it = std::find(d.snapshots.begin(), d.snapshots.end(), s);
  auto result = s->parked->unpark();
  if (!result) {  // damaged: dropped
    if (it != d.snapshots.end()) d.snapshots.erase(it);
    if (d.lastAttempt == s) d.lastAttempt = nullptr;
    return nullptr;
  }
  auto live = std::make_shared<Snapshot>(*s);
  live->result = std::move(result);
  live->parked = nullptr;
  if (it != d.snapshots.end()) *it = live;
  if (d.lastAttempt == s) d.lastAttempt = live;
  return live;
}

std::set<const CompileResult*> Workspace::resultsInUse(std::chrono::steady_clock::time_point now,
                                                       std::chrono::milliseconds idleFor) const {
  std::set<const CompileResult*> inUse;
  for (const auto& [uri, d] : documents_)
    if (now - d.lastUsed < idleFor && !d.snapshots.empty())
      inUse.insert(d.snapshots.back()->result.get());
  return inUse;
}

std::vector<std::shared_ptr<const CompileResult>> Workspace::toPark(
    std::chrono::steady_clock::time_point now, std::chrono::milliseconds idleFor) {
  const auto inUse = resultsInUse(now, idleFor);
  std::vector<std::shared_ptr<const CompileResult>> out;
  for (const auto& [uri, d] : documents_)
    for (const auto& s : d.snapshots) {
      const CompileResult& r = *s->result;
      if (s->parked || !ParkedResult::parkable(r) || inUse.count(&r) || !parking_.insert(&r).second)
        continue;
      out.push_back(s->result);
    }
  return out;
}

void Workspace::parked(const std::shared_ptr<const CompileResult>& result,
                       std::shared_ptr<const ParkedResult> parked,
                       std::chrono::steady_clock::time_point now,
                       std::chrono::milliseconds idleFor) {
  parking_.erase(result.get());
  if (!parked || resultsInUse(now, idleFor).count(result.get())) return;
  std::shared_ptr<const CompileResult> light;
  for (auto& [uri, d] : documents_)
    for (auto& s : d.snapshots) {
      if (s->result != result) continue;
      if (!light) light = withoutCode(*result);
      auto p = std::make_shared<Snapshot>(*s);
      p->result = light;
      p->parked = parked;
      p->bytes = parked->bytes();
      if (d.lastAttempt == s) d.lastAttempt = p;
      s = std::move(p);
    }
}

Document& Workspace::open(std::string uri, std::string path, std::string languageId, int version,
                          std::string text) {
  Document& d = documents_[uri];
  if (!d.path.empty() && d.path != path) forgetPath(d);
  d.uri = std::move(uri);
  d.path = std::move(path);
  uris_[d.path].insert(d.uri);
  d.languageId = std::move(languageId);
  d.version = version;
  use(d);
  d.text = std::move(text);
  d.revision = ++lastRevision_[d.path];
  d.generation = ++generation_;
  return d;
}

int Workspace::bump(Document& d) {
  d.generation = ++generation_;
  return d.revision = ++lastRevision_[d.path];
}

void Workspace::forgetPath(const Document& d) {
  auto it = uris_.find(d.path);
  if (it == uris_.end()) return;
  it->second.erase(d.uri);
  if (it->second.empty()) uris_.erase(it);
}

void Workspace::close(const std::string& uri) {
  auto it = documents_.find(uri);
  if (it == documents_.end()) return;
  forgetPath(it->second);
  documents_.erase(it);
  ++generation_;
}

Document* Workspace::find(const std::string& uri) {
  auto it = documents_.find(uri);
  return it == documents_.end() ? nullptr : &it->second;
}

Document* Workspace::findByPath(const std::string& path) {
  auto it = uris_.find(path);
  return it == uris_.end() ? nullptr : &documents_.at(*it->second.begin());  // the first by uri
}

std::vector<Document*> Workspace::documents() {
  std::vector<Document*> out;
  for (auto& [uri, d] : documents_) out.push_back(&d);
  return out;
}

bool Workspace::record(const std::string& path, std::shared_ptr<const Snapshot> snapshot) {
  Document* d = findByPath(path);
  if (!d) return false;
  // An outcome older than the newest one recorded is stale (workers may finish out of order).
  if (d->lastAttempt && d->lastAttempt->revision > snapshot->revision) return false;
  d->lastAttempt = snapshot;
  if (snapshot->result && snapshot->result->succeeded) {
    // The same revision compiled again (a crate compile that another file joined): the
    // newer outcome replaces it.
    if (!d->snapshots.empty() && d->snapshots.back()->revision == snapshot->revision)
      d->snapshots.pop_back();
    d->snapshots.push_back(std::move(snapshot));
    prune(*d);
  }
  return true;
}

void Workspace::prune(Document& d) {
  while (d.snapshots.size() > kKeptSnapshots) d.snapshots.pop_front();
  const auto newest = d.snapshots.back();
  const auto sameTarget = beforeForSameTarget(d, *newest);
  size_t bytes = 0;
  for (const auto& s : d.snapshots) bytes += s->bytes;
  // Oldest first; the newest two and the previous save for the newest's target stay.
  for (size_t i = 0; bytes > kKeptSnapshotBytes && i + 2 < d.snapshots.size();) {
    if (d.snapshots[i] == sameTarget) {
      ++i;
      continue;
    }
    bytes -= d.snapshots[i]->bytes;
    d.snapshots.erase(d.snapshots.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

std::shared_ptr<const Snapshot> Workspace::latest(const Document& d) {
  return d.snapshots.empty() ? nullptr : d.snapshots.back();
}

std::shared_ptr<const Snapshot> Workspace::at(const Document& d, int revision) {
  for (const auto& s : d.snapshots)
    if (s->revision == revision) return s;
  return nullptr;
}

std::shared_ptr<const Snapshot> Workspace::beforeForSameTarget(const Document& d,
                                                               const Snapshot& current) {
  const CompileResult& now = *current.result;
  for (auto it = d.snapshots.rbegin(); it != d.snapshots.rend(); ++it) {
    const CompileResult& then = *(*it)->result;
    if ((*it)->revision < current.revision && then.arch == now.arch &&
        then.optLevel == now.optLevel && then.profile == now.profile)
      return *it;
  }
  return nullptr;
}

std::shared_ptr<const Snapshot> Workspace::before(const Document& d, int revision) {
  for (auto it = d.snapshots.rbegin(); it != d.snapshots.rend(); ++it)
    if ((*it)->revision < revision) return *it;
  return nullptr;
}

}  // namespace ks::server
