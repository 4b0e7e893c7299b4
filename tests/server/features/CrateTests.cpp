// The server on real Cargo projects: a copy of examples/crate (two modules, a path
// dependency on crate-util) in a temporary directory, so that the tests can change its files
// on disk; a cargo workspace with a build script and a registry dependency. Each needs a live
// toolchain (RequireToolchain.h): no recording holds their edits.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "Engine.h"
#include "RealPipeline.h"
#include "TestClient.h"
#include "Uri.h"

namespace ks::test {

namespace {

class CrateCopy {
 public:
  CrateCopy() {
    for (const char* name : {"crate", "crate-util"})
      std::filesystem::copy(std::filesystem::path(KS_SOURCE_DIR) / "examples" / name,
                            dir_.path() / name, std::filesystem::copy_options::recursive);
  }
  /// The absolute path of `rel` in the copy of examples/crate.
  std::string file(const std::string& rel) const { return (dir_.path() / "crate" / rel).string(); }
  /// The folder that holds the copy (examples/crate's parent).
  const std::filesystem::path& parent() const { return dir_.path(); }
  /// Writes `text` to `rel` and tells the server, as a client's file watcher would.
  void write(TestClient& client, const std::string& rel, const std::string& text) const {
    std::ofstream(file(rel), std::ios::binary | std::ios::trunc) << text;
    client.notify("workspace/didChangeWatchedFiles",
                  {{"changes", {{{"uri", lsp::pathToFileUri(file(rel))}, {"type", 2}}}}});
  }

 private:
  TempDir dir_{"kernelscope-crate"};
};

json lastStatusOf(const std::vector<json>& statuses, const std::string& uri) {
  json last;
  for (const auto& s : statuses)
    if (s["uri"] == uri) last = s;
  return last;
}

std::vector<json> diagnosticsFor(const std::vector<json>& published, const std::string& uri) {
  std::vector<json> out;
  for (const auto& p : published)
    if (p["uri"] == uri) out.push_back(p);
  return out;
}

}  // namespace

TEST_CASE(
    "real crate: its open files compile as one crate, and a line of a module maps to its "
    "instructions") {
  requireToolchain();  // examples/crate and its edits: compiles no recording holds
  CrateCopy crate;
  Engine* compiler = nullptr;
  TestClient client(realOptions(compiler));
  const std::string libText = readWholeFile(crate.file("src/lib.rs")),
                    mathText = readWholeFile(crate.file("src/math.rs"));
  std::string lib = client.open(crate.file("src/lib.rs"), libText);
  client.sync();
  std::string math = client.open(crate.file("src/math.rs"), mathText);
  client.sync();
  auto statuses = client.notifications("kernelscope/status");
  REQUIRE(lastStatusOf(statuses, math)["state"] == "ready");

  // `scaled * y` is inlined from math.rs into both kernels: its line in math.rs has PTX.
  int line = lineOf(mathText, "let scaled = a * x;");
  json map =
      client.result("kernelscope/lineMap", {{"textDocument", {{"uri", math}}}, {"line", line}});
  REQUIRE(map["counts"]["ptx"].get<int>() > 0);
  json artifact =
      client.result("kernelscope/artifact", {{"textDocument", {{"uri", math}}}, {"stage", "ptx"}});
  const std::string ptx = artifact["text"];  // splitLines gives views into it
  auto ptxLines = splitLines(ptx);
  bool multiply = false;
  for (const auto& r : map["stages"]["ptx"])
    for (int l = r["start"]; l <= r["end"].get<int>(); ++l)
      multiply |= ptxLines[l].find("mul") != std::string_view::npos;
  CHECK(multiply);
  bool segment = false;  // a segment without a uri is about the requested document
  for (const auto& seg : artifact["segments"])
    segment |= !seg["source"].contains("uri") && seg["source"]["line"] == line;
  CHECK(segment);
  json hover = client.result(
      "textDocument/hover",
      {{"textDocument", {{"uri", math}}}, {"position", {{"line", line}, {"character", 8}}}});
  CHECK(hover["contents"]["value"].get<std::string>().find("**ptx**") != std::string::npos);
  json range = {{"start", {{"line", 0}, {"character", 0}}},
                {"end", {{"line", 20}, {"character", 0}}}};
  json hints = client.result("textDocument/inlayHint",
                             {{"textDocument", {{"uri", math}}}, {"range", range}});
  bool hinted = false;
  for (const auto& h : hints) hinted |= h["position"]["line"] == line;
  CHECK(hinted);

  // An edit of the module compiles the crate once, and both open files follow it.
  int started = client.server().scheduler().stats().started;
  std::string edited = mathText;
  edited.replace(edited.find("a * x;"), 6, "a * x * x;");
  client.change(math, edited, 2);
  client.sync();
  CHECK(client.server().scheduler().stats().started == started + 1);
  statuses = client.notifications("kernelscope/status");
  json libStatus = lastStatusOf(statuses, lib), mathStatus = lastStatusOf(statuses, math);
  CHECK(libStatus["state"] == "ready");
  CHECK(mathStatus["state"] == "ready");
  json libKernels = client.result("kernelscope/kernels", {{"textDocument", {{"uri", lib}}}});
  CHECK(libKernels["revision"] == libStatus["revision"]);
  // lib.rs's own view now has the extra multiply, compiled from math.rs's unsaved text.
  json libPtx =
      client.result("kernelscope/artifact", {{"textDocument", {{"uri", lib}}}, {"stage", "ptx"}});
  CHECK(libPtx["text"] != artifact["text"]);
  CHECK(readWholeFile(crate.file("src/math.rs")) == mathText);  // the disk was never written
}

TEST_CASE("real crate: two of its files opened at once end up served by one compile of the crate") {
  requireToolchain();  // examples/crate and its edits: compiles no recording holds
  CrateCopy crate;
  Engine* compiler = nullptr;
  TestClient client(realOptions(compiler));
  const std::string mathText = readWholeFile(crate.file("src/math.rs"));
  std::string lib = client.open(crate.file("src/lib.rs"), readWholeFile(crate.file("src/lib.rs")));
  std::string math = client.open(crate.file("src/math.rs"), mathText);
  client.sync();
  auto statuses = client.notifications("kernelscope/status");
  CHECK(lastStatusOf(statuses, lib)["state"] == "ready");
  CHECK(lastStatusOf(statuses, math)["state"] == "ready");
  json map = client.result("kernelscope/lineMap", {{"textDocument", {{"uri", math}}},
                                                   {"line", lineOf(mathText, "v * v")}});
  CHECK(map["counts"]["ptx"].get<int>() > 0);
  // From now on they are one crate: an edit of either compiles once.
  int started = client.server().scheduler().stats().started;
  std::string edited = mathText;
  edited.replace(edited.find("v * v"), 5, "v * v + v");
  client.change(math, edited, 2);
  client.sync();
  CHECK(client.server().scheduler().stats().started == started + 1);
}

TEST_CASE(
    "real crate: a module changed on disk updates the open views, and its errors go to its own "
    "URI") {
  requireToolchain();  // examples/crate and its edits: compiles no recording holds
  CrateCopy crate;
  Engine* compiler = nullptr;
  TestClient client(realOptions(compiler));
  std::string lib = client.open(crate.file("src/lib.rs"), readWholeFile(crate.file("src/lib.rs")));
  client.sync();
  json before =
      client.result("kernelscope/artifact", {{"textDocument", {{"uri", lib}}}, {"stage", "ptx"}});
  client.messages();

  // math.rs is not open: the change on disk reaches the open lib.rs through its watcher.
  const std::string mathText = readWholeFile(crate.file("src/math.rs"));
  std::string edited = mathText;
  edited.replace(edited.find("v * v"), 5, "v * v * v");
  crate.write(client, "src/math.rs", edited);
  client.sync();
  json status = lastStatusOf(client.notifications("kernelscope/status"), lib);
  CHECK(status["state"] == "ready");
  CHECK(status["revision"].get<int>() > before["revision"].get<int>());
  json after =
      client.result("kernelscope/artifact", {{"textDocument", {{"uri", lib}}}, {"stage", "ptx"}});
  CHECK(after["revision"] == status["revision"]);
  CHECK(after["text"] != before["text"]);

  // A broken module: rustc's error is published for math.rs at its line, not for lib.rs.
  const std::string mathUri = lsp::pathToFileUri(crate.file("src/math.rs"));
  std::string broken = mathText;
  broken.replace(broken.find("v * v"), 5, "v * undefined_name");
  crate.write(client, "src/math.rs", broken);
  client.sync();
  auto published = client.notifications("textDocument/publishDiagnostics");
  auto forMath = diagnosticsFor(published, mathUri), forLib = diagnosticsFor(published, lib);
  REQUIRE(!forMath.empty());
  bool atLine = false;
  for (const auto& d : forMath.back()["diagnostics"])
    atLine |= d["severity"] == 1 &&
              d["range"]["start"]["line"] == lineOf(broken, "undefined_name") &&
              d["message"].get<std::string>().find("undefined_name") != std::string::npos;
  CHECK(atLine);
  REQUIRE(!forLib.empty());
  for (const auto& d : forLib.back()["diagnostics"])
    CHECK(d["message"].get<std::string>().find("undefined_name") == std::string::npos);

  // Fixed again: math.rs's diagnostics are cleared.
  crate.write(client, "src/math.rs", mathText);
  client.sync();
  forMath = diagnosticsFor(client.notifications("textDocument/publishDiagnostics"), mathUri);
  REQUIRE(!forMath.empty());
  CHECK(forMath.back()["diagnostics"].empty());
}

TEST_CASE(
    "real crate: [package.metadata.kernelscope] applies where the editor sets nothing, and the "
    "editor wins") {
  requireToolchain();  // examples/crate for other arches: compiles no recording holds
  CrateCopy crate;
  auto withArch = [&](const std::string& arch) {
    std::string manifest = readWholeFile(crate.file("Cargo.toml"));
    size_t at = manifest.find("arch = \"");
    REQUIRE(at != std::string::npos);
    return manifest.replace(at, manifest.find('\n', at) - at, "arch = \"" + arch + "\"");
  };
  const std::string sm80 = withArch("sm_80");
  std::ofstream(crate.file("Cargo.toml"), std::ios::trunc) << sm80;
  Engine* compiler = nullptr;
  TestClient client(realOptions(compiler));
  std::string lib = client.open(crate.file("src/lib.rs"), readWholeFile(crate.file("src/lib.rs")));
  client.sync();
  auto kernels = [&] {
    return client.result("kernelscope/kernels", {{"textDocument", {{"uri", lib}}}});
  };
  CHECK(kernels()["arch"] == "sm_80");

  // The editor's arch wins; unset again (null), the crate's applies.
  client.notify("workspace/didChangeConfiguration",
                {{"settings", {{"kernelscope", {{"arch", "sm_75"}}}}}});
  client.sync();
  CHECK(kernels()["arch"] == "sm_75");
  client.notify("workspace/didChangeConfiguration",
                {{"settings", {{"kernelscope", {{"arch", nullptr}}}}}});
  client.sync();
  CHECK(kernels()["arch"] == "sm_80");

  // A change of the Cargo.toml on disk recompiles with its new default.
  const std::string sm86 = withArch("sm_86");
  crate.write(client, "Cargo.toml", sm86);
  client.sync();
  json k = kernels();
  CHECK(k["arch"] == "sm_86");
  CHECK(k["kernels"].size() == 2);
}

TEST_CASE("real crate through cargo: a cargo configuration file created above it recompiles it") {
  requireToolchain();  // cargo's builds of examples/crate: no recording holds them
  CrateCopy crate;
  Engine* compiler = nullptr;
  server::ServerOptions options = realOptions(compiler);
  options.watchInterval = std::chrono::milliseconds(5);  // the server polls what was read
  TestClient client(options, false);
  client.result("initialize", {{"capabilities", json::object()},
                               {"initializationOptions", {{"workspaceTrusted", true}}}});
  client.notify("initialized", json::object());
  const std::string lib =
      client.open(crate.file("src/lib.rs"), readWholeFile(crate.file("src/lib.rs")));
  client.sync();
  auto revision = [&] {
    return client.result("kernelscope/kernels", {{"textDocument", {{"uri", lib}}}})["revision"]
        .get<int>();
  };
  const int before = revision();
  const size_t compiled = compiler->counters().compiled;
  REQUIRE(compiled >= 1);
  // cargo reads .cargo/config.toml in every folder above the package, also one made now.
  std::filesystem::create_directories(crate.parent() / ".cargo");
  std::ofstream(crate.parent() / ".cargo/config.toml") << "[build]\n";
  CHECK(client.syncUntil([&] { return compiler->counters().compiled > compiled; }));
  client.sync();
  CHECK(revision() > before);
}

TEST_CASE("real crate: switching the arch live from sm_75 to sm_90 recompiles the SASS for it") {
  requireToolchain();  // examples/crate for sm_75 and sm_90: compiles no recording holds
  CrateCopy crate;
  Engine* compiler = nullptr;
  TestClient client(realOptions(compiler), false);
  client.result("initialize",
                {{"capabilities", json::object()}, {"initializationOptions", {{"arch", "sm_75"}}}});
  client.notify("initialized", json::object());
  std::string lib = client.open(crate.file("src/lib.rs"), readWholeFile(crate.file("src/lib.rs")));
  client.sync();
  auto sass = [&] {
    json r = client.request("kernelscope/artifact",
                            {{"textDocument", {{"uri", lib}}}, {"stage", "sass"}});
    REQUIRE_MESSAGE(r.contains("result"), "no SASS: " << r.dump());
    return r["result"]["text"].get<std::string>();
  };
  json before = client.result("kernelscope/kernels", {{"textDocument", {{"uri", lib}}}});
  CHECK(before["arch"] == "sm_75");
  const std::string sass75 = sass();
  CHECK(sass75.find("SM75") != std::string::npos);

  CHECK(client
            .result("workspace/executeCommand",
                    {{"command", "kernelscope.setArch"}, {"arguments", {"sm_90"}}})
            .is_null());
  json after = client.result("kernelscope/kernels", {{"textDocument", {{"uri", lib}}}});
  CHECK(after["arch"] == "sm_90");
  CHECK(after["revision"].get<int>() > before["revision"].get<int>());
  const std::string sass90 = sass();
  CHECK(sass90.find("SM90") != std::string::npos);
  CHECK(sass90.find("SM75") == std::string::npos);
}

TEST_CASE(
    "real cargo workspace: untrusted, its build script is not run and its manifest says so; "
    "trusted, cargo builds it and a dependency's file shows its code per kernel") {
  requireToolchain();  // cargo, a build script and a registry crate: no recording holds them
  std::error_code ec;
  bool registry = false;  // num-traits from Debian's librust-num-traits-dev (scripts/setup.sh)
  for (const auto& e : std::filesystem::directory_iterator("/usr/share/cargo/registry", ec))
    registry |= e.path().filename().string().starts_with("num-traits-");
  if (!registry) {
    MESSAGE("skipped: /usr/share/cargo/registry has no num-traits (scripts/setup.sh)");
    return;
  }
  const std::string root = KS_SOURCE_DIR "/tests/fixtures/cargo";
  Engine* compiler = nullptr;
  TestClient client(realOptions(compiler), false);
  client.result("initialize",
                {{"rootUri", lsp::pathToFileUri(root)}, {"capabilities", json::object()}});
  client.notify("initialized", json::object());
  const std::string kernelsPath = root + "/kernels/src/kernels.rs";
  const std::string manifestUri = lsp::pathToFileUri(root + "/kernels/Cargo.toml");
  std::string uri = client.open(kernelsPath, readWholeFile(kernelsPath));
  client.sync();
  auto kernelNames = [&] {
    std::string names;  // sorted, comma-separated
    std::set<std::string> sorted;
    json r = client.result("kernelscope/kernels", {{"textDocument", {{"uri", uri}}}});
    for (const auto& k : r["kernels"]) sorted.insert(k["name"].get<std::string>());
    for (const auto& n : sorted) names += (names.empty() ? "" : ",") + n;
    return names;
  };
  // The workspace-trust warnings last published for the manifest (nullopt: none published).
  auto trustWarnings = [&](const std::vector<json>& messages) {
    std::optional<std::vector<std::string>> out;
    for (const auto& m : messages)
      if (m.value("method", "") == "textDocument/publishDiagnostics" &&
          m["params"]["uri"] == manifestUri) {
        out.emplace();
        for (const auto& d : m["params"]["diagnostics"])
          if (d.value("code", "") == "workspace-trust") out->push_back(d["message"]);
      }
    return out;
  };

  // Untrusted: rustc alone, without the build script's cfg; the manifest says what is off.
  auto warnings = trustWarnings(client.messages());
  REQUIRE(warnings);
  REQUIRE(warnings->size() == 1);
  CHECK(warnings->front().find("gpu-kernels's build script") != std::string::npos);
  CHECK(warnings->front().find("not trusted") != std::string::npos);
  CHECK(kernelNames() == "smooth");

  // Trusted: cargo runs the build script, reads .cargo/config.toml and the registry crate,
  // and the warning is withdrawn.
  client.notify("workspace/didChangeConfiguration",
                {{"settings", {{"kernelscope", {{"workspaceTrusted", true}}}}}});
  client.sync();
  std::vector<json> messages = client.messages();
  warnings = trustWarnings(messages);
  REQUIRE(warnings);
  CHECK(warnings->empty());
  json status;
  for (const auto& m : messages)
    if (m.value("method", "") == "kernelscope/status" && m["params"]["uri"] == uri)
      status = m["params"];
  CHECK(status["state"] == "ready");
  CHECK(status["workspaceTrusted"] == true);
  CHECK(kernelNames() == "configured,root,smooth");

  // The path dependency's file: its functions' code per kernel, in lenses.
  const std::string fastmathPath = root + "/fastmath/src/lib.rs";
  const std::string fastmathText = readWholeFile(fastmathPath);
  std::string fastmath = client.open(fastmathPath, fastmathText);
  client.sync();
  json lenses = client.result("textDocument/codeLens", {{"textDocument", {{"uri", fastmath}}}});
  std::map<int, std::vector<std::string>> titles;
  for (const auto& l : lenses)
    titles[l["range"]["start"]["line"].get<int>()].push_back(l["command"]["title"]);
  INFO(lenses.dump());
  const int smoothstep = lineOf(fastmathText, "pub fn smoothstep");
  REQUIRE(titles.count(smoothstep));
  bool inSmooth = false;
  for (const auto& t : titles[smoothstep])
    inSmooth |= t.starts_with("in smooth: ") && t.find(" PTX") != std::string::npos;
  CHECK(inSmooth);
  for (const auto& l : lenses) {
    CHECK(l["command"]["command"] == "kernelscope.openArtifact");
    CHECK(l["command"]["arguments"][0]["uri"] == fastmath);
  }
}

}  // namespace ks::test
