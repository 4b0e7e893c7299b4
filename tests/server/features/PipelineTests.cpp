// The server on the real pipeline: compiles of the example kernels as they are on disk, on an
// engine replaying their recorded tool runs (RealPipeline.h's replayedOptions: no toolchain
// needed); what edits become, which only a live toolchain can compile (RequireToolchain.h:
// a recording holds the compiles of the files as they are); a missing toolchain, and
// cancellation killing a hung tool. Real Cargo projects: CrateTests.cpp.
#include <doctest/doctest.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <thread>

#include "../bench/GeneratedKernels.h"
#include "Diff.h"
#include "Engine.h"
#include "Features.h"
#include "RealPipeline.h"
#include "TestClient.h"
#include "Uri.h"

namespace ks::test {

namespace {

/// The ready statuses among `statuses`.
std::vector<json> readies(const std::vector<json>& statuses) {
  std::vector<json> ready;
  for (const json& s : statuses)
    if (s["state"] == "ready") ready.push_back(s);
  return ready;
}

/// The tools a test's compiles run: the toolchain's, or a recording's answers.
enum class Tools { Live, Replayed };

/// A server with an example (relative to the source tree) open as it is on disk, compiled.
struct OpenExample {
  OpenExample(const std::string& example, Tools tools)
      : client(tools == Tools::Live ? realOptions(compiler) : replayedOptions(compiler, example)),
        path(std::string(KS_SOURCE_DIR) + "/" + example),
        text(readWholeFile(path)) {
    uri = client.open(path, text);
    client.sync();
  }
  Engine* compiler = nullptr;
  TestClient client;
  std::string path, text, uri;
};

}  // namespace

TEST_CASE(
    "recorded pipeline: a compile is published stage by stage, each ready saying what is still "
    "coming") {
  OpenExample example("examples/saxpy.rs", Tools::Replayed);
  std::vector<json> ready = readies(example.client.notifications("kernelscope/status"));
  REQUIRE(ready.size() == 3);
  for (const json& s : ready) CHECK(s["revision"] == 1);
  CHECK(ready[0]["stages"] == json{"mir", "llvm-ir", "ptx"});
  CHECK(ready[0]["pending"] == json{"resources", "sass"});
  CHECK_FALSE(ready[0].contains("changes"));
  CHECK(ready[1]["pending"] == json{"sass"});
  CHECK(ready[2]["stages"] == json{"mir", "llvm-ir", "ptx", "sass"});
  CHECK_FALSE(ready[2].contains("pending"));
}

TEST_CASE("real pipeline: an edit's partial readies carry no changes; its last one does") {
  requireToolchain();  // an edit: a compile no recording holds
  OpenExample example("examples/vector_add.rs", Tools::Live);
  TestClient& client = example.client;
  REQUIRE(readies(client.notifications("kernelscope/status")).size() == 3);

  client.change(example.uri, example.text + "\n// a comment\n", 2);
  client.sync();
  std::vector<json> ready = readies(client.notifications("kernelscope/status"));
  REQUIRE(ready.size() == 3);
  for (const json& s : ready) CHECK(s["revision"] == 2);
  CHECK_FALSE(ready[0].contains("changes"));
  CHECK_FALSE(ready[1].contains("changes"));
  REQUIRE(ready[2].contains("changes"));
  CHECK(ready[2]["changes"]["baseRevision"] == 1);
}

TEST_CASE("recorded pipeline: saxpy compiles, its a*x+y line maps to PTX and hovers with it") {
  OpenExample example("examples/saxpy.rs", Tools::Replayed);
  TestClient& client = example.client;
  const std::string &text = example.text, &uri = example.uri;
  auto statuses = client.notifications("kernelscope/status");
  REQUIRE(statuses.back()["state"] == "ready");
  CHECK(std::find(statuses.back()["stages"].begin(), statuses.back()["stages"].end(), "ptx") !=
        statuses.back()["stages"].end());

  int line = lineOf(text, "a * *x.add(i)");
  json map =
      client.result("kernelscope/lineMap", {{"textDocument", {{"uri", uri}}}, {"line", line}});
  CHECK(map["counts"]["ptx"].get<int>() > 0);
  json artifact =
      client.result("kernelscope/artifact", {{"textDocument", {{"uri", uri}}}, {"stage", "ptx"}});
  std::string ptx = artifact["text"];
  bool mapped = false;
  for (const auto& seg : artifact["segments"]) mapped |= seg["source"]["line"] == line;
  CHECK(mapped);
  auto ptxLines = splitLines(ptx);
  bool arithmetic = false;
  for (const auto& r : map["stages"]["ptx"])
    for (int l = r["start"]; l <= r["end"].get<int>(); ++l)
      arithmetic |= ptxLines[l].find("fma") != std::string_view::npos ||
                    ptxLines[l].find("mul") != std::string_view::npos;
  CHECK(arithmetic);
  json hover = client.result(
      "textDocument/hover",
      {{"textDocument", {{"uri", uri}}}, {"position", {{"line", line}, {"character", 8}}}});
  CHECK(hover["contents"]["value"].get<std::string>().find("**ptx**") != std::string::npos);
  // Its SASS as compact as the views show it: `/*0090*/ FFMA R9, ...`, no column padding.
  bool sassShown = false;
  const std::string hoverText = hover["contents"]["value"].get<std::string>();
  for (std::string_view l : splitLines(hoverText)) {
    if (!l.starts_with("/*")) continue;
    sassShown = true;
    CAPTURE(std::string(l));
    CHECK(l.find("*/ ") == l.find("*/"));
    CHECK(l.find("  ") == std::string_view::npos);
  }
  CHECK(sassShown);
  json kernels = client.result("kernelscope/kernels", {{"textDocument", {{"uri", uri}}}});
  REQUIRE(kernels["kernels"].size() == 1);
  CHECK(kernels["kernels"][0]["name"] == "saxpy");
}

TEST_CASE("real pipeline: a broken edit is a rustc error on its line, revision 1 still served") {
  requireToolchain();  // the edits: compiles no recording holds
  OpenExample example("examples/saxpy.rs", Tools::Live);
  TestClient& client = example.client;
  const std::string &text = example.text, &uri = example.uri;
  const int line = lineOf(text, "a * *x.add(i)");

  // Breaking the kernel gives a rustc error on its line and keeps serving revision 1.
  std::string broken = text;
  broken.replace(broken.find("a * *x"), 1, "b");
  client.change(uri, broken, 2);
  client.sync();
  auto diagnostics = client.notifications("textDocument/publishDiagnostics");
  REQUIRE(!diagnostics.empty());
  bool onLine = false;
  for (const auto& d : diagnostics.back()["diagnostics"])
    onLine |= d["severity"] == 1 && d["range"]["start"]["line"] == line;
  CHECK(onLine);
  CHECK(client.result("kernelscope/lineMap",
                      {{"textDocument", {{"uri", uri}}}, {"line", line}})["revision"] == 1);
  client.change(uri, text, 3);
  client.sync();
  diagnostics = client.notifications("textDocument/publishDiagnostics");
  REQUIRE(!diagnostics.empty());
  for (const auto& d : diagnostics.back()["diagnostics"]) CHECK(d["severity"] != 1);
}

TEST_CASE(
    "recorded pipeline: where a SASS value comes from, by kernelscope/valueFlow and by definition "
    "and "
    "references on the SASS view's registers, in its filtered lines") {
  OpenExample example("examples/saxpy.rs", Tools::Replayed);
  TestClient& client = example.client;
  const std::string &text = example.text, &uri = example.uri;
  const int saxpyLine = lineOf(text, "a * *x.add(i)");
  const json filters = {{"directives", true}, {"debugLocations", true}, {"comments", true}};
  json view =
      client.result("kernelscope/artifact",
                    {{"textDocument", {{"uri", uri}}}, {"stage", "sass"}, {"filters", filters}});
  const std::string sassUri = view["uri"];
  const std::string viewText = view["text"];
  const auto lines = splitLines(viewText);
  int fadd = -1;
  for (size_t i = 0; i < lines.size() && fadd < 0; ++i)
    if (lines[i].find("FADD ") != std::string_view::npos) fadd = static_cast<int>(i);
  REQUIRE(fadd >= 0);
  CAPTURE(lines[fadd]);

  // The FADD reads the FMUL's value and a load's, and its result goes to the store; every
  // site is a line of the filtered view and of the source.
  json flow =
      client.result("kernelscope/valueFlow",
                    {{"textDocument", {{"uri", sassUri}}}, {"line", fadd}, {"filters", filters}});
  REQUIRE(flow["instruction"].is_object());
  CHECK(flow["instruction"]["line"] == fadd);
  CHECK(flow["instruction"]["opcode"] == "FADD");
  std::set<int> loads;
  for (const auto& s : flow["sources"])
    for (const auto& d : s["definitions"]) {
      const int l = d["line"];
      CHECK(d["sass"]["uri"] == sassUri);
      CHECK(d["sass"]["range"]["start"]["line"] == l);
      if (lines[l].find("LDG") == std::string_view::npos) continue;
      CHECK(d["opcode"].get<std::string>().starts_with("LDG"));
      CHECK(d["source"]["uri"] == uri);
      CHECK(d["source"]["range"]["start"]["line"] == saxpyLine);
      loads.insert(l);
    }
  CHECK(loads.size() == 1);
  REQUIRE(flow["results"].size() == 1);
  int store = -1;
  for (const auto& u : flow["results"][0]["uses"])
    if (lines[u["line"].get<int>()].find("STG") != std::string_view::npos) store = u["line"];
  CHECK(store >= 0);
  CHECK(flow["text"].get<std::string>().find(" used by the STG") != std::string::npos);

  // The same from the source's URI, in the SASS artifact's own lines.
  json whole =
      client.result("kernelscope/artifact", {{"textDocument", {{"uri", uri}}}, {"stage", "sass"}});
  const std::string wholeText = whole["text"].get<std::string>();
  const auto wholeLines = splitLines(wholeText);
  int faddWhole = -1;
  for (size_t i = 0; i < wholeLines.size() && faddWhole < 0; ++i)
    if (wholeLines[i].find("FADD ") != std::string_view::npos) faddWhole = static_cast<int>(i);
  json fromSource = client.result("kernelscope/valueFlow",
                                  {{"textDocument", {{"uri", uri}}}, {"line", faddWhole}});
  CHECK(fromSource["text"] == flow["text"]);
  CHECK(fromSource["instruction"]["sass"]["uri"].get<std::string>().starts_with("kernelscope:"));

  // Go to Definition on the FADD's third operand: the load that wrote it, in view lines
  // (the view was last asked with these filters). References on its result: the store.
  client.result("kernelscope/artifact",
                {{"textDocument", {{"uri", uri}}}, {"stage", "sass"}, {"filters", filters}});
  const std::string_view at = lines[fadd];
  const size_t comma = at.find(", ", at.find(", ", at.find("FADD ")) + 1);  // its third operand
  REQUIRE(comma != std::string_view::npos);
  const int character = static_cast<int>(comma + 3);
  json defs = client.result("textDocument/definition",
                            {{"textDocument", {{"uri", sassUri}}},
                             {"position", {{"line", fadd}, {"character", character}}}});
  REQUIRE(defs.is_array());
  REQUIRE(defs.size() == 1);
  CHECK(defs[0]["uri"] == sassUri);
  CHECK(loads.count(defs[0]["range"]["start"]["line"].get<int>()) == 1);
  const int result = static_cast<int>(at.find(" R", at.find("FADD")) + 2);
  json refs = client.result("textDocument/references",
                            {{"textDocument", {{"uri", sassUri}}},
                             {"position", {{"line", fadd}, {"character", result}}},
                             {"context", {{"includeDeclaration", true}}}});
  std::set<int> refLines;
  for (const auto& r : refs) refLines.insert(r["range"]["start"]["line"].get<int>());
  CHECK(refLines.count(store) == 1);
  CHECK(refLines.count(fadd) == 1);
  // Not a register, not SASS, or a source file: nothing.
  CHECK(client
            .result("textDocument/definition", {{"textDocument", {{"uri", sassUri}}},
                                                {"position", {{"line", fadd}, {"character", 0}}}})
            .empty());
  CHECK(client
            .result("textDocument/definition",
                    {{"textDocument", {{"uri", uri}}},
                     {"position", {{"line", saxpyLine}, {"character", 8}}}})
            .empty());
  const std::string ptxUri = client.result(
      "kernelscope/artifact", {{"textDocument", {{"uri", uri}}}, {"stage", "ptx"}})["uri"];
  json ptxFlow =
      client.request("kernelscope/valueFlow", {{"textDocument", {{"uri", ptxUri}}}, {"line", 0}});
  CHECK(ptxFlow["error"]["code"] == -32602);
}

TEST_CASE("real pipeline: a ready status after an edit says what the PTX and SASS became") {
  requireToolchain();  // edits: compiles no recording holds
  OpenExample example("examples/saxpy.rs", Tools::Live);
  TestClient& client = example.client;
  const std::string &text = example.text, &uri = example.uri;
  json first = client.notifications("kernelscope/status").back();
  REQUIRE(first["state"] == "ready");
  CHECK_FALSE(first.contains("changes"));  // nothing compiled before it

  // One more multiply on the SAXPY line: one more PTX instruction, nothing taken away.
  std::string perturbed = text;
  const std::string from = "a * *x.add(i) + *y.add(i)";
  perturbed.replace(perturbed.find(from), from.size(), "a * *x.add(i) + *y.add(i) * a");
  client.change(uri, perturbed, 2);
  client.sync();
  json status = client.notifications("kernelscope/status").back();
  REQUIRE(status["state"] == "ready");
  REQUIRE(status.contains("changes"));
  const json& changes = status["changes"];
  CHECK(changes["baseRevision"] == 1);
  const std::string summary = changes["summary"];
  CAPTURE(summary);
  CHECK(std::regex_search(summary, std::regex("(^|, )PTX \\+1(,|$)")));
  json ptx;
  for (const auto& s : changes["stages"])
    if (s["stage"] == "ptx") ptx = s;
  REQUIRE(ptx.is_object());
  CHECK(ptx["added"] == 1);
  CHECK(ptx["removed"] == 0);
  CHECK(ptx["changed"] == true);
  // Every stage that changed is in the summary, and no other.
  for (const auto& s : changes["stages"]) {
    const std::string title(stageTitle(*stageFromName(s["stage"].get<std::string>())));
    CAPTURE(title);
    CHECK((summary.find(title + " ") != std::string::npos) == s["changed"].get<bool>());
  }

  // Back to the original text: the same code as revision 1, measured against revision 2.
  client.change(uri, text, 3);
  client.sync();
  status = client.notifications("kernelscope/status").back();
  REQUIRE(status.contains("changes"));
  CHECK(status["changes"]["baseRevision"] == 2);
  CHECK(std::regex_search(status["changes"]["summary"].get<std::string>(),
                          std::regex("(^|, )PTX −1(,|$)")));
}

TEST_CASE(
    "real pipeline: hovers after a save of a 40-kernel file are answered before the ready status "
    "that says what the save changed") {
  requireToolchain();  // a generated file and its save: compiles no recording holds
  Engine* compiler = nullptr;
  TestClient client(realOptions(compiler));
  TempDir dir("kernelscope-test");
  const std::string path = (dir.path() / "kernels.rs").string();
  const std::string text = bench::generatedKernels(40);
  std::ofstream(path) << text;
  std::string uri = client.open(path, text);
  client.sync();
  client.messages();

  // A save that changes one kernel: every stage's tens of thousands of lines are diffed for
  // the ready status's summary.
  std::string saved = text;
  saved.replace(saved.find("acc * 0.5"), 9, "acc * 0.625");
  std::ofstream(path) << saved;
  client.notify("textDocument/didSave", {{"textDocument", {{"uri", uri}}}, {"text", saved}});
  const int line = lineOf(saved, "let blended = smooth(lo, hi, mean * 0.25);");
  const json hoverParams = {{"textDocument", {{"uri", uri}}},
                            {"position", {{"line", line}, {"character", 8}}}};
  auto sendHover = [&](int id) {
    client.server().onMessage(lsp::makeRequest(id, "textDocument/hover", hoverParams).dump());
  };
  sendHover(9001);  // answered from the previous save's compile
  // Play the io thread until the save's compile is served in full; its status is not due
  // before the diff is done, and the next hover reads the new compile meanwhile.
  REQUIRE(client.drainUntil([&] { return client.server().scheduler().idle(); }));
  sendHover(9002);
  client.sync();

  std::vector<json> sent = client.messages();
  auto position = [&](const std::function<bool(const json&)>& is) {
    auto it = std::find_if(sent.begin(), sent.end(), is);
    REQUIRE(it != sent.end());
    return it - sent.begin();
  };
  auto answer = [&](int id) {
    return position(
        [&](const json& m) { return m.value("id", json()) == id && !m.contains("method"); });
  };
  const auto summary = position([](const json& m) {
    return m.value("method", "") == "kernelscope/status" && m["params"]["state"] == "ready" &&
           m["params"].contains("changes");
  });
  CHECK(answer(9001) < summary);
  CHECK(answer(9002) < summary);
  const json& hover = sent[answer(9002)];
  REQUIRE(hover.contains("result"));
  CHECK(hover["result"]["contents"]["value"].get<std::string>().find("ptx") != std::string::npos);
  const json& changes = sent[summary]["params"]["changes"];
  CHECK(changes["baseRevision"] == 1);
  CHECK(changes["summary"].get<std::string>().find("PTX") != std::string::npos);
}

TEST_CASE(
    "a missing rustc fails the compile with a message naming it, and the server keeps serving") {
  Engine* compiler = nullptr;
  ToolchainSettings settings;
  settings.rustc = "/nonexistent/kernelscope-test/rustc";
  TestClient client(realOptions(compiler, settings));
  std::string uri = client.open("/tmp/kernelscope-test/k.rs", "#![no_std]\n");
  client.sync();
  auto statuses = client.notifications("kernelscope/status");
  REQUIRE(statuses.back()["state"] == "failed");
  CHECK(statuses.back()["message"].get<std::string>().find("rustc") != std::string::npos);
  CHECK(client.result("kernelscope/sync", nullptr).is_null());
}

TEST_CASE(
    "a rustc that crashes fails the compile with a message naming it, and the server keeps "
    "serving") {
  TempDir dir("kernelscope-test");
  const std::string rustc = (dir.path() / "rustc").string();
  std::ofstream(rustc) << "#!/bin/sh\nkill -SEGV $$\n";
  std::filesystem::permissions(rustc, std::filesystem::perms::owner_all);
  Engine* compiler = nullptr;
  ToolchainSettings settings;
  settings.rustc = rustc;
  TestClient client(realOptions(compiler, settings));
  std::string uri = client.open("/tmp/kernelscope-test/k.rs", "#![no_std]\n");
  client.sync();
  auto statuses = client.notifications("kernelscope/status");
  REQUIRE(statuses.back()["state"] == "failed");
  std::string message = statuses.back()["message"];
  CAPTURE(message);
  CHECK(message.find(rustc) != std::string::npos);
  CHECK(client.result("kernelscope/sync", nullptr).is_null());
}

TEST_CASE("cancellation kills the stale tool's process") {
  // A compile that runs a tool which hangs, as a stuck rustc would; its pid is recorded.
  TempDir dir("kernelscope-test");
  const std::string pidFile = (dir.path() / "pid").string();
  std::atomic<bool> started{false};
  server::ServerOptions options = TestClient::options(/*workers=*/2, std::chrono::milliseconds(0));
  options.compile = [&](const CompileInput& in, const CompileOptions&,
                        const CancellationToken& cancel) {
    CompileResult r;
    if (in.text && in.text->find("HANG") != std::string::npos) {
      ProcessSpec p;
      p.argv = {"/bin/sh", "-c", "echo $$ > " + pidFile + "; exec sleep 60"};
      p.cancel = cancel;
      started = true;
      ProcessResult pr = runProcess(p);
      r.cancelled = pr.cancelled;
      return r;
    }
    r.succeeded = true;
    return r;
  };
  TestClient client(options);
  std::string uri = client.open("/tmp/kernelscope-test/k.rs", "// HANG\n");
  // Wait for the tool to have written its pid (no sleeping: the file appears or the
  // 60 s bound of the loop below fails the test).
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  std::string pid;
  while (pid.empty() && std::chrono::steady_clock::now() < deadline) {
    std::ifstream in(pidFile);
    std::getline(in, pid);
    std::this_thread::yield();
  }
  REQUIRE(!pid.empty());
  auto before = std::chrono::steady_clock::now();
  client.change(uri, "// fine\n", 2);
  client.sync();
  CHECK(std::chrono::steady_clock::now() - before < std::chrono::seconds(30));
  CHECK(::kill(std::stoi(pid), 0) == -1);  // gone (and reaped)
  CHECK(client.server().scheduler().stats().cancelled == 1);
  CHECK(client.notifications("kernelscope/status").back()["state"] == "ready");
}

TEST_CASE("real pipeline: compileCacheMB bounds the results kept, applied at once") {
  requireToolchain();  // an edit and its undo: compiles no recording holds
  OpenExample example("examples/saxpy.rs", Tools::Live);
  TestClient& client = example.client;
  const std::string &text = example.text, &uri = example.uri;
  auto compiled = [&] { return example.compiler->counters().compiled; };
  REQUIRE(compiled() == 1);
  // An edit, then its undo: the undo is answered from the cache.
  client.change(uri, text + "\n// an edit\n", 2);
  client.sync();
  client.change(uri, text, 3);
  client.sync();
  CHECK(compiled() == 2);
  CHECK(example.compiler->counters().fromMemory >= 1);

  // No cache: the same edit and undo compile twice.
  client.notify("workspace/didChangeConfiguration", {{"settings", {{"compileCacheMB", 0}}}});
  client.sync();
  const size_t before = compiled();
  client.change(uri, text + "\n// an edit\n", 4);
  client.sync();
  client.change(uri, text, 5);
  client.sync();
  CHECK(compiled() == before + 2);

  // A bad value is refused in the table's words, and the bound stays.
  client.notify("workspace/didChangeConfiguration", {{"settings", {{"compileCacheMB", -5}}}});
  client.sync();
  bool told = false;
  for (const json& m : client.notifications("window/showMessage"))
    told |= m["message"].get<std::string>().find("compileCacheMB must be 0 to 1048576") !=
            std::string::npos;
  CHECK(told);
}

}  // namespace ks::test
