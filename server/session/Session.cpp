// Session: the crates of the open files and who uses which file. See Session.h.
#include "Session.h"

#include <algorithm>
#include <filesystem>
#include <iterator>

#include "Files.h"

namespace ks::server {

bool isRust(const Document& d) {
  return d.languageId == "rust" || (d.path.size() > 3 && d.path.ends_with(".rs"));
}

namespace {

/// The crate a document's newest compile named, when it named one.
const std::filesystem::path* crateNamedBy(const Document& o) {
  const Snapshot* s = o.lastAttempt.get();
  return s && s->result && !s->result->crateManifest.empty() ? &s->result->crateManifest : nullptr;
}

}  // namespace

std::vector<Document*> Session::crateNamers() {
  std::vector<Document*> out;
  for (Document* o : workspace_.documents())
    if (isRust(*o) && crateNamedBy(*o)) out.push_back(o);
  return out;
}

std::string Session::compileKeyOf(const Document& d) { return compileKeyOf(d, crateNamers()); }

std::string Session::compileKeyOf(const Document& d, const std::vector<Document*>& namers) {
  // The crate a compile named, when that compile read `d`'s file as one of the crate's
  // own (not a path dependency's). A file that left the module tree compiles on its own
  // again, and finds out. Only the documents whose compile named a crate are asked: with a
  // thousand files just opened, none has, and this costs nothing per file.
  auto crateOf = [&](const Document& o) -> std::string {
    const std::filesystem::path* manifest = crateNamedBy(o);
    if (!manifest) return {};
    if (&o == &d && !o.lastAttempt->result->succeeded) return manifest->string();
    bool inCrate = d.path.starts_with(manifest->parent_path().string() + "/");
    return inCrate && reads(o, d.path) ? manifest->string() : std::string();
  };
  if (std::string own = crateOf(d); !own.empty()) return own;
  for (Document* o : namers)
    if (o != &d)
      if (std::string crate = crateOf(*o); !crate.empty()) return crate;
  return d.path;
}

std::vector<Document*> Session::membersOf(const std::string& key) {
  const std::vector<Document*> namers = crateNamers();
  std::vector<Document*> out;
  for (Document* d : workspace_.documents())
    if (isRust(*d) && compileKeyOf(*d, namers) == key) out.push_back(d);
  return out;
}

void CompilePlan::append(CompilePlan&& other) {
  std::move(other.cancel.begin(), other.cancel.end(), std::back_inserter(cancel));
  std::move(other.schedule.begin(), other.schedule.end(), std::back_inserter(schedule));
}

CompileRequest Session::compileRequestFor(Document& d) {
  const std::string key = compileKeyOf(d);
  std::vector<Document*> members = membersOf(key);
  // The file handed to the pipeline is a member whose last compile named the crate, so
  // that a file next to it that compiles on its own (build.rs) is never taken for it.
  Document* primary = &d;
  for (Document* m : members) {
    const Snapshot* s = m->lastAttempt.get();
    if (s && s->result && s->result->crateManifest == key) {
      primary = m;
      break;
    }
  }
  CompileRequest r;
  r.key = key;
  r.revision = workspace_.generation();
  for (Document* m : members) r.documents[m->path] = m->revision;
  r.input = inputFor(*primary, members);
  r.options = options_;
  return r;
}

CompileInput Session::inputFor(const Document& d) {
  return inputFor(d, membersOf(compileKeyOf(d)));
}

CompileInput Session::inputFor(const Document& d, const std::vector<Document*>& members) {
  std::set<std::string> crate;
  for (const Document* m : members) crate.insert(m->path);
  CompileInput input;
  input.path = d.path;
  input.text = d.text;
  // Of files outside the crate, only texts that differ from the file on disk: a thousand
  // files just opened are not copied into each of their thousand compiles. The members' texts
  // are always there: each member's Snapshot keeps the text it compiled.
  for (Document* o : workspace_.documents())
    if (o != &d && isRust(*o) && (o->unsaved || crate.count(o->path)))
      input.overlays[o->path] = o->text;
  return input;
}

std::vector<Document*> Session::bumpForRecompile(const std::vector<Document*>& docs) {
  std::set<Document*> bumped;
  std::set<std::string> keys;
  for (Document* d : docs) {
    if (!isRust(*d)) {
      if (bumped.insert(d).second) workspace_.bump(*d);
      continue;
    }
    std::string key = compileKeyOf(*d);
    if (!keys.insert(key).second) continue;
    for (Document* m : membersOf(key))
      if (bumped.insert(m).second) workspace_.bump(*m);
  }
  // Chosen once all are bumped, so that each crate compiles once with every new text.
  std::vector<Document*> out;
  for (const std::string& key : keys)
    if (auto members = membersOf(key); !members.empty()) out.push_back(members.front());
  return out;
}

CompilePlan Session::compile(Document& d, bool immediate) {
  CompilePlan plan;
  CompileRequest r = compileRequestFor(d);
  r.immediate = immediate;
  // Members that compiled on their own before their crate was known stop doing so.
  for (const auto& [path, revision] : r.documents)
    if (path != r.key) plan.cancel.push_back(path);
  plan.schedule.push_back(std::move(r));
  return plan;
}

CompilePlan Session::recompile(const std::vector<Document*>& docs, bool immediate) {
  CompilePlan plan;
  for (Document* d : bumpForRecompile(docs)) plan.append(compile(*d, immediate));
  return plan;
}

CompilePlan Session::recompileWithUsers(Document& d, bool immediate) {
  // It, the other open files of its crate and the crates that depend on it recompile.
  std::vector<Document*> affected = usersOf(d.path);
  affected.push_back(&d);
  return recompile(affected, immediate);
}

CompilePlan Session::opened(std::string uri, std::string path, std::string languageId, int version,
                            std::string text) {
  Document& d = workspace_.open(std::move(uri), std::move(path), std::move(languageId), version,
                                std::move(text));
  if (!isRust(d)) return {};
  const FileText onDisk = readRegularFile(d.path);
  d.unsaved = !onDisk.ok() || onDisk.text != d.text;
  // The other open files of its crate now compile with its text too.
  for (Document* m : membersOf(compileKeyOf(d)))
    if (m != &d) workspace_.bump(*m);
  return compile(d, /*immediate=*/true);
}

CompilePlan Session::changed(Document& d) {
  d.unsaved = true;
  if (!isRust(d)) {
    workspace_.bump(d);  // compiles read it from disk once saved (a Cargo.toml)
    return {};
  }
  return recompileWithUsers(d, /*immediate=*/false);
}

CompilePlan Session::saved(Document& d, const std::optional<std::string>& text) {
  d.unsaved = false;  // what the editor wrote is on disk now
  if (text && *text != d.text && isRust(d)) {
    d.text = *text;
    return recompileWithUsers(d, /*immediate=*/true);
  }
  if (d.lastAttempt && d.lastAttempt->revision == d.revision) return {};  // compiled already
  return isRust(d) ? compile(d, /*immediate=*/true) : CompilePlan{};
}

Session::Closed Session::closed(Document& d) {
  const std::string uri = d.uri, path = d.path;
  const std::string key = isRust(d) ? compileKeyOf(d) : path;
  // Files that compiled with its unsaved text compile with the file on disk now.
  std::vector<Document*> affected;
  if (isRust(d) && d.text != readRegularFile(path).text) {
    affected = usersOf(path);
    for (Document* m : membersOf(key))
      if (m != &d) affected.push_back(m);
  }
  Closed out;
  out.clearOwnDiagnostics = !diagnosedByCrate(path);
  workspace_.close(uri);
  if (membersOf(key).empty()) out.compiles.cancel.push_back(key);
  if (key != path) out.compiles.cancel.push_back(path);
  out.compiles.append(recompile(affected, /*immediate=*/true));
  out.clearDiagnostics = orphanDiagnostics();
  return out;
}

CompilePlan Session::filesChanged(const std::vector<std::string>& paths) {
  std::vector<Document*> affected;
  for (const std::string& file : paths) {
    // An open Rust file: its text in the editor is what compiles, not the disk's.
    if (Document* open = workspace_.findByPath(file); open && isRust(*open)) continue;
    for (Document* d : usersOf(file)) affected.push_back(d);
  }
  return recompile(affected, /*immediate=*/true);
}

CompilePlan Session::recompileIfStale(const CompileRequest& r, const CompileResult& result,
                                      Document& served) {
  const auto& read = result.sourceFiles;
  for (Document* o : workspace_.documents())
    if (o->generation > r.revision && !r.documents.count(o->path) && isRust(*o) &&
        std::find(read.begin(), read.end(), o->path) != read.end())
      return recompile({&served}, /*immediate=*/true);
  return {};
}

bool Session::reads(const Document& d, const std::string& file) const {
  for (const Snapshot* s : {d.lastAttempt.get(), Workspace::latest(d).get()}) {
    if (!s || !s->result) continue;
    const CompileResult& r = *s->result;
    if (r.crateManifest == file ||
        std::find(r.sourceFiles.begin(), r.sourceFiles.end(), file) != r.sourceFiles.end())
      return true;
    if (r.lineMap && r.lineMap->isUserFile(file)) return true;
  }
  return false;
}

bool Session::uses(const Document& d, const std::string& file) const {
  if (reads(d, file)) return true;
  // A compile that failed before rustc read the crate's modules (a syntax error) lists no
  // files: any file of the crate (or next to a kernel on its own) may be one of its modules.
  // One that got further lists them, and only those recompile it.
  const Snapshot* last = d.lastAttempt.get();
  if (!last || !last->result || last->result->succeeded) return false;
  const CompileResult& failed = *last->result;
  if (std::any_of(failed.sourceFiles.begin(), failed.sourceFiles.end(),
                  [&](const std::filesystem::path& f) { return f != failed.crateManifest; }))
    return false;
  std::filesystem::path home = last->result->crateManifest.empty()
                                   ? std::filesystem::path(d.path).parent_path()
                                   : last->result->crateManifest.parent_path();
  return file.starts_with(home.string() + "/");
}

std::vector<Document*> Session::usersOf(const std::string& file) {
  std::vector<Document*> out;
  for (Document* d : workspace_.documents())
    if (d->path != file && isRust(*d) && uses(*d, file)) out.push_back(d);
  return out;
}

std::set<std::string> Session::filesRead() {
  std::set<std::string> files;
  for (Document* d : workspace_.documents())
    for (const Snapshot* s : {d->lastAttempt.get(), Workspace::latest(*d).get()}) {
      if (!s || !s->result) continue;
      const CompileResult& r = *s->result;
      for (const auto& f : r.sourceFiles) files.insert(f.string());
      if (!r.crateManifest.empty()) files.insert(r.crateManifest.string());
      if (r.lineMap) files.insert(r.lineMap->userFiles().begin(), r.lineMap->userFiles().end());
    }
  std::erase_if(files, [&](const std::string& f) {
    Document* open = workspace_.findByPath(f);
    return open && isRust(*open);
  });
  return files;
}

Session::DiagnosticsRoute Session::routeDiagnostics(const CompileRequest& r,
                                                    const std::set<std::string>& diagnosed) {
  DiagnosticsRoute route;
  for (const std::string& path : diagnosed) {
    Document* d = workspace_.findByPath(path);
    if (r.documents.count(path)) {
      diagnosedFiles_.erase(path);
    } else if (d && isRust(*d)) {
      continue;  // an open file of another compile reports its own diagnostics
    } else {
      diagnosedFiles_[path] = r.key;  // a file not open, or not compiled (Cargo.toml)
    }
    route.publish.push_back(path);
  }
  // Files this crate's compiles (or its files' own, before the crate was known) diagnosed
  // before and that have nothing now are cleared.
  for (auto it = diagnosedFiles_.begin(); it != diagnosedFiles_.end();) {
    bool ours = it->second == r.key || r.documents.count(it->second);
    if (ours && !diagnosed.count(it->first)) {
      route.clear.push_back(it->first);
      it = diagnosedFiles_.erase(it);
    } else {
      ++it;
    }
  }
  return route;
}

std::vector<std::string> Session::orphanDiagnostics() {
  std::vector<std::string> orphans;
  for (auto it = diagnosedFiles_.begin(); it != diagnosedFiles_.end();) {
    const std::string& key = it->second;
    if (workspace_.findByPath(key) || !membersOf(key).empty()) {
      ++it;
      continue;
    }
    orphans.push_back(it->first);
    it = diagnosedFiles_.erase(it);
  }
  return orphans;
}

}  // namespace ks::server
