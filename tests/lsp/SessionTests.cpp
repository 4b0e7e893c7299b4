// The session layer alone, without JSON or a transport: which compile serves which open
// file, which files recompile when one changes, and which files are watched.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "Session.h"
#include "Settings.h"

namespace ks::test {

using server::CompilePlan;
using server::CompileRequest;
using server::Document;
using server::Session;
using server::Snapshot;
using server::Workspace;

namespace {

const std::string kManifest = "/w/kern/Cargo.toml";
const std::string kLib = "/w/kern/src/lib.rs";
const std::string kBlend = "/w/kern/src/blend.rs";
const std::string kMath = "/w/shared/src/math.rs";  // a path dependency's file
const std::string kOther = "/w/other/kernel.rs";    // a kernel on its own

/// An open workspace with the compile outcomes the tests give its documents.
struct OpenFiles {
  Workspace workspace;
  Session session{workspace};

  Document& open(const std::string& path, const std::string& text = "fn f() {}\n") {
    return workspace.open("file://" + path, path, "rust", 1, text);
  }
  /// Records for `path` a compile of its current revision that read `files`.
  std::shared_ptr<const CompileResult> compiled(const std::string& path,
                                                std::vector<std::string> files,
                                                bool succeeded = true,
                                                const std::string& manifest = kManifest) {
    auto result = std::make_shared<CompileResult>();
    result->succeeded = succeeded;
    result->crateManifest = manifest;
    for (const auto& f : files) result->sourceFiles.emplace_back(f);
    auto s = std::make_shared<Snapshot>();
    s->path = path;
    s->revision = workspace.findByPath(path)->revision;
    s->result = result;
    REQUIRE(workspace.record(path, s));
    return result;
  }
  std::vector<std::string> paths(const std::vector<Document*>& docs) {
    std::vector<std::string> out;
    for (const Document* d : docs) out.push_back(d->path);
    std::sort(out.begin(), out.end());
    return out;
  }
};

}  // namespace

TEST_CASE("session: the open files of a crate compile as one, through the file that named it") {
  OpenFiles w;
  Document& lib = w.open(kLib, "mod blend;\n");
  Document& blend = w.open(kBlend, "pub fn mix() {}\n");
  Document& other = w.open(kOther);
  // Before any compile, each file compiles on its own.
  CHECK(w.session.compileKeyOf(blend) == kBlend);

  w.compiled(kLib, {kLib, kBlend, kManifest});
  CHECK(w.session.compileKeyOf(lib) == kManifest);
  CHECK(w.session.compileKeyOf(blend) == kManifest);  // the crate's compile read it
  CHECK(w.session.compileKeyOf(other) == kOther);     // not in the crate's folder
  CHECK(w.paths(w.session.membersOf(kManifest)) == std::vector<std::string>{kBlend, kLib});

  // Compiling the module compiles the crate: lib.rs goes to the pipeline, with the module's
  // unsaved text, and the compile serves both at their revisions.
  CompileRequest r = w.session.compileRequestFor(blend);
  CHECK(r.key == kManifest);
  CHECK(r.input.path == kLib);
  CHECK(r.input.text == "mod blend;\n");
  CHECK(r.input.overlays.at(kBlend) == "pub fn mix() {}\n");
  CHECK(r.documents == std::map<std::string, int>{{kBlend, blend.revision}, {kLib, lib.revision}});
}

TEST_CASE(
    "session: an edit of a crate's module gives the crate's files new revisions and one compile") {
  OpenFiles w;
  Document& lib = w.open(kLib);
  Document& blend = w.open(kBlend);
  Document& other = w.open(kOther);
  w.compiled(kLib, {kLib, kBlend, kManifest});
  const int libBefore = lib.revision, blendBefore = blend.revision, otherBefore = other.revision;

  // What recompiles: the module itself and the crates that read it.
  std::vector<Document*> affected = w.session.usersOf(kBlend);
  CHECK(w.paths(affected) == std::vector<std::string>{kLib});
  affected.push_back(&blend);
  std::vector<Document*> compiles = w.session.bumpForRecompile(affected);
  REQUIRE(compiles.size() == 1);  // one compile of the crate
  CHECK(w.session.compileKeyOf(*compiles[0]) == kManifest);
  CHECK(lib.revision > libBefore);
  CHECK(blend.revision > blendBefore);
  CHECK(other.revision == otherBefore);  // another kernel is left alone
}

TEST_CASE("session: a file on disk recompiles the documents whose compiles read it") {
  OpenFiles w;
  w.open(kLib);
  w.open(kOther);
  w.compiled(kLib, {kLib, kMath, kManifest});
  w.compiled(kOther, {kOther}, true, "");
  CHECK(w.paths(w.session.usersOf(kMath)) == std::vector<std::string>{kLib});
  CHECK(w.paths(w.session.usersOf(kManifest)) == std::vector<std::string>{kLib});
  CHECK(w.session.usersOf("/w/kern/src/unused.rs").empty());
  // Watched: what the compiles read on disk, not the open files (the editor has their text).
  CHECK(w.session.filesRead() == std::set<std::string>{kManifest, kMath});
}

TEST_CASE("session: files changed on disk recompile the crates that read them, once each") {
  OpenFiles w;
  Document& lib = w.open(kLib);
  Document& blend = w.open(kBlend);
  Document& other = w.open(kOther);
  w.compiled(kLib, {kLib, kBlend, kMath, kManifest});
  w.compiled(kOther, {kOther}, true, "");
  const int libBefore = lib.revision, otherBefore = other.revision;

  // The dependency's file and the manifest both changed (a `git checkout`): one compile of
  // the crate, with new revisions for its open files; the other kernel is left alone.
  CompilePlan plan = w.session.filesChanged({kMath, kManifest, "/w/kern/src/unused.rs"});
  REQUIRE(plan.schedule.size() == 1);
  CHECK(plan.schedule[0].key == kManifest);
  CHECK(plan.schedule[0].immediate);
  CHECK(plan.schedule[0].documents ==
        std::map<std::string, int>{{kBlend, blend.revision}, {kLib, lib.revision}});
  CHECK(lib.revision > libBefore);
  CHECK(other.revision == otherBefore);

  // An open module changed on disk: the editor's text is what compiles, so nothing does.
  CHECK(w.session.filesChanged({kBlend}).schedule.empty());
  CHECK(w.session.filesChanged({}).schedule.empty());
}

TEST_CASE(
    "session: a compile that missed an edit of a file it read is queued again, as its crate") {
  OpenFiles w;
  Document& lib = w.open(kLib, "mod blend;\n");
  Document& blend = w.open(kBlend, "pub fn mix() {}\n");
  // Before any compile each file compiles on its own: lib.rs's compile is scheduled, ...
  CompileRequest first = w.session.compileRequestFor(lib);
  REQUIRE(first.key == kLib);
  // ... blend.rs is edited meanwhile (its own compile cannot carry the edit to lib.rs's), ...
  blend.text = "pub fn mix(x: f32) {}\n";
  w.workspace.bump(blend);
  // ... and lib.rs's compile finishes having read blend.rs as a module of the crate.
  auto result = w.compiled(kLib, {kLib, kBlend, kManifest});

  CompilePlan plan = w.session.recompileIfStale(first, *result, lib);
  REQUIRE(plan.schedule.size() == 1);
  const CompileRequest& again = plan.schedule[0];
  CHECK(again.key == kManifest);  // the crate, now that it is known
  CHECK(again.immediate);
  CHECK(again.input.path == kLib);
  CHECK(again.input.overlays.at(kBlend) == "pub fn mix(x: f32) {}\n");
  CHECK(again.documents ==
        std::map<std::string, int>{{kBlend, blend.revision}, {kLib, lib.revision}});
  // The files' own compiles give way to the crate's.
  std::vector<std::string> cancelled = plan.cancel;
  std::sort(cancelled.begin(), cancelled.end());
  CHECK(cancelled == std::vector<std::string>{kBlend, kLib});

  // A compile scheduled after the edit saw it: it is not stale.
  CHECK(w.session.recompileIfStale(again, *result, lib).schedule.empty());
  // Nor is one that served the edited file itself (its edit reached it).
  blend.text = "pub fn mix(y: f32) {}\n";
  w.workspace.bump(blend);
  CHECK(w.session.recompileIfStale(again, *result, lib).schedule.empty());
}

TEST_CASE(
    "session: a compile that failed before listing its files is taken to use its whole crate") {
  OpenFiles w;
  Document& lib = w.open(kLib);
  w.compiled(kLib, {kManifest}, /*succeeded=*/false);  // a syntax error: nothing listed
  CHECK(w.session.uses(lib, "/w/kern/src/blend.rs"));
  CHECK(w.session.uses(lib, "/w/kern/src/deep/inner.rs"));
  CHECK_FALSE(w.session.uses(lib, kMath));  // outside the crate

  // One that got as far as reading its modules listed them: only those recompile it.
  w.workspace.bump(lib);
  w.compiled(kLib, {kLib, kBlend, kManifest}, /*succeeded=*/false);
  CHECK(w.session.uses(lib, kBlend));
  CHECK_FALSE(w.session.uses(lib, "/w/kern/src/deep/inner.rs"));
}

TEST_CASE("session: diagnostics go to the file they name, and are taken back once fixed") {
  OpenFiles w;
  Document& lib = w.open(kLib);
  Document& blend = w.open(kBlend);
  w.open(kOther);
  w.compiled(kLib, {kLib, kBlend, kManifest});
  CompileRequest crate = w.session.compileRequestFor(lib);
  REQUIRE(crate.documents.size() == 2);

  // The crate's compile names its module, its manifest, a dependency's file that is not
  // open, and (wrongly) a kernel of its own compile: that one is not the crate's to report.
  auto route = w.session.routeDiagnostics(crate, {kBlend, kManifest, kMath, kOther});
  CHECK(route.publish == std::vector<std::string>{kManifest, kBlend, kMath});
  CHECK(route.clear.empty());
  CHECK(w.session.diagnosedByCrate(kManifest));  // it stays when the manifest is closed
  CHECK_FALSE(w.session.diagnosedByCrate(kBlend));

  // The next compile names only the module: the manifest's and the dependency's are cleared.
  route = w.session.routeDiagnostics(crate, {kBlend});
  CHECK(route.publish == std::vector<std::string>{kBlend});
  CHECK(route.clear == std::vector<std::string>{kManifest, kMath});

  // Diagnostics of files that are not open outlive the crate's compiles only while one of
  // its files is open.
  w.session.routeDiagnostics(crate, {kMath});
  CHECK(w.session.orphanDiagnostics().empty());
  w.workspace.close(lib.uri);
  w.workspace.close(blend.uri);
  CHECK(w.session.orphanDiagnostics() == std::vector<std::string>{kMath});
  CHECK(w.session.orphanDiagnostics().empty());  // cleared once
}

TEST_CASE("settings layers: the editor's over kernelscope.toml's over the defaults") {
  server::SettingsLayers layers;
  CHECK_FALSE(layers.layered().settings.arch);  // unset: the crate's, else the default
  layers.setFileValues({{"arch", "sm_80"}, {"optLevel", 2}});
  layers.changeEditorValues({{"arch", "sm_90"}});
  server::Settings s = layers.layered().settings;
  CHECK(s.arch == "sm_90");  // the editor's
  CHECK(s.optLevel == 2);    // kernelscope.toml's, the editor left it
  // Taken back by the editor: kernelscope.toml's value again.
  layers.changeEditorValues({{"arch", nullptr}});
  CHECK(layers.layered().settings.arch == "sm_80");
  // kernelscope.toml read again without it: the default.
  layers.setFileValues({{"optLevel", 2}});
  CHECK_FALSE(layers.layered().settings.arch);
}

TEST_CASE("settings layers: an untrusted workspace's kernelscope.toml runs no program of its own") {
  server::SettingsLayers layers;
  layers.setFileValues({{"rustc", "/tmp/evil/rustc"},
                        {"gpuRunner", "ssh box"},
                        {"optLevel", 1},
                        {"workspaceTrusted", true}});
  server::SettingsLayers::Layered l = layers.layered();
  CHECK_FALSE(l.trusted);  // the workspace cannot trust itself
  CHECK(l.settings.rustc.empty());
  CHECK(l.settings.gpuRunner.empty());
  CHECK(l.settings.optLevel == 1);  // a safe value still applies
  CHECK(l.withheld.size() == 3);    // rustc, gpuRunner, workspaceTrusted: each said
  // Once the user trusts it (the editor's layer), its programs apply.
  layers.changeEditorValues({{"workspaceTrusted", true}});
  l = layers.layered();
  CHECK(l.trusted);
  CHECK(l.settings.rustc == "/tmp/evil/rustc");
  CHECK(l.settings.gpuRunner == "ssh box");
}

}  // namespace ks::test
