// Session: what the server decides about the open documents, without JSON or transport.
//
// The crates of the open files (which compile serves which file), which files each compile
// read (so that a change on disk or in another file recompiles the right ones), and which
// documents get new revisions and compiles when something changes. LspServer decodes a
// message, asks the Session, and encodes what it answers; the tests ask it directly.
// Used on the io thread only, as the Workspace it reads.
#pragma once

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

 private:
  Workspace& workspace_;
};

}  // namespace ks::server
