// The server as an editor sees it: it names the client's documents as the client spelled
// them, speaks plain text to a client that wants it, answers inlay hints on long files at
// once, starts nothing after `shutdown`, leaves with the editor, and recompiles only what an
// edit touches.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>

#include "Engine.h"
#include "Features.h"
#include "ServerTestSupport.h"
#include "TestClient.h"
#include "Toolchain.h"
#include "Uri.h"

namespace ks::test {
namespace {

json openAs(TestClient& client, const std::string& uri, const std::string& text) {
  client.notify(
      "textDocument/didOpen",
      {{"textDocument", {{"uri", uri}, {"languageId", "rust"}, {"version", 1}, {"text", text}}}});
  client.sync();
  return client.messages();
}

}  // namespace

TEST_CASE("the client's spelling of a URI (%3a, non-ASCII) comes back as it was sent") {
  TestClient client(TestClient::options());
  // `:` as lower-case %3a and `ü` percent-encoded, as some clients write them.
  const std::string uri = "file:///tmp/kernelscope-test/%C3%BC%3adir/src/saxpy.rs";
  REQUIRE(lsp::fileUriToPath(uri) ==
          std::optional<std::string>("/tmp/kernelscope-test/ü:dir/src/saxpy.rs"));
  REQUIRE(lsp::pathToFileUri("/tmp/kernelscope-test/ü:dir/src/saxpy.rs") != uri);
  openAs(client, uri, kSaxpy);

  json artifact =
      client.result("kernelscope/artifact", {{"textDocument", {{"uri", uri}}}, {"stage", "ptx"}});
  REQUIRE(artifact["segments"].size() == 2);
  // The user's call site in the inline chain names the open document.
  const json& chain = artifact["chains"][artifact["segments"][1]["chain"].get<int>()];
  REQUIRE(chain.size() == 2);
  CHECK(chain[1]["uri"] == uri);
  CHECK(chain[0]["uri"] != uri);  // core's file is not open: a plain file: URI

  json location =
      client.result("kernelscope/sourceLocation", {{"uri", artifact["uri"]}, {"line", 3}});
  CHECK(location["location"]["uri"] == uri);
  CHECK(location["inlineChain"][1]["uri"] == uri);

  json lenses = client.result("textDocument/codeLens", {{"textDocument", {{"uri", uri}}}});
  REQUIRE(!lenses.empty());
  CHECK(lenses.back()["command"]["arguments"][0]["uri"] == uri);

  std::string broken = kSaxpy;
  broken.replace(broken.find("idx()"), 5, "ERROR");
  client.change(uri, broken, 2);
  client.sync();
  auto diagnostics = client.notifications("textDocument/publishDiagnostics");
  REQUIRE(diagnostics.size() == 1);
  CHECK(diagnostics[0]["uri"] == uri);
  for (const json& status : client.notifications("kernelscope/status")) CHECK(status["uri"] == uri);
}

TEST_CASE("hover answers in plain text to a client that accepts only plaintext") {
  for (bool plain : {true, false}) {
    CAPTURE(plain);
    TestClient client(TestClient::options(), /*initialize=*/false);
    json formats = plain ? json{"plaintext"} : json{"markdown", "plaintext"};
    client.result("initialize", {{"capabilities",
                                  {{"textDocument", {{"hover", {{"contentFormat", formats}}}}}}}});
    client.notify("initialized", json::object());
    std::string uri = client.open("/tmp/kernelscope-test/src/saxpy.rs", kSaxpy);
    client.sync();
    json hover = client.result(
        "textDocument/hover",
        {{"textDocument", {{"uri", uri}}}, {"position", {{"line", 3}, {"character", 4}}}});
    const std::string value = hover["contents"]["value"];
    CHECK(hover["contents"]["kind"] == (plain ? "plaintext" : "markdown"));
    CHECK((value.find("```") == std::string::npos) == plain);
    CHECK((value.find("**") == std::string::npos) == plain);
    CHECK((value.find('`') == std::string::npos) == plain);
    CHECK(value.find("ptx") != std::string::npos);
    // The server's own revision numbers are not the user's business.
    CHECK(value.find("revision") == std::string::npos);

    json artifact =
        client.result("kernelscope/artifact", {{"textDocument", {{"uri", uri}}}, {"stage", "ptx"}});
    json onPtx =
        client.result("textDocument/hover", {{"textDocument", {{"uri", artifact["uri"]}}},
                                             {"position", {{"line", 3}, {"character", 0}}}});
    CHECK(onPtx["contents"]["kind"] == (plain ? "plaintext" : "markdown"));
    CHECK((onPtx["contents"]["value"].get<std::string>().find("```") == std::string::npos) ==
          plain);
  }
}

namespace {

// A kernel whose body is `lines` lets, each of which gets a hint at its end.
std::string longKernel(int lines) {
  std::string text = "#![no_std]\npub unsafe extern \"ptx-kernel\" fn big(y: *mut f32) {\n";
  for (int i = 0; i < lines; ++i) text += "    let v" + std::to_string(i) + " = 1;\n";
  return text + "}\n";
}

json inlayHints(TestClient& client, const std::string& uri, int lines) {
  return client.result("textDocument/inlayHint",
                       {{"textDocument", {{"uri", uri}}},
                        {"range",
                         {{"start", {{"line", 0}, {"character", 0}}},
                          {"end", {{"line", lines + 3}, {"character", 0}}}}}});
}

// The time of one answer, in milliseconds.
double hintsMs(TestClient& client, const std::string& uri, int lines) {
  auto start = std::chrono::steady_clock::now();
  json hints = inlayHints(client, uri, lines);
  REQUIRE(hints.size() == static_cast<size_t>(lines));
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

TEST_CASE("inlay hints take time linear in the file's length") {
  TestClient client(TestClient::options());
  constexpr int kShort = 1000, kLong = 16000;
  std::string shortUri = client.open("/tmp/kernelscope-test/src/short.rs", longKernel(kShort));
  std::string longUri = client.open("/tmp/kernelscope-test/src/big.rs", longKernel(kLong));
  client.sync();

  json hints = inlayHints(client, longUri, kLong);
  REQUIRE(hints.size() == kLong);
  // Each hint sits at the end of its own line.
  const std::string last = "    let v" + std::to_string(kLong - 1) + " = 1;";
  CHECK(hints.back()["position"] ==
        json({{"line", kLong + 1}, {"character", static_cast<int>(last.size())}}));

  // A scaling check, not a time limit: sixteen times the lines cost about sixteen times as
  // much when the walk is linear (up to about forty with cache effects) and about 256 times
  // when it is quadratic (which took 1.4 s at 10,000 lines), whatever the machine's speed.
  // The short and long requests alternate and the fastest of each counts, so a busy spell
  // on a shared machine weighs on both alike.
  double shortMs = 1e18, longMs = 1e18;
  for (int round = 0; round < 5; ++round) {
    shortMs = std::min(shortMs, hintsMs(client, shortUri, kShort));
    longMs = std::min(longMs, hintsMs(client, longUri, kLong));
  }
  MESSAGE("inlay hints: " << kShort << " lines " << shortMs << " ms, " << kLong << " lines "
                          << longMs << " ms");
  CHECK(longMs < 96 * std::max(shortMs, 1.0));
}

TEST_CASE("after shutdown no compile starts") {
  TestClient client(TestClient::options());
  std::string uri = client.open("/tmp/kernelscope-test/src/saxpy.rs", kSaxpy);
  client.sync();
  client.messages();
  int calls = client.compiler().calls;
  CHECK(client.result("shutdown", nullptr).is_null());
  client.change(uri, kSaxpy + "\n", 2);
  client.notify("textDocument/didSave", {{"textDocument", {{"uri", uri}}}});
  client.notify("workspace/didChangeConfiguration", {{"settings", {{"arch", "sm_80"}}}});
  client.sync();
  CHECK(client.compiler().calls == calls);
  CHECK(client.notifications("kernelscope/status").empty());
}

TEST_CASE("the server exits when the editor process named in initialize dies") {
  pid_t editor = ::fork();
  REQUIRE(editor >= 0);
  if (editor == 0) {
    ::pause();  // a stand-in editor: waits until killed
    ::_exit(0);
  }
  server::ServerOptions options = TestClient::options();
  options.editorPollInterval = std::chrono::milliseconds(10);
  TestClient client(std::move(options), /*initialize=*/false);
  client.result("initialize", {{"processId", editor}, {"capabilities", json::object()}});
  client.notify("initialized", json::object());
  client.open("/tmp/kernelscope-test/src/saxpy.rs", kSaxpy);
  client.sync();
  CHECK_FALSE(client.server().finished());

  ::kill(editor, SIGKILL);
  ::waitpid(editor, nullptr, 0);
  CHECK(client.syncUntil([&] { return client.server().finished(); }));
  CHECK(client.server().exitCode() == 1);  // no shutdown came first
}

TEST_CASE("real pipeline: an edit recompiles its own file, not a failed neighbour") {
  Toolchain tc = discoverToolchain();
  if (!tc.rustc.found() || !tc.sysroot.found()) {
    MESSAGE("skipped: no usable rustc and nvptx64 sysroot (run scripts/setup.sh)");
    return;
  }
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("kernelscope-neighbours-" + std::to_string(getpid()));
  fs::create_directories(dir);
  // Two kernels on their own in one directory, both with a type error.
  const std::string broken =
      "#![no_std]\n#![feature(abi_ptx)]\n"
      "#[no_mangle]\npub unsafe extern \"ptx-kernel\" fn k(y: *mut f32) { *y = 1u32; }\n"
      "#[panic_handler]\nfn panic(_: &core::panic::PanicInfo) -> ! { loop {} }\n";
  for (const char* name : {"a.rs", "b.rs"}) std::ofstream(dir / name) << broken;

  Engine compiler(ToolchainSettings{}, nullptr);
  server::ServerOptions o = TestClient::options(/*workers=*/1, std::chrono::milliseconds(0));
  o.compile = [&compiler](const CompileInput& in, const CompileOptions& opts,
                          const CancellationToken& c) { return compiler.compile(in, opts, c); };
  {
    TestClient client(std::move(o));
    std::string a = client.open((dir / "a.rs").string(), broken);
    std::string b = client.open((dir / "b.rs").string(), broken);
    client.sync();
    client.messages();
    client.change(a, broken + "// edited\n", 2);
    client.sync();
    for (const json& s : client.notifications("kernelscope/status")) {
      CAPTURE(s.dump());
      CHECK(s["uri"] == a);
    }
  }
  fs::remove_all(dir);
}

TEST_CASE("a failed status names the document's own error, else the first one with its file") {
  auto error = [](const std::string& file, uint32_t line, const std::string& message) {
    Diagnostic d;
    d.severity = Severity::Error;
    d.message = message;
    d.range = SourceRange{file, line, 1, line, 2};
    return d;
  };
  auto result = std::make_shared<CompileResult>();
  result->diagnostics = {error("/k/src/blend.rs", 4, "mismatched types"),
                         error("/k/src/lib.rs", 9, "cannot find value `x` in this scope")};
  server::Snapshot attempt;
  attempt.revision = 2;
  attempt.result = result;
  attempt.path = "/k/src/lib.rs";
  CHECK(server::statusOf("file:///k/src/lib.rs", 2, "failed", &attempt, false, nullptr).message ==
        "cannot find value `x` in this scope");
  // A module with no error of its own: the crate's first error, named by its file and line.
  attempt.path = "/k/src/scale.rs";
  CHECK(server::statusOf("file:///k/src/scale.rs", 2, "failed", &attempt, false, nullptr).message ==
        "blend.rs:4: mismatched types");
}

}  // namespace ks::test
