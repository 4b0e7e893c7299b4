// kernelscope/run and kernelscope/profile on the real pipeline, through a runner prefix that
// stands in for a GPU machine: tests/gpu/fake/fake-gpu-runner.py speaks the gpu-exec protocol
// and answers with results recorded on an H200 (tests/golden/gpu). Progress, results, the
// hints/hover/heat of a profile and their end at the first edit, lenses and spec skeletons,
// cancellation of a hung launch, a faulting launch and a machine without a driver; and the
// examples' Run and Profile: the request the CLI sends, and what the editor shows of the H200's
// answers to it (tests/golden/gpu/editor).
#include <doctest/doctest.h>

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "Contract.h"
#include "Features.h"
#include "JsonRpc.h"
#include "Process.h"
#include "RealPipeline.h"
#include "Settings.h"
#include "TestClient.h"
#include "Uri.h"

namespace ks::test {

namespace {

namespace fs = std::filesystem;

const std::string kFake = KS_SOURCE_DIR "/tests/gpu/fake/fake-gpu-runner.py";

std::string recorded(const std::string& name) { return KS_SOURCE_DIR "/tests/golden/gpu/" + name; }

/// A server on the real pipeline with `path` open and compiled, running kernels through
/// `runner`.
struct Session {
  Engine* compiler = nullptr;
  std::unique_ptr<TestClient> client;
  std::string path, uri, text;

  /// `file`: under the source tree, or absolute. `editor`: the client's name (initialize's
  /// clientInfo), when the test needs one.
  Session(const std::string& file, const std::string& runner, const std::string& editor = "") {
    client = std::make_unique<TestClient>(realOptions(compiler), editor.empty());
    if (!editor.empty()) {
      client->result("initialize", {{"processId", nullptr},
                                    {"rootUri", nullptr},
                                    {"clientInfo", {{"name", editor}}},
                                    {"capabilities", {{"window", {{"workDoneProgress", true}}}}}});
      client->notify("initialized", json::object());
    }
    path = file.starts_with("/") ? file : KS_SOURCE_DIR "/" + file;
    text = readWholeFile(path);
    client->notify("workspace/didChangeConfiguration",
                   {{"settings", {{"kernelscope", {{"gpuRunner", runner}}}}}});
    uri = client->open(path, text);
    client->sync();
    client->messages();
  }
  json params(const std::string& kernel, json token = nullptr) const {
    json p = {{"textDocument", {{"uri", uri}}}, {"kernel", kernel}};
    if (!token.is_null()) p["workDoneToken"] = token;
    return p;
  }
  json hints() {
    return client->result("textDocument/inlayHint",
                          {{"textDocument", {{"uri", uri}}},
                           {"range",
                            {{"start", {{"line", 0}, {"character", 0}}},
                             {"end", {{"line", 1000}, {"character", 0}}}}}});
  }
  std::string hover(int line) {
    json h = client->result(
        "textDocument/hover",
        {{"textDocument", {{"uri", uri}}}, {"position", {{"line", line}, {"character", 4}}}});
    return h.is_null() ? "" : h["contents"]["value"].get<std::string>();
  }
  json lenses() {
    return client->result("textDocument/codeLens", {{"textDocument", {{"uri", uri}}}});
  }
};

/// The hint on 0-based `line` whose label gives its stalls (not their change), or null.
json stallHint(const json& hints, int line) {
  for (const auto& h : hints) {
    const std::string label = h["label"].get<std::string>();
    if (h["position"]["line"] == line && label.find("stalls") != std::string::npos &&
        label.find(" since ") == std::string::npos)
      return h;
  }
  return nullptr;
}

std::vector<std::string> progressMessages(const std::vector<json>& progress) {
  std::vector<std::string> out;
  for (const auto& p : progress)
    out.push_back(p["value"]["kind"].get<std::string>() + ": " +
                  p["value"].value("message", std::string()));
  return out;
}

/// Whether process `pid` is gone (or a zombie waiting for a parent that is not us).
bool processGone(pid_t pid) {
  if (::kill(pid, 0) != 0) return true;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string s((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  size_t close = s.rfind(')');
  return close == std::string::npos || (close + 2 < s.size() && s[close + 2] == 'Z');
}

// ---------------------------------------------------------------------------------------------
// The editor's Run and Profile of the examples: the gpu-exec request they send, and what the
// editor shows of the results an H200 gave for it (tests/golden/gpu/NAME.{run,profile}.result).

/// What the editor shows of a kernelscope/run answer: the device, the launch, the times and
/// each buffer's checksum and first elements (the answer's `file` is this checkout's path).
json runView(const json& r) {
  json view = json::object();
  for (const char* k : {"device", "launch", "runs", "timeMs", "bytes", "bandwidth", "flops",
                        "throughput", "execMs"})
    if (r.contains(k)) view[k] = r[k];
  view["buffers"] = r["buffers"];
  return view;
}

/// What the editor shows of a kernelscope/profile answer: the kernel's figures, its five
/// hottest lines' counters, the source lines it colours and the stall hints at their lines.
json profileView(const json& r, const json& hints) {
  json view = {{"device", r["device"]}, {"launch", r["launch"]}, {"kernel", r["kernel"]}};
  for (size_t i = 0; i < r["lines"].size() && i < 5; ++i) {
    json line = r["lines"][i];
    line.erase("file");
    view["hottest"].push_back(line);
  }
  view["heat"] = r["editor"]["lines"];
  for (const auto& h : hints)
    if (h["label"].get<std::string>().find("stalls") != std::string::npos)
      view["hints"].push_back({{"line", h["position"]["line"]}, {"label", h["label"]}});
  return view;
}

/// The gpu-exec request `kernelscope MODE FILE` makes for the kernel's own spec.
std::string cliRequest(const std::string& mode, const std::string& file,
                       const std::string& kernel) {
  TempDir dir("kernelscope-cli-request");
  const fs::path saved = dir.path() / "request";
  ProcessSpec spec;
  spec.argv = {KS_BINARY, mode, file, "--kernel", kernel, "--save-request", saved.string()};
  spec.cwd = KS_SOURCE_DIR;
  ProcessResult p = runProcess(spec);
  REQUIRE_MESSAGE(p.ok(), p.describe() << "\n" << p.err);
  return readWholeFile(saved);
}

}  // namespace

TEST_CASE("the editor's Run and Profile of the examples: the CLI's request, the H200's answer") {
  requireToolchain();
  // What run_device.py found when these results were recorded: each output against the CPU.
  const json checks = json::parse(readWholeFile(recorded("summary.json")))["checks"];
  const fs::path views = KS_SOURCE_DIR "/tests/golden/gpu/editor";
  const fs::path saved =
      fs::temp_directory_path() / ("ks-editor-request-" + std::to_string(getpid()));
  for (const auto& example : std::vector<std::pair<std::string, std::string>>{
           {"saxpy", "examples/saxpy.rs"},
           {"reduce_sum", "examples/reduce_sum.rs"},
           {"matmul_tiled", "examples/matmul_tiled.rs"}}) {
    const std::string& kernel = example.first;
    const std::string& file = example.second;
    CAPTURE(kernel);
    auto runner = [&](const std::string& mode) {
      return kFake + " --mode " + mode + " --save-request " + saved.string() + " " +
             recorded(kernel + "." + mode + ".result");
    };
    Session s(file, runner("run"));
    json params = s.params(kernel);
    params["baseline"] = "none";
    // The editor's Run sends, byte for byte, the request of `kernelscope run FILE`: the same
    // cubin and launch, so what a GPU answers the command line answers the editor.
    json run = s.client->result("kernelscope/run", params);
    CHECK(readWholeFile(saved) == cliRequest("run", file, kernel));
    checkGolden(views / (kernel + ".run.expected"), runView(run).dump(2) + "\n");
    REQUIRE(checks[kernel]["matches"] == true);  // its outputs equalled the CPU's on the H200

    s.client->notify("workspace/didChangeConfiguration",
                     {{"settings", {{"kernelscope", {{"gpuRunner", runner("profile")}}}}}});
    json profile = s.client->result("kernelscope/profile", params);
    CHECK(readWholeFile(saved) == cliRequest("profile", file, kernel));
    double samples = 0;
    for (const auto& l : profile["lines"]) samples += l["stallSamples"].get<double>();
    CHECK(samples == profile["kernel"]["stallSamples"].get<double>());
    checkGolden(views / (kernel + ".profile.expected"),
                profileView(profile, s.hints()).dump(2) + "\n");
  }
  fs::remove(saved);
}

TEST_CASE("kernelscope/profile: progress, per-line counters, hints, hover and heat until an edit") {
  requireToolchain();
  Session s("examples/saxpy.rs", kFake + " --mode profile " + recorded("saxpy.profile.result"));
  json response = s.client->request("kernelscope/profile", s.params("saxpy", "p1"));
  REQUIRE_MESSAGE(response.contains("result"), response.dump());
  const json& r = response["result"];

  auto progress = progressMessages(s.client->notifications("$/progress"));
  REQUIRE(progress.size() >= 4);
  CHECK(progress.front() == "begin: profiling saxpy");
  CHECK(progress[1] == "report: compiling saxpy.rs");
  CHECK(progress[2].starts_with("report: profiling saxpy with ncu on '" + kFake));
  CHECK(progress.back() == "end: done");

  // The kernel's samples, every one on a line (nothing lost or counted twice).
  double sum = 0;
  for (const auto& l : r["lines"]) sum += l["stallSamples"].get<double>();
  CHECK(sum == r["kernel"]["stallSamples"].get<double>());
  CHECK(r["device"]["name"] == "NVIDIA H200");
  const int hot = lineOf(s.text, "*y.add(i) = a * *x.add(i) + *y.add(i);");
  CHECK(r["lines"][0]["line"] == hot + 1);
  CHECK(r["lines"][0]["headline"] == "90% stalls · long scoreboard");
  // The answer has the shape docs/lsp-extensions.md shows (whose example has a baseline: an
  // earlier run of this test kept one, or not).
  auto doc = readContract(KS_SOURCE_DIR "/docs/lsp-extensions.md");
  REQUIRE(doc["kernelscope/profile"].response);
  json shape = *doc["kernelscope/profile"].response;
  if (!r.contains("baseline")) shape.erase("baseline"), shape["editor"].erase("since");
  CHECK(shapeDifference(shape, r, "result") == "");

  // For the editor: the hot line, and the view lines it became, with its share.
  const json& editor = r["editor"];
  CHECK(editor["current"] == true);
  CHECK(editor["lines"][0]["line"] == hot);
  const double hotShare = editor["lines"][0]["share"].get<double>();
  for (const char* stage : {"ptx", "sass"}) {
    CAPTURE(stage);
    bool found = false;
    for (const auto& run : editor["views"][stage]) {
      if (run["share"].get<double>() != hotShare) continue;
      found = true;
      // Each of those view lines maps back to the hot line.
      json map = s.client->result(
          "kernelscope/sourceLocation",
          {{"uri", server::virtualUri(*stageFromName(stage), s.path)}, {"line", run["start"]}});
      CHECK(map["location"]["range"]["start"]["line"] == hot);
    }
    CHECK(found);
  }

  // With the views' filters, the runs name lines of the filtered views.
  const json filters = {{"directives", true}, {"debugLocations", true}};
  json params = s.params("saxpy");
  params["filters"] = filters;
  json filtered = s.client->result("kernelscope/profile", params)["editor"]["views"]["ptx"];
  REQUIRE(!filtered.empty());
  CHECK(filtered != editor["views"]["ptx"]);
  for (const auto& run : filtered) {
    if (run["share"].get<double>() != hotShare) continue;
    json map = s.client->result("kernelscope/sourceLocation",
                                {{"uri", server::virtualUri(Stage::Ptx, s.path)},
                                 {"line", run["start"]},
                                 {"filters", filters}});
    CHECK(map["location"]["range"]["start"]["line"] == hot);
  }

  json hint = stallHint(s.hints(), hot);
  REQUIRE(!hint.is_null());
  CHECK(hint["label"] == "90% stalls · long scoreboard");
  std::string hover = s.hover(hot);
  CHECK(hover.find("GPU profile of saxpy (NVIDIA H200") != std::string::npos);
  CHECK(hover.find("long scoreboard") != std::string::npos);
  CHECK(hover.find("threads active") != std::string::npos);

  // The first edit takes them away: they describe the text that ran.
  std::string edited = s.text + "\n";
  s.client->change(s.uri, edited, 2);
  s.client->sync();
  CHECK(stallHint(s.hints(), hot).is_null());
  CHECK(s.hover(hot).find("GPU profile") == std::string::npos);
}

TEST_CASE("kernelscope/profile twice across an edit: per-line deltas, delta hints and hovers") {
  requireToolchain();
  // The H200's profiles of tests/fixtures/gpu/coalesce before and after its coalescing fix,
  // which also drops a comment line: the load and store line 19 is line 18 after the edit.
  // A file of its own, so that no profile is kept for it yet.
  TempDir dir("kernelscope-baseline-lsp");
  const fs::path fixtures = KS_SOURCE_DIR "/tests/fixtures/gpu/coalesce";
  const fs::path file = dir.path() / "scale.rs";
  fs::copy_file(fixtures / "before.rs", file);
  Session s(file.string(),
            kFake + " --mode profile " + recorded("scale_matrix_before.profile.result"));
  json first = s.client->result("kernelscope/profile", s.params("scale_matrix"));
  CHECK(!first.contains("baseline"));
  CHECK(first["editor"]["deltas"] == json::array());
  CHECK(!first["editor"].contains("since"));
  for (const auto& h : s.hints())
    CHECK(h["label"].get<std::string>().find("since last profile") == std::string::npos);

  // The edit, then the second profile (the runner answers with the fixed kernel's counters).
  const std::string after = readWholeFile((fixtures / "after.rs").string());
  s.client->change(s.uri, after, 2);
  s.client->notify("workspace/didChangeConfiguration",
                   {{"settings",
                     {{"kernelscope",
                       {{"gpuRunner", kFake + " --mode profile " +
                                          recorded("scale_matrix_after.profile.result")}}}}}});
  s.client->sync();
  json second = s.client->result("kernelscope/profile", s.params("scale_matrix"));
  REQUIRE_MESSAGE(second.contains("baseline"), second.dump());
  auto doc = readContract(KS_SOURCE_DIR "/docs/lsp-extensions.md");
  CHECK(shapeDifference(*doc["kernelscope/profile"].response, second, "result") == "");
  std::map<uint32_t, json> byLine;
  for (const auto& d : second["baseline"]) byLine[d["line"].get<uint32_t>()] = d;
  const int store = lineOf(after, "*out.add(at) = 2.0 * *a.add(at);");
  REQUIRE(byLine.count(store + 1));
  const json& moved = byLine[store + 1];
  CHECK(moved["beforeLine"] == store + 2);
  CHECK(moved["hint"] == "\u221275% stalls since last profile");
  CHECK(moved["stallChange"].get<double>() == doctest::Approx(-0.75).epsilon(0.02));
  CHECK(moved["before"]["l2Sectors"].get<double>() ==
        doctest::Approx(8 * moved["after"]["l2Sectors"].get<double>()).epsilon(0.01));
  // The rewritten line is new; the line it replaced is listed as removed (line 0).
  const int rewritten = lineOf(after, "let (row, col) = (i / cols, i % cols);");
  CHECK(byLine[rewritten + 1]["beforeLine"].is_null());
  CHECK(byLine[rewritten + 1]["hint"] == "new since last profile");
  REQUIRE(byLine.count(0));
  CHECK(byLine[0]["beforeLine"] == rewritten + 2);

  // For the editor's delta heat: 0-based lines with the change and its words.
  const json& editor = second["editor"];
  CHECK(editor["since"] == "last profile");
  json heat;
  for (const auto& d : editor["deltas"])
    if (d["line"] == store) heat = d;
  REQUIRE(!heat.is_null());
  CHECK(heat["hint"] == "\u221275% stalls since last profile");
  CHECK(heat["stallChange"].get<double>() < -0.7);

  // The hint beside the line's own stall hint, and the hover says what it was.
  json hint;
  for (const auto& h : s.hints())
    if (h["position"]["line"] == store && h["label"] == "\u221275% stalls since last profile")
      hint = h;
  REQUIRE(!hint.is_null());
  CHECK(!stallHint(s.hints(), store).is_null());
  const std::string hover = s.hover(store);
  CHECK(hover.find("\u221275% stalls since last profile (line " + std::to_string(store + 2) +
                   " then: ") != std::string::npos);

  // The first edit takes the deltas away with the profile.
  s.client->change(s.uri, after + "\n", 3);
  s.client->sync();
  for (const auto& h : s.hints())
    CHECK(h["label"].get<std::string>().find("since last profile") == std::string::npos);
}

TEST_CASE("kernelscope/run: the CLI's figures; a faulting launch is an error reply") {
  requireToolchain();
  Session s("examples/saxpy.rs", kFake + " --mode run " + recorded("saxpy.run.result"));
  json lenses = s.lenses();
  std::vector<std::string> titles;
  for (const auto& l : lenses) titles.push_back(l["command"]["title"]);
  CHECK(std::count(titles.begin(), titles.end(), "▶ Run") == 1);
  CHECK(std::count(titles.begin(), titles.end(), "Profile") == 1);

  json r = s.client->result("kernelscope/run", s.params("saxpy"));
  CHECK(r["timeMs"]["median"].get<double>() > 0);
  CHECK(r["bandwidth"].get<double>() > 1e12);
  CHECK(r["buffers"][1]["name"] == "y");
  CHECK(r["buffers"][1]["output"] == true);
  auto doc = readContract(KS_SOURCE_DIR "/docs/lsp-extensions.md");
  REQUIRE(doc["kernelscope/run"].response);
  CHECK(shapeDifference(*doc["kernelscope/run"].response, r, "result") == "");

  s.client->notify(
      "workspace/didChangeConfiguration",
      {{"settings",
        {{"kernelscope",
          {{"gpuRunner", kFake + " " + recorded("saxpy_out_of_bounds.fault.result")}}}}}});
  json fault = s.client->request("kernelscope/run", s.params("saxpy"));
  REQUIRE(fault.contains("error"));
  CHECK(fault["error"]["code"] == -32803);
  CHECK(fault["error"]["message"].get<std::string>().find(
            "kernel saxpy (grid (1048576, 1, 1), block (256, 1, 1)) failed while running: "
            "CUDA_ERROR_ILLEGAL_ADDRESS") != std::string::npos);
  CHECK(s.hover(lineOf(s.text, "*y.add(i)")).find("sass") != std::string::npos);  // still serving
}

TEST_CASE("kernelscope/run without a GPU: plain words and the setting that helps") {
  requireToolchain();
  // The real gpu-exec of this build, started through a runner prefix.
  const std::string bin = fs::path(KS_BINARY).parent_path().string();
  // Neovim's user is told Neovim's way of setting a runner, not VS Code's key.
  Session s("examples/saxpy.rs", "env PATH=" + bin + ":/usr/bin:/bin", "Neovim");
  json r = s.client->request("kernelscope/run", s.params("saxpy"));
  if (r.contains("result")) {
    MESSAGE("this machine has a CUDA driver and a GPU: the launch itself was checked");
    return;
  }
  std::string message = r["error"]["message"];
  CHECK(r["error"]["code"] == -32803);
  if (message.find("no CUDA device") != std::string::npos) return;  // a driver, no GPU
  CHECK(message.starts_with("no CUDA driver on this machine"));
  CHECK(message.ends_with("; " + server::runnerHintFor("Neovim")));
  CHECK(message.find("require('kernelscope').setup{ gpu = { runner = ") != std::string::npos);
  CHECK(message.find("kernelscope.gpu.runner") == std::string::npos);
  // A profile says the same, not that ncu is missing: no ncu would help without a driver.
  json p = s.client->request("kernelscope/profile", s.params("saxpy"));
  REQUIRE(p.contains("error"));
  CAPTURE(p["error"]["message"].get<std::string>());
  CHECK(p["error"]["message"].get<std::string>().starts_with("no CUDA driver on this machine"));
  CHECK(p["error"]["message"].get<std::string>().find("ncu") == std::string::npos);

  s.client->notify("workspace/didChangeConfiguration",
                   {{"settings", {{"kernelscope", {{"gpuRunner", "no-such-runner-program"}}}}}});
  r = s.client->request("kernelscope/run", s.params("saxpy"));
  CHECK(r["error"]["message"].get<std::string>().starts_with(
      "cannot start gpu-exec through the runner 'no-such-runner-program'"));
}

TEST_CASE("cancelling a hung profile kills the runner's process group and leaves no temp files") {
  requireToolchain();
  const fs::path pids = fs::temp_directory_path() / ("ks-gpu-pids-" + std::to_string(getpid()));
  const fs::path tmp = fs::temp_directory_path() / ("ks-gpu-cancel-" + std::to_string(getpid()));
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  const char* oldTmp = std::getenv("TMPDIR");
  std::string savedTmp = oldTmp ? oldTmp : "";
  ::setenv("TMPDIR", tmp.c_str(), 1);  // the job's temporary folders go here
  fs::remove(pids);
  {
    Session s("examples/saxpy.rs",
              kFake + " --hang " + pids.string() + " " + recorded("saxpy.profile.result"));
    s.client->server().onMessage(
        lsp::makeRequest(77, "kernelscope/profile", s.params("saxpy", 5)).dump());
    REQUIRE(s.client->drainUntil([&] { return fs::exists(pids); }));

    // The io thread keeps answering while the launch hangs.
    const int hot = lineOf(s.text, "*y.add(i)");
    s.client->server().onMessage(lsp::makeRequest(78, "textDocument/hover",
                                                  {{"textDocument", {{"uri", s.uri}}},
                                                   {"position", {{"line", hot}, {"character", 4}}}})
                                     .dump());
    bool hoverAnswered = false;
    for (const auto& m : s.client->messages())
      if (m.value("id", json()) == 78 && m.contains("result")) hoverAnswered = true;
    CHECK(hoverAnswered);

    pid_t runner = 0, child = 0;
    std::ifstream(pids) >> runner >> child;
    REQUIRE(runner > 0);
    REQUIRE(child > 0);
    CHECK_FALSE(processGone(child));
    s.client->notify("$/cancelRequest", {{"id", 77}});
    s.client->sync();
    json reply;
    std::vector<json> progress;
    for (const auto& m : s.client->messages()) {
      if (m.value("id", json()) == 77) reply = m;
      if (m.value("method", "") == "$/progress") progress.push_back(m["params"]);
    }
    REQUIRE(reply.contains("error"));
    CHECK(reply["error"]["code"] == -32800);
    CHECK(progressMessages(progress).back() == "end: cancelled");
    CHECK(processGone(runner));
    for (int i = 0; i < 100 && !processGone(child); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    CHECK(processGone(child));  // the stand-in for ncu died with its group
    for (const auto& e : fs::directory_iterator(tmp)) MESSAGE("left in TMPDIR: " << e.path());
    CHECK(fs::is_empty(tmp));  // nothing of the job is left
  }
  if (oldTmp)
    ::setenv("TMPDIR", savedTmp.c_str(), 1);
  else
    ::unsetenv("TMPDIR");
  fs::remove_all(tmp);
  fs::remove(pids);
}

TEST_CASE("a kernel without a launch spec: the lens inserts one from its real parameters") {
  requireToolchain();
  const fs::path saved = fs::temp_directory_path() / ("ks-gpu-request-" + std::to_string(getpid()));
  Session s(
      "tests/fixtures/local_array.rs",
      kFake + " --mode run --save-request " + saved.string() + " " + recorded("saxpy.run.result"));
  json lenses = s.lenses();
  json add;
  for (const auto& l : lenses)
    if (l["command"]["title"] == "Add launch spec") add = l;
  REQUIRE_MESSAGE(!add.is_null(), lenses.dump());
  CHECK(add["command"]["command"] == "kernelscope.insertLaunchSpec");
  CHECK(add["command"]["arguments"][0]["kernel"] == "gather_local");
  // Run without one: the editor's way to give one, not the command line's --spec.
  json none = s.client->request("kernelscope/run", s.params("gather_local"));
  REQUIRE(none.contains("error"));
  const std::string why = none["error"]["message"].get<std::string>();
  CHECK(why.find("no launch spec for gather_local") != std::string::npos);
  CHECK(why.find("`Add launch spec` code lens") != std::string::npos);
  CHECK(why.find("--spec") == std::string::npos);

  s.client->result("workspace/executeCommand", {{"command", "kernelscope.insertLaunchSpec"},
                                                {"arguments", add["command"]["arguments"]}});
  json edit;
  for (const auto& m : s.client->messages())
    if (m.value("method", "") == "workspace/applyEdit") edit = m["params"]["edit"];
  REQUIRE(!edit.is_null());
  const json& e = edit["changes"][s.uri][0];
  CHECK(e["newText"] ==
        "// kernelscope: input = f32[n] uniform(-1, 1, seed = 1); picks = u32[n] iota; "
        "out = f32[n] zeros; n = 1 << 20; grid = ceil(n / 256); block = 256\n");
  CHECK(e["range"]["start"]["line"] == lineOf(s.text, "fn gather_local"));

  // Applied, it is a spec the kernel's parameters accept: Run and Profile, and a launch.
  std::string text = s.text;
  const int at = e["range"]["start"]["line"].get<int>();
  REQUIRE(server::applyEdit(text, lsp::Range{{at, 0}, {at, 0}}, e["newText"].get<std::string>(),
                            server::PositionEncoding::Utf16));
  s.client->change(s.uri, text, 2);
  s.client->sync();
  bool run = false;
  for (const auto& l : s.lenses()) run = run || l["command"]["title"] == "▶ Run";
  CHECK(run);
  json r = s.client->request("kernelscope/run", s.params("gather_local"));
  CHECK_MESSAGE(r.contains("result"), r.dump());
  std::string request = readWholeFile(saved.string());
  json header = json::parse(request.substr(0, request.find('\n')));
  CHECK(header["kernel"] == "gather_local");
  CHECK(header["grid"][0] == 4096);
  CHECK(header["args"][1]["fill"] == "iota");
  fs::remove(saved);
}

TEST_CASE("a launch spec in the crate's Cargo.toml gives the kernel Run and Profile lenses") {
  requireToolchain();
  // saxpy without its spec comment (trailing its #[no_mangle]), in a crate whose Cargo.toml has (or
  // lacks) the spec; the server reads Cargo.toml after each compile, never while it answers the
  // lens request.
  std::string kernel;
  const std::string saxpy = readWholeFile(KS_SOURCE_DIR "/examples/saxpy.rs");
  for (std::string_view line : splitLines(saxpy))
    kernel += std::string(line.substr(0, line.find("// kernelscope:"))) + "\n";
  auto lensTitles = [&](const std::string& launch) {
    TempDir dir("kernelscope-crate-spec");
    fs::create_directories(dir.path() / "src");
    std::ofstream(dir.path() / "Cargo.toml")
        << "[package]\nname = \"spec-crate\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n"
           "[lib]\npath = \"src/lib.rs\"\n\n"
        << launch;
    std::ofstream(dir.path() / "src/lib.rs") << kernel;
    Session s((dir.path() / "src/lib.rs").string(), kFake);
    std::set<std::string> titles;
    for (const auto& l : s.lenses())
      if (l.contains("command")) titles.insert(l["command"]["title"].get<std::string>());
    return titles;
  };
  auto with = lensTitles(
      "[package.metadata.kernelscope.launch.saxpy]\nn = \"1 << 20\"\na = \"2.0\"\n"
      "x = \"f32[n] uniform(-1, 1, seed = 1)\"\ny = \"f32[n] zeros\"\n"
      "grid = \"ceil(n / 256)\"\nblock = \"256\"\n");
  CHECK(with.count("\u25b6 Run") == 1);
  CHECK(with.count("Profile") == 1);
  CHECK(with.count("Add launch spec") == 0);
  auto without = lensTitles("[package.metadata.kernelscope]\narch = \"sm_90\"\n");
  CHECK(without.count("\u25b6 Run") == 0);
  CHECK(without.count("Add launch spec") == 1);
}

}  // namespace ks::test
