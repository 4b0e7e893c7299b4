// Session: what the server decides about the open documents, without JSON or transport.
//
// The crates of the open files (which compile serves which file), which files each compile
// read (so that a change on disk or in another file recompiles the right ones), and which
// documents get new revisions and compiles when something changes. LspServer decodes a
// message, asks the Session, and encodes what it answers; the tests ask it directly.
// Used on the io thread only, as the Workspace it reads.
#pragma once

#include <map>
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

class Session {
 public:
  explicit Session(Workspace& workspace) : workspace_(workspace) {}

  // The open files of one crate compile together, as one compile of the crate whose result
  // serves each of them; a file outside any crate compiles on its own.
  /// The key of the compile that serves `d`: its crate's Cargo.toml once a compile named
  /// the crate (d's own, or one that read d), else d's own path.
  std::string compileKeyOf(const Document&);
  /// The open Rust documents that compile under `key`.
  std::vector<Document*> membersOf(const std::string& key);
  /// The compile of `d`'s crate (or of `d` alone) with every open file's text as it is now.
  CompileRequest compileRequestFor(Document& d, CompileOptions);
  /// Gives `docs` and the other open files of their crates new revisions; returns one
  /// document per crate (or file on its own) to compile, each crate once.
  std::vector<Document*> bumpForRecompile(const std::vector<Document*>& docs);

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
  Workspace& workspace_;
  /// Files that are not open (or not compiled, a Cargo.toml) and have diagnostics published,
  /// with the key of the compile that published them.
  std::map<std::string, std::string> diagnosedFiles_;
};

}  // namespace ks::server
