// The server on the real pipeline: compiles of the example kernels as they are on disk, on an
// engine replaying their recorded tool runs (RealPipeline.h's replayedOptions: no toolchain
// needed); what edits become, which only a live toolchain can compile (RequireToolchain.h:
// a recording holds the compiles of the files as they are); a missing toolchain, and
// cancellation killing a hung tool.
#include <doctest/doctest.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
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

// ---------------------------------------------------------------------------------------
// Real projects: a copy of examples/crate (two modules, a path dependency on crate-util)
// in a temporary directory, so that the tests can change its files on disk.

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
