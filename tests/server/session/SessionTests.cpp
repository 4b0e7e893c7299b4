// The session layer alone, without JSON or a transport: which compile serves which open
// file, which files recompile when one changes, and which files are watched.
#include <doctest/doctest.h>

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "Options.h"
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

TEST_CASE("workspace: large results keep fewer Snapshots, never the ones a diff compares") {
  Workspace workspace;
  Document& d = workspace.open("file:///w/k.rs", "/w/k.rs", "rust", 1, "fn f() {}\n");
  // Records a compile of a new revision for `arch` whose result holds `mib` MiB.
  auto compiled = [&](const std::string& arch, size_t mib) {
    auto result = std::make_shared<CompileResult>();
    result->succeeded = true;
    result->arch = arch;
    auto s = std::make_shared<Snapshot>();
    s->path = d.path;
    s->revision = workspace.bump(d);
    s->result = result;
    s->bytes = mib << 20;
    REQUIRE(workspace.record(d.path, s));
    return s->revision;
  };
  auto kept = [&] {
    std::vector<int> revisions;
    for (const auto& s : d.snapshots) revisions.push_back(s->revision);
    return revisions;
  };
  // Small results: the newest four.
  std::vector<int> small;
  for (int i = 0; i < 5; ++i) small.push_back(compiled("sm_80", 1));
  CHECK(kept() == std::vector<int>(small.begin() + 1, small.end()));
  // Large ones (20 MiB each, over Workspace::kKeptSnapshotBytes together): the newest two.
  const int a = compiled("sm_80", 20), b = compiled("sm_80", 20);
  CHECK(kept() == std::vector<int>{a, b});
  // After an arch switch and back, the previous save for the newest's arch stays too.
  const int c = compiled("sm_90", 20), e = compiled("sm_80", 20);
  CHECK(kept() == std::vector<int>{b, c, e});
  CHECK(Workspace::beforeForSameTarget(d, *d.snapshots.back())->revision == b);
  CHECK(Workspace::before(d, e)->revision == c);
  const int f = compiled("sm_80", 20);
  CHECK(kept() == std::vector<int>{e, f});
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

TEST_CASE("session: opening a file of a known crate compiles the crate, with its text") {
  OpenFiles w;
  Document& lib = w.open(kLib, "mod blend;\n");
  w.compiled(kLib, {kLib, kBlend, kManifest});
  const int libBefore = lib.revision;

  CompilePlan plan = w.session.opened("file://" + kBlend, kBlend, "rust", 1, "pub fn mix() {}\n");
  Document* blend = w.workspace.findByPath(kBlend);
  REQUIRE(blend);
  REQUIRE(plan.schedule.size() == 1);
  const CompileRequest& r = plan.schedule[0];
  CHECK(r.key == kManifest);
  CHECK(r.immediate);  // an open compiles at once
  CHECK(r.input.path == kLib);
  CHECK(r.input.overlays.at(kBlend) == "pub fn mix() {}\n");
  CHECK(lib.revision > libBefore);  // lib.rs compiles with the module's text now
  CHECK(r.documents == std::map<std::string, int>{{kBlend, blend->revision}, {kLib, lib.revision}});

  // A manifest opened in the editor is no source: nothing compiles for it.
  CHECK(w.session.opened("file://" + kManifest, kManifest, "toml", 1, "[package]\n")
            .schedule.empty());
  CHECK(w.workspace.findByPath(kManifest));
}

TEST_CASE("session: an edit recompiles its crate and the crates that read it, debounced") {
  OpenFiles w;
  Document& lib = w.open(kLib);
  Document& other = w.open(kOther);
  Document& math = w.open(kMath);  // a path dependency's file, open in the editor
  w.compiled(kLib, {kLib, kMath, kManifest});
  w.compiled(kOther, {kOther}, true, "");
  const int libBefore = lib.revision, otherBefore = other.revision;

  math.text = "pub fn add(a: f32) -> f32 { a }\n";
  CompilePlan plan = w.session.changed(math);
  std::vector<std::string> keys;
  for (const CompileRequest& r : plan.schedule) {
    CHECK_FALSE(r.immediate);  // edits wait for the debounce
    keys.push_back(r.key);
  }
  std::sort(keys.begin(), keys.end());
  CHECK(keys == std::vector<std::string>{kManifest, kMath});  // the crate that reads it, and it
  CHECK(lib.revision > libBefore);
  CHECK(other.revision == otherBefore);

  // A Cargo.toml's edit changes nothing until it is saved (compiles read it from disk).
  Document& manifest = w.workspace.open("file://" + kManifest, kManifest, "toml", 1, "");
  const int manifestBefore = manifest.revision;
  CHECK(w.session.changed(manifest).schedule.empty());
  CHECK(manifest.revision > manifestBefore);
}

TEST_CASE("session: a save compiles only what the editor's last text has not compiled") {
  OpenFiles w;
  Document& lib = w.open(kLib, "fn f() {}\n");
  w.compiled(kLib, {kLib, kManifest});
  // Saved as compiled: nothing to do.
  CHECK(w.session.saved(lib, std::nullopt).schedule.empty());
  CHECK(w.session.saved(lib, std::string("fn f() {}\n")).schedule.empty());

  // Saved after an edit whose debounced compile has not run: it compiles at once.
  w.workspace.bump(lib);
  CompilePlan plan = w.session.saved(lib, std::nullopt);
  REQUIRE(plan.schedule.size() == 1);
  CHECK(plan.schedule[0].immediate);

  // The client saved a text it never sent as an edit: that text compiles.
  const int before = lib.revision;
  plan = w.session.saved(lib, std::string("fn g() {}\n"));
  CHECK(lib.text == "fn g() {}\n");
  CHECK(lib.revision > before);
  REQUIRE(plan.schedule.size() == 1);
  CHECK(plan.schedule[0].input.text == "fn g() {}\n");
}

TEST_CASE("session: closing a module keeps its crate's compile, now with the file on disk") {
  OpenFiles w;
  Document& lib = w.open(kLib);
  w.open(kBlend, "pub fn unsaved() {}\n");  // differs from the disk (no such file here)
  w.compiled(kLib, {kLib, kBlend, kManifest});
  w.session.routeDiagnostics(w.session.compileRequestFor(lib), {kBlend, kMath});
  const int libBefore = lib.revision;

  Session::Closed closed = w.session.closed(*w.workspace.findByPath(kBlend));
  CHECK_FALSE(w.workspace.findByPath(kBlend));
  CHECK(closed.clearOwnDiagnostics);  // its own compile's diagnostics go with it
  // The crate still has lib.rs open: its compile goes on, without blend.rs's unsaved text.
  CHECK(std::find(closed.compiles.cancel.begin(), closed.compiles.cancel.end(), kManifest) ==
        closed.compiles.cancel.end());
  REQUIRE(closed.compiles.schedule.size() == 1);
  const CompileRequest& r = closed.compiles.schedule[0];
  CHECK(r.key == kManifest);
  CHECK(r.documents == std::map<std::string, int>{{kLib, lib.revision}});
  CHECK_FALSE(r.input.overlays.count(kBlend));
  CHECK(lib.revision > libBefore);
  CHECK(closed.clearDiagnostics.empty());  // the dependency's stay while lib.rs is open

  // The crate's last open file: its compile stops, and what it said of other files goes.
  closed = w.session.closed(lib);
  CHECK(closed.compiles.schedule.empty());
  CHECK(std::find(closed.compiles.cancel.begin(), closed.compiles.cancel.end(), kManifest) !=
        closed.compiles.cancel.end());
  CHECK(closed.clearDiagnostics == std::vector<std::string>{kMath});
}

TEST_CASE("session: closing a file as saved recompiles nothing; a crate's diagnostics of it stay") {
  char dirTemplate[] = "/tmp/ks-session-XXXXXX";
  REQUIRE(mkdtemp(dirTemplate));
  const std::string dir = dirTemplate;
  const std::string manifest = dir + "/Cargo.toml", lib = dir + "/src/lib.rs",
                    blend = dir + "/src/blend.rs";
  std::filesystem::create_directories(dir + "/src");
  std::ofstream(blend) << "pub fn mix() {}\n";
  {
    OpenFiles w;
    w.open(lib);
    w.open(blend, "pub fn mix() {}\n");  // as on disk
    w.compiled(lib, {lib, blend, manifest}, true, manifest);
    Document& toml = w.workspace.open("file://" + manifest, manifest, "toml", 1, "[package]\n");
    w.session.routeDiagnostics(w.session.compileRequestFor(*w.workspace.findByPath(lib)),
                               {manifest});

    Session::Closed closed = w.session.closed(*w.workspace.findByPath(blend));
    CHECK(closed.compiles.schedule.empty());  // lib.rs compiled with this very text
    CHECK(closed.clearOwnDiagnostics);
    // The manifest shows the crate's diagnostics: they stay when it closes.
    closed = w.session.closed(toml);
    CHECK_FALSE(closed.clearOwnDiagnostics);
    CHECK(closed.compiles.cancel.empty());  // the crate's compile goes on
    CHECK(closed.compiles.schedule.empty());
  }
  std::filesystem::remove_all(dir);
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

namespace {

/// The editor's settings as it sends them, decoded; a bad value fails the test.
server::SettingChanges editorSends(const nlohmann::json& settings) {
  std::vector<std::string> problems;
  auto changes = server::decodeEditorSettings(settings, problems);
  REQUIRE(changes);
  CHECK(problems.empty());
  return *changes;
}

/// A workspace's kernelscope.toml, read; a bad line fails the test.
server::SettingValues fileSays(const std::string& toml) {
  std::vector<std::string> problems;
  server::SettingValues values = server::parseSettingsFile(toml, problems);
  CHECK(problems.empty());
  return values;
}

}  // namespace

TEST_CASE("settings layers: the editor's over kernelscope.toml's over the defaults") {
  server::SettingsLayers layers;
  CHECK_FALSE(layers.layered().settings.compile.arch);  // unset: the crate's, else the default
  layers.setFileValues(fileSays("arch = \"sm_80\"\noptLevel = 2\n"));
  layers.changeEditorValues(editorSends({{"kernelscope", {{"arch", "sm_90"}}}}));
  server::Settings s = layers.layered().settings;
  CHECK(s.compile.arch == "sm_90");  // the editor's
  CHECK(s.compile.optLevel == 2);    // kernelscope.toml's, the editor left it
  // Taken back by the editor (null or ""): kernelscope.toml's value again.
  layers.changeEditorValues(editorSends({{"arch", nullptr}}));
  CHECK(layers.layered().settings.compile.arch == "sm_80");
  layers.changeEditorValues(editorSends({{"optLevel", 0}}));
  CHECK(layers.layered().settings.compile.optLevel == 0);
  layers.changeEditorValues(editorSends({{"optLevel", ""}}));
  CHECK(layers.layered().settings.compile.optLevel == 2);
  // kernelscope.toml read again without it: the default.
  layers.setFileValues(fileSays("optLevel = 2\n"));
  CHECK_FALSE(layers.layered().settings.compile.arch);
}

TEST_CASE("settings: each option of the table reaches the Settings, typed") {
  const server::Settings defaults;
  for (const OptionSpec& option : optionTable()) {
    CAPTURE(option.setting);
    // A value the table accepts for the option, unlike its default.
    nlohmann::json value;
    switch (option.kind) {
      case OptionKind::String:  // a name the option's own check takes (arch, profile)
        for (const char* candidate : {"sm_80", "rust-cuda"})
          if (!option.check || !option.check(std::string(candidate))) {
            value = candidate;
            break;
          }
        break;
      case OptionKind::Integer:
        value = 2;
        break;
      case OptionKind::Boolean:
        value = true;
        break;
      case OptionKind::StringList:
        value = {"-Cdebug-assertions"};
        break;
      case OptionKind::StageList:
        value = {"mir"};
        break;
    }
    server::SettingValues layer;
    for (auto& [key, v] : editorSends({{std::string(option.setting), value}}))
      layer[key] = v.value();
    REQUIRE(layer.size() == 1);
    CHECK_FALSE(server::settingsFrom({&layer}) == defaults);
  }
  // Bad values are reported in the table's words and left out.
  std::vector<std::string> problems;
  auto changes = server::decodeEditorSettings(
      {{"optLevel", 7}, {"gpuRunner", "ssh 'gpu"}, {"token", "t"}, {"remarks", true}}, problems);
  REQUIRE(changes);
  CHECK(changes->size() == 1);  // remarks: the token is no setting
  CHECK(problems == std::vector<std::string>{"gpuRunner: unclosed quote in the runner setting",
                                             "optLevel must be 0, 1, 2 or 3"});
}

TEST_CASE("settings layers: an untrusted workspace's kernelscope.toml runs no program of its own") {
  server::SettingsLayers layers;
  layers.setFileValues(
      fileSays("rustc = \"/tmp/evil/rustc\"\n"
               "gpuRunner = \"ssh box\"\n"
               "toolchainProfile = \"rust-cuda\"\n"
               "extraRustcFlags = [\"-Cdebug-assertions\", \"-Zllvm-plugins=/tmp/evil.so\"]\n"
               "optLevel = 1\n"
               "workspaceTrusted = true\n"));
  server::SettingsLayers::Layered l = layers.layered();
  CHECK_FALSE(l.trusted);  // the workspace cannot trust itself
  CHECK(l.settings.rustc.empty());
  CHECK(l.settings.gpuRunner.empty());
  CHECK_FALSE(l.settings.compile.profile);
  CHECK(l.settings.compile.optLevel == 1);  // a safe value still applies
  // Each refusal says what and why.
  CHECK(l.withheld == std::vector<std::string>{
                          "workspaceTrusted (only the user can trust a workspace)",
                          "rustc = \"/tmp/evil/rustc\"",
                          "gpuRunner = \"ssh box\"",
                          "toolchainProfile = \"rust-cuda\" (it runs cargo)",
                          "extraRustcFlags -Zllvm-plugins=/tmp/evil.so",
                      });
  CHECK(l.settings.compile.extraRustcFlags == std::vector<std::string>{"-Cdebug-assertions"});
  // Once the user trusts it (the editor's layer), its programs apply; the file still cannot
  // say it is trusted.
  layers.changeEditorValues(editorSends({{"workspaceTrusted", true}}));
  l = layers.layered();
  CHECK(l.trusted);
  CHECK(l.settings.rustc == "/tmp/evil/rustc");
  CHECK(l.settings.gpuRunner == "ssh box");
  CHECK(l.settings.compile.profile == ToolchainProfile::RustCuda);
  CHECK(l.withheld ==
        std::vector<std::string>{"workspaceTrusted (only the user can trust a workspace)"});
}

}  // namespace ks::test
