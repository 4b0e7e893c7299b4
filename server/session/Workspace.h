// Workspace: the documents the editor has open and the Snapshots of their compiles.
//
// A Document is the editor's current text and our revision of it. A Snapshot is the
// immutable outcome of compiling one revision (a crate's compile gives each of its open
// files a Snapshot of its own, all sharing the one CompileResult); readers (hover, artifacts, the
// CLI-like requests) hold a shared_ptr to one and never see it change. The last few successful
// Snapshots of each document (as many as a bound on their bytes allows) are kept so that a
// diff needs no recompile, and a failed
// compile never replaces the Snapshot that is being served. Used on the io thread only.
#pragma once

#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "Compile.h"
#include "ParkedResult.h"

namespace ks::server {

/// The immutable outcome of compiling one revision of a document.
struct Snapshot {
  std::string uri;
  std::string path;  // the document's file: the features answer for its lines
  int revision = 0;
  std::string text;  // the document's text that was compiled
  std::shared_ptr<const CompileResult> result;
  std::chrono::milliseconds duration{0};
  /// About how many bytes `result` holds (footprint, CompileCache.h); 0 when not counted.
  size_t bytes = 0;
  /// Set while the Snapshot is parked (Workspace::parked): `result` then holds only what the
  /// session and a code lens ask of an older compile (whether it succeeded, the files it
  /// read, its crate, its diagnostics, its kernels' resources) and this the rest.
  std::shared_ptr<const ParkedResult> parked;
};

struct Document {
  std::string uri;
  std::string path;  // absolute; the key of its compiles
  std::string languageId;
  int version = 0;     // the editor's version
  int revision = 0;    // ours: bumped on every change of text or of what it compiles with
  int generation = 0;  // the workspace's generation at its last open or bump
  std::string text;
  /// Its text may differ from the file on disk (edited, or opened so): only then do other
  /// files' compiles take it as an overlay.
  bool unsaved = true;

  /// The newest successful Snapshots, oldest first.
  std::deque<std::shared_ptr<const Snapshot>> snapshots;
  /// The newest compile's outcome, also when it failed (for diagnostics and status).
  std::shared_ptr<const Snapshot> lastAttempt;
  /// When the editor last asked about the document or changed it (Workspace::use).
  std::chrono::steady_clock::time_point lastUsed = std::chrono::steady_clock::now();
};

class Workspace {
 public:
  /// Successful Snapshots kept per document: at most kKeptSnapshots, and beyond the newest
  /// two (what a ready status and the previous save's diff compare) and the newest earlier
  /// one for the same target (beforeForSameTarget), only while the results of those kept add
  /// up to at most kKeptSnapshotBytes. A compile of 40 kernels holds about 40 MiB: four of
  /// them made most of the server's memory.
  static constexpr size_t kKeptSnapshots = 4;
  static constexpr size_t kKeptSnapshotBytes = size_t{32} << 20;

  /// Opens (or reopens) a document; its revision starts above any it had before.
  Document& open(std::string uri, std::string path, std::string languageId, int version,
                 std::string text);
  void close(const std::string& uri);
  /// Gives the document a new revision (its text, or what it compiles with, changed).
  int bump(Document&);
  /// Grows with every open, bump and close: a compile scheduled at generation G saw every
  /// open document's text as of G (see LspServer::compile).
  int generation() const { return generation_; }
  Document* find(const std::string& uri);
  Document* findByPath(const std::string& path);
  std::vector<Document*> documents();

  // Parking: a result nobody looks at is kept parked (ParkedResult.h), a few per cent of its
  // memory: every Snapshot of a document the editor has not asked about for a while, and of
  // the others every Snapshot but the newest (the one before it is what the ready status's
  // diff compares with, and that diff holds it while it runs). The results are parked off the
  // io thread (toPark, then parked); the newest Snapshot of a document comes back when the
  // editor asks about it (use), an older one when a request names it (unparked).
  /// By default, a document not asked about (a request naming it, an edit) for this long has
  /// all its results parked.
  static constexpr std::chrono::seconds kIdleBeforeParking{20};
  /// The editor asks about `d` or changes it: its newest Snapshot comes back whole if it was
  /// parked. Returns false when it could not (its bytes did not read back) and was dropped:
  /// `d` is to compile again.
  bool use(Document& d,
           std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now());
  /// `s`, a Snapshot of `d`, whole: brought back first if it was parked (nullptr, and dropped,
  /// when it could not be).
  std::shared_ptr<const Snapshot> unparked(Document& d, std::shared_ptr<const Snapshot> s);
  /// The results to park as of `now` (each once; not those handed out before and not
  /// parked yet): of the documents not used for `idleFor`, all; of the others, all but their
  /// newest; never a result that the newest Snapshot of a document in use holds (a crate's
  /// compile serves all its open files), nor a partial or failed one.
  std::vector<std::shared_ptr<const CompileResult>> toPark(
      std::chrono::steady_clock::time_point now, std::chrono::milliseconds idleFor);
  /// `result` parked as `parked` (nullptr: it could not be): each Snapshot that holds it is
  /// parked, unless the rule of toPark no longer says so (its document was used since).
  void parked(const std::shared_ptr<const CompileResult>& result,
              std::shared_ptr<const ParkedResult> parked, std::chrono::steady_clock::time_point now,
              std::chrono::milliseconds idleFor);

  /// Records a compile's outcome; returns false when the document was closed or has
  /// moved past `revision` far enough that the outcome is of no use.
  bool record(const std::string& path, std::shared_ptr<const Snapshot>);

  /// The newest successful Snapshot, or nullptr.
  static std::shared_ptr<const Snapshot> latest(const Document&);
  /// The Snapshot of `revision`, or nullptr when it is gone or never compiled.
  static std::shared_ptr<const Snapshot> at(const Document&, int revision);
  /// The newest successful Snapshot older than `revision`, or nullptr.
  static std::shared_ptr<const Snapshot> before(const Document&, int revision);
  /// The newest kept Snapshot before `current` compiled for the same arch, opt level and
  /// toolchain profile: what "the previous save" means to a diff.
  static std::shared_ptr<const Snapshot> beforeForSameTarget(const Document&,
                                                             const Snapshot& current);

 private:
  void forgetPath(const Document&);
  /// The results of the newest Snapshots of the documents used within `idleFor` of `now`.
  std::set<const CompileResult*> resultsInUse(std::chrono::steady_clock::time_point now,
                                              std::chrono::milliseconds idleFor) const;
  /// Drops the oldest Snapshots of `d` beyond what kKeptSnapshots and kKeptSnapshotBytes keep.
  static void prune(Document& d);

  std::map<std::string, Document> documents_;  // by uri
  // The uris open for each path: findByPath is asked for every file a compile served, and a
  // walk over a thousand open documents each time held the io thread.
  std::map<std::string, std::set<std::string>> uris_;
  std::map<std::string, int> lastRevision_;  // by path, survives close/reopen
  /// The results toPark handed out that parked() has not had back yet (the caller holds them).
  std::set<const CompileResult*> parking_;
  int generation_ = 0;
};

}  // namespace ks::server
