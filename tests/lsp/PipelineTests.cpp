// The server on the real pipeline: compiles of the example kernels (skipped when the
// toolchain is missing), a missing toolchain, and cancellation killing a hung tool.
#include <doctest/doctest.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <thread>
#include <fstream>
#include <sstream>

#include "PipelineCompiler.h"
#include "TestClient.h"
#include "Uri.h"

namespace ks::test {

using server::PipelineCompiler;

namespace {

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The 0-based line of `text` that contains `needle`.
int lineOf(const std::string& text, std::string_view needle) {
  auto lines = splitLines(text);
  for (size_t i = 0; i < lines.size(); ++i)
    if (lines[i].find(needle) != std::string_view::npos) return static_cast<int>(i);
  FAIL("no line contains " << needle);
  return -1;
}

server::ServerOptions realOptions(PipelineCompiler*& out, ToolchainSettings settings = {}) {
  static std::vector<std::unique_ptr<PipelineCompiler>> keep;
  keep.push_back(std::make_unique<PipelineCompiler>(settings, nullptr));
  auto* compiler = keep.back().get();
  out = compiler;
  server::ServerOptions o = TestClient::options(/*workers=*/1, std::chrono::milliseconds(0));
  o.compile = [compiler](const CompileInput& in, const CompileOptions& opts, const CancellationToken& c) {
    return compiler->compile(in, opts, c);
  };
  return o;
}

bool toolchainUsable() {
  static const bool usable = [] {
    Toolchain tc = discoverToolchain();
    return tc.rustc.found() && tc.sysroot.found();
  }();
  return usable;
}

}  // namespace

TEST_CASE("real pipeline: saxpy compiles, its a*x+y line maps to PTX and hovers with it") {
  if (!toolchainUsable()) {
    MESSAGE("skipped: no usable rustc and nvptx64 sysroot (run scripts/setup.sh)");
    return;
  }
  PipelineCompiler* compiler = nullptr;
  TestClient client(realOptions(compiler));
  const std::string path = KS_SOURCE_DIR "/examples/saxpy.rs";
  const std::string text = readFile(path);
  std::string uri = client.open(path, text);
  client.sync();
  auto statuses = client.notifications("kernelscope/status");
  REQUIRE(statuses.back()["state"] == "ready");
  CHECK(std::find(statuses.back()["stages"].begin(), statuses.back()["stages"].end(), "ptx") != statuses.back()["stages"].end());

  int line = lineOf(text, "a * *x.add(i)");
  json map = client.result("kernelscope/lineMap", {{"textDocument", {{"uri", uri}}}, {"line", line}});
  CHECK(map["counts"]["ptx"].get<int>() > 0);
  json artifact = client.result("kernelscope/artifact", {{"textDocument", {{"uri", uri}}}, {"stage", "ptx"}});
  std::string ptx = artifact["text"];
  bool mapped = false;
  for (const auto& seg : artifact["segments"]) mapped |= seg["source"]["line"] == line;
  CHECK(mapped);
  auto ptxLines = splitLines(ptx);
  bool arithmetic = false;
  for (const auto& r : map["stages"]["ptx"])
    for (int l = r["start"]; l <= r["end"].get<int>(); ++l)
      arithmetic |= ptxLines[l].find("fma") != std::string_view::npos || ptxLines[l].find("mul") != std::string_view::npos;
  CHECK(arithmetic);
  json hover = client.result("textDocument/hover", {{"textDocument", {{"uri", uri}}}, {"position", {{"line", line}, {"character", 8}}}});
  CHECK(hover["contents"]["value"].get<std::string>().find("**ptx**") != std::string::npos);
  json kernels = client.result("kernelscope/kernels", {{"textDocument", {{"uri", uri}}}});
  REQUIRE(kernels["kernels"].size() == 1);
  CHECK(kernels["kernels"][0]["name"] == "saxpy");

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
  CHECK(client.result("kernelscope/lineMap", {{"textDocument", {{"uri", uri}}}, {"line", line}})["revision"] == 1);
  client.change(uri, text, 3);
  client.sync();
  diagnostics = client.notifications("textDocument/publishDiagnostics");
  REQUIRE(!diagnostics.empty());
  for (const auto& d : diagnostics.back()["diagnostics"]) CHECK(d["severity"] != 1);
}

TEST_CASE("a missing rustc fails the compile with a message naming it, and the server keeps serving") {
  PipelineCompiler* compiler = nullptr;
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

TEST_CASE("a rustc that crashes fails the compile with a message naming it, and the server keeps serving") {
  TempDir dir("kernelscope-test");
  const std::string rustc = (dir.path() / "rustc").string();
  std::ofstream(rustc) << "#!/bin/sh\nkill -SEGV $$\n";
  std::filesystem::permissions(rustc, std::filesystem::perms::owner_all);
  PipelineCompiler* compiler = nullptr;
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
  options.compile = [&](const CompileInput& in, const CompileOptions&, const CancellationToken& cancel) {
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

}  // namespace ks::test
