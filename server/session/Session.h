// Session: what the server decides about the open documents, without JSON or transport.
//
// The crates of the open files (which compile serves which file), which files each compile
// read (so that a change on disk or in another file recompiles the right ones), and which
// documents get new revisions and compiles when something changes: a document opened,
// edited, saved or closed, files changed on disk, a compile that finished stale. Each event
// is one method that changes the documents and answers in plain values (a CompilePlan, the
// files whose diagnostics to clear); LspServer decodes the message, calls it, and carries
// out and encodes the answer, as clangd's ClangdLSPServer does over ClangdServer. The tests
// ask it directly. Used on the io thread only, as the Workspace it changes.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "Compile.h"
#include "Scheduler.h"
#include "Workspace.h"

namespace ks::server {

/// Rust sources compile (alone or with their crate); other documents (a Cargo.toml) only
/// make the compiles that read them stale.
bool isRust(const Document&);

/// What the server does about compiles after an event: stops the compiles of `cancel`
/// (keys), then schedules each of `schedule` in order.
struct CompilePlan {
  std::vector<std::string> cancel;
  std::vector<CompileRequest> schedule;
  void append(CompilePlan&&);
};

class Session {
 public:
  explicit Session(Workspace& workspace) : workspace_(workspace) {}

  /// The options every compile of the session is asked with (from the settings).
  void setCompileOptions(CompileOptions options) { options_ = std::move(options); }

  // The open files of one crate compile together, as one compile of the crate whose result
  // serves each of them; a file outside any crate compiles on its own.
  /// The key of the compile that serves `d`: its crate's Cargo.toml once a compile named
  /// the crate (d's own, or one that read d), else d's own path.
  std::string compileKeyOf(const Document&);
  /// The open Rust documents that compile under `key`.
  std::vector<Document*> membersOf(const std::string& key);
  /// What compiles for `d`: its file and text, with the text of the other open files of its
  /// crate and the unsaved text of every other open Rust file (the pipeline takes those of the
  /// crate and of its path dependencies). The one rule of the compiles, kernelscope/passes and
  /// run/profile.
  CompileInput inputFor(const Document& d);
  /// The compile of `d`'s crate (or of `d` alone) with every open file's text as it is now.
  CompileRequest compileRequestFor(Document& d);
  /// Gives `docs` and the other open files of their crates new revisions; returns one
  /// document per crate (or file on its own) to compile, each crate once.
  std::vector<Document*> bumpForRecompile(const std::vector<Document*>& docs);
  /// The compile of `d`'s crate (or of `d` alone); the compiles its members ran on their
  /// own before their crate was known stop.
  CompilePlan compile(Document& d, bool immediate);
  /// Gives `docs` and the other open files of their crates new revisions and compiles
  /// each crate once.
  CompilePlan recompile(const std::vector<Document*>& docs, bool immediate);

  // The editor's documents. LspServer decodes each notification (and applies a didChange's
  // edits to the document's text); the Session changes the set of documents and says what
  // compiles.
  /// didOpen: opens the document. A Rust file compiles at once, as its crate, whose other
  /// open files get new revisions (they compile with its text now).
  CompilePlan opened(std::string uri, std::string path, std::string languageId, int version,
                     std::string text);
  /// didChange, once `d` has its new text: a Rust file, the other open files of its crate and
  /// the crates that read it recompile (debounced); another document (a Cargo.toml) only gets
  /// a new revision (compiles read it from disk once it is saved).
  CompilePlan changed(Document& d);
  /// didSave, with the saved text when the client sent it: a text other than the editor's
  /// recompiles as an edit does, at once; otherwise a Rust file whose revision has not
  /// compiled yet compiles.
  CompilePlan saved(Document& d, const std::optional<std::string>& text);
  struct Closed {
    /// The document's own compile's diagnostics go with it; a crate's about it (a
    /// Cargo.toml, a module not open before) stay.
    bool clearOwnDiagnostics = false;
    /// Its compile stops unless its crate still has open files; the files that compiled
    /// with its unsaved text compile with the file on disk.
    CompilePlan compiles;
    /// Files whose diagnostics came from compiles that no open document has now.
    std::vector<std::string> clearDiagnostics;
  };
  /// didClose: closes `d` (gone once this returns).
  Closed closed(Document& d);

  /// Files changed on disk: the open documents whose compiles use one of them recompile
  /// (an open Rust file among them compiles from the editor's text, not the disk's).
  CompilePlan filesChanged(const std::vector<std::string>& paths);
  /// After compile `r` served `served`: when an open Rust file it read changed after it
  /// was scheduled and that change did not reach it (the crate was not known yet, so the
  /// file compiled on its own), the crate compiles again.
  CompilePlan recompileIfStale(const CompileRequest& r, const CompileResult& result,
                               Document& served);

  /// Whether the newest compiles of `d` read `file` (a module, a path dependency's file,
  /// the crate's Cargo.toml), as they listed it.
  bool reads(const Document& d, const std::string& file) const;
  /// reads(), or, after a failed compile that could list nothing, `file` lies in d's crate.
  bool uses(const Document& d, const std::string& file) const;
  /// The open Rust documents whose compiles read `file`, besides `file` itself.
  std::vector<Document*> usersOf(const std::string& file);
  /// The files on disk the open documents' compiles read (not the open Rust files: their
  /// text comes from the editor).
  std::set<std::string> filesRead();

  // Diagnostics go to the file they name, open or not.
  struct DiagnosticsRoute {
    std::vector<std::string> publish;  // files to send the compile's diagnostics of
    std::vector<std::string> clear;    // files to send an empty list
  };
  /// Where the diagnostics of compile `r` go, given the files it has diagnostics for: each
  /// to its file, except an open file of another compile (that compile reports its own);
  /// the files this crate's compiles diagnosed before and that have none now are cleared.
  DiagnosticsRoute routeDiagnostics(const CompileRequest& r,
                                    const std::set<std::string>& diagnosed);
  /// The files diagnosed by compiles whose documents are all closed now: to be cleared.
  std::vector<std::string> orphanDiagnostics();
  /// Whether `path` shows diagnostics of a compile other than its own document's (a
  /// Cargo.toml, a file not open): they stay when it closes.
  bool diagnosedByCrate(const std::string& path) const { return diagnosedFiles_.count(path); }

 private:
  /// The open Rust documents whose newest compile named a crate: the only ones compileKeyOf
  /// asks about another document.
  std::vector<Document*> crateNamers();
  std::string compileKeyOf(const Document&, const std::vector<Document*>& namers);
  /// inputFor(d), its crate's open files (`members`) known already.
  CompileInput inputFor(const Document& d, const std::vector<Document*>& members);
  /// `d`'s new text: it, the other open files of its crate and the crates that read it
  /// recompile.
  CompilePlan recompileWithUsers(Document& d, bool immediate);

  Workspace& workspace_;
  CompileOptions options_;
  /// Files that are not open (or not compiled, a Cargo.toml) and have diagnostics published,
  /// with the key of the compile that published them.
  std::map<std::string, std::string> diagnosedFiles_;
};

}  // namespace ks::server
