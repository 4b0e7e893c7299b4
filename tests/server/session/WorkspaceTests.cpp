// In-process tests of the language server (a fake client over an in-memory transport, a
// fake compile function): a crate's files: one compile for the open files of a crate, watched and
// polled modules.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <atomic>
#include <fstream>
#include <set>

#include "Features.h"
#include "ServerTestSupport.h"
#include "TestClient.h"
#include "Uri.h"

namespace ks::test {

TEST_CASE("a crate's open files share one compile, and diagnostics go to the file they name") {
  // A compile function standing in for the pipeline on a crate of lib.rs and math.rs: it
  // names the crate, lists its files, and reports an error in math.rs while it is broken
  // (on disk, or in its unsaved text).
  const std::string dir = "/tmp/kernelscope-test/crate", manifest = dir + "/Cargo.toml";
  const std::string libPath = dir + "/src/lib.rs", mathPath = dir + "/src/math.rs";
  std::atomic<bool> brokenOnDisk{false};
  std::vector<CompileInput> inputs;
  server::ServerOptions options = TestClient::options();
  options.compile = [&](const CompileInput& in, const CompileOptions& o, const CancellationToken&) {
    inputs.push_back(in);
    CompileResult r;
    r.arch = resolveOptions(o).arch;
    r.crateManifest = manifest;
    auto overlay = in.overlays.find(mathPath);
    bool broken = overlay != in.overlays.end() ? overlay->second.find("BROKEN") != std::string::npos
                                               : brokenOnDisk.load();
    if (broken) {
      Diagnostic d;
      d.source = "rustc";
      d.message = "cannot find value `BROKEN` in this scope";
      d.range = SourceRange{mathPath, 2, 5, 2, 11};
      r.diagnostics.push_back(d);
      return r;
    }
    r.succeeded = true;
    r.sourceFiles = {libPath, mathPath, manifest};
    r.lineMap = std::make_shared<LineMap>(std::vector<std::string>{libPath, mathPath});
    return r;
  };
  TestClient client(options);
  std::string lib = client.open(libPath, "mod math;\n");
  client.sync();
  std::string math = client.open(mathPath, "pub fn f() {}\n");
  client.sync();
  REQUIRE(inputs.size() == 2);
  CHECK(inputs[1].path == libPath);  // math.rs joined lib.rs's crate: one compile for both
  CHECK(inputs[1].overlays.at(mathPath) == "pub fn f() {}\n");
  client.messages();

  // An edit of math.rs: one compile, both files get a new revision.
  client.change(math, "pub fn f() { let x = 1; }\n", 2);
  client.sync();
  CHECK(inputs.size() == 3);
  auto statuses = client.notifications("kernelscope/status");
  std::map<std::string, int> ready;
  for (const auto& st : statuses)
    if (st["state"] == "ready") ready[st["uri"]] = st["revision"];
  CHECK(ready.size() == 2);
  CHECK(client.result("kernelscope/kernels", textDocument(lib))["revision"] == ready[lib]);

  // Broken on disk while not open: the error is published for math.rs, none for lib.rs.
  client.notify("textDocument/didClose", {{"textDocument", {{"uri", math}}}});
  client.sync();
  client.messages();
  brokenOnDisk = true;
  client.notify("workspace/didChangeWatchedFiles", {{"changes", {{{"uri", math}, {"type", 2}}}}});
  client.sync();
  // The diagnostics published since the last look, the latest per URI.
  auto publishedNow = [&client] {
    std::map<std::string, json> out;
    for (const auto& p : client.notifications("textDocument/publishDiagnostics"))
      out[p["uri"]] = p["diagnostics"];
    return out;
  };
  std::map<std::string, json> published = publishedNow();
  REQUIRE(published.count(math));
  REQUIRE(published[math].size() == 1);
  CHECK(published[math][0]["range"]["start"]["line"] == 1);
  CHECK(published[lib].empty());

  // Fixed: cleared. Broken again, then lib.rs closed: cleared with the crate's last file.
  brokenOnDisk = false;
  client.notify("workspace/didChangeWatchedFiles", {{"changes", {{{"uri", math}, {"type", 2}}}}});
  client.sync();
  published = publishedNow();
  REQUIRE(published.count(math));
  CHECK(published[math].empty());
  brokenOnDisk = true;
  client.notify("workspace/didChangeWatchedFiles", {{"changes", {{{"uri", math}, {"type", 2}}}}});
  client.sync();
  client.messages();
  client.notify("textDocument/didClose", {{"textDocument", {{"uri", lib}}}});
  client.sync();
  published = publishedNow();
  REQUIRE(published.count(math));
  CHECK(published[math].empty());
}

TEST_CASE("watched files: a change to a module an open kernel uses recompiles it") {
  TestClient client(TestClient::options(), false);
  json init = client.result(
      "initialize",
      {{"capabilities",
        {{"workspace", {{"didChangeWatchedFiles", {{"dynamicRegistration", true}}}}}}}});
  client.notify("initialized", json::object());
  auto sent = client.messages();
  std::set<std::string> globs;
  for (const auto& m : sent)
    if (m.value("method", "") == "client/registerCapability")
      for (const auto& w : m["params"]["registrations"][0]["registerOptions"]["watchers"])
        globs.insert(w["globPattern"]);
  CHECK(globs == std::set<std::string>{"**/*.rs", "**/Cargo.toml", "**/Cargo.lock",
                                       "**/.cargo/config.toml", "**/.cargo/config",
                                       "**/kernelscope.toml"});

  std::string uri = client.open(kPath, "mod common;\n" + kSaxpy);
  client.sync();
  int calls = client.compiler().calls;
  client.notify("workspace/didChangeWatchedFiles",
                {{"changes", {{{"uri", "file:///elsewhere/other.rs"}, {"type", 2}}}}});
  client.sync();
  CHECK(client.compiler().calls == calls);
  client.notify(
      "workspace/didChangeWatchedFiles",
      {{"changes",
        {{{"uri", lsp::pathToFileUri("/tmp/kernelscope-test/src/common.rs")}, {"type", 2}}}}});
  client.sync();
  CHECK(client.compiler().calls == calls + 1);
}

TEST_CASE("without the client's watching, the server polls the modules that open kernels use") {
  TempDir dir("kernelscope-test");
  const std::string kernel = (dir.path() / "k.rs").string();
  const std::string common = (dir.path() / "common.rs").string();
  auto write = [&](const std::string& text) { std::ofstream(common) << text; };
  write("pub fn h() {}\n");
  server::ServerOptions options = TestClient::options();
  options.watchInterval = std::chrono::milliseconds(5);
  TestClient client(options);  // its capabilities do not offer dynamic registration
  client.open(kernel, "mod common;\n" + kSaxpy);
  client.sync();
  int calls = client.compiler().calls;
  write("pub fn h() { let changed = 1; }\n");
  CHECK(client.syncUntil([&] { return client.compiler().calls > calls; }));
  CHECK(client.compiler().calls == calls + 1);
}

}  // namespace ks::test
