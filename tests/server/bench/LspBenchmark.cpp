// The language server's benchmark (run by hand, not a timed test). In one run it measures:
//  1. save -> `kernelscope/status: ready` latency through the server against the raw
//     pipeline's time for the same compiles (the ratio is the server's overhead);
//  2. hover and kernelscope/lineMap latency (p50/p99) on a large generated kernel;
//  3. the server's peak RSS with 20 kernels open;
//  4. the diff behind a ready status's `changes` (done on the server's io thread) on the
//     large kernel after a one-line edit.
// Usage: ks_lsp_bench [SOURCE_DIR]   (SOURCE_DIR holds examples/; default: the build's)
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <fstream>
#include <iostream>
#include <mutex>
#include <random>
#include <sstream>

#include "Diff.h"
#include "Engine.h"
#include "FakeTransport.h"
#include "Files.h"
#include "JsonRpc.h"
#include "LspServer.h"
#include "Uri.h"

namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;
using namespace ks;

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

long peakRssKiB() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[std::min(v.size() - 1, static_cast<size_t>(p * v.size()))];
}

/// A kernel with `n` independent statements: thousands of PTX lines for large `n`.
std::string largeKernel(int n) {
  std::string k =
      "#![no_std]\n#![feature(abi_ptx, stdarch_nvptx)]\nuse core::arch::nvptx;\n\n"
      "#[no_mangle]\npub unsafe extern \"ptx-kernel\" fn large(x: *const f32, y: *mut f32) {\n"
      "    let i = nvptx::_thread_idx_x() as usize;\n    let mut acc = *x.add(i);\n";
  for (int s = 0; s < n; ++s)
    k += "    acc = acc * *x.add(i + " + std::to_string(s + 1) + ") + " + std::to_string(s % 7) +
         ".5;\n"
         "    *y.add(i + " +
         std::to_string(s) + ") = acc;\n";
  k += "}\n\n#[panic_handler]\nfn panic(_: &core::panic::PanicInfo) -> ! {\n    loop {}\n}\n";
  return k;
}

struct Bench {
  ks::test::FakeTransport transport;
  Engine compiler{ToolchainSettings{}, nullptr};
  std::unique_ptr<server::LspServer> server;
  int nextId = 0;

  Bench() {
    server::ServerOptions o;
    o.scheduler.workers = 1;
    o.scheduler.debounce.fixed = std::chrono::milliseconds(0);
    o.compile = [this](const CompileInput& in, const CompileOptions& opts,
                       const CancellationToken& c) { return compiler.compile(in, opts, c); };
    server = std::make_unique<server::LspServer>(transport, std::move(o));
    request("initialize", {{"capabilities", json::object()}});
    notify("initialized", json::object());
  }
  void notify(const std::string& method, json params) {
    server->onMessage(lsp::makeNotification(method, std::move(params)).dump());
  }
  json request(const std::string& method, json params) {
    int id = ++nextId;
    server->onMessage(lsp::makeRequest(id, method, std::move(params)).dump());
    for (auto& m : transport.take())
      if (m.contains("id") && m["id"] == id) return m;
    return nullptr;
  }
  /// Waits for `ready` (or `failed`) of `revision` of `uri`.
  bool waitReady(const std::string& uri, int revision) {
    bool done = false, ok = false;
    transport.drainUntil([&] {
      for (auto& m : transport.take())
        if (m.value("method", "") == "kernelscope/status" && m["params"]["uri"] == uri &&
            m["params"]["revision"] == revision &&
            (m["params"]["state"] == "ready" || m["params"]["state"] == "failed")) {
          done = true;
          ok = m["params"]["state"] == "ready";
        }
      return done;
    });
    return ok;
  }
};

}  // namespace

int main(int argc, char** argv) {
  std::string root = argc > 1 ? argv[1] : KS_SOURCE_DIR;
  Toolchain tc = discoverToolchain();
  if (!tc.rustc.found()) {
    std::cerr << "ks_lsp_bench: no usable rustc: " << tc.rustc.problem << "\n";
    return 1;
  }
  Bench bench;
  const char* examples[] = {"saxpy", "vector_add", "elementwise_mul", "reduce_sum", "matmul_tiled"};
  constexpr int kRounds = 3;

  // 1. save -> ready against the raw pipeline. Each round changes a comment so that no
  //    compile is served from a cache.
  double server = 0, raw = 0;
  int compiles = 0;
  for (const char* name : examples) {
    std::string path = root + "/examples/" + name + ".rs";
    std::string text = readWholeFile(path);
    if (text.empty()) continue;
    std::string uri = lsp::pathToFileUri(path);
    bench.notify(
        "textDocument/didOpen",
        {{"textDocument", {{"uri", uri}, {"languageId", "rust"}, {"version", 1}, {"text", text}}}});
    bench.waitReady(uri, 1);
    for (int round = 0; round < kRounds; ++round) {
      std::string edited = text + "// server round " + std::to_string(round) + "\n";
      auto start = Clock::now();
      bench.notify("textDocument/didChange",
                   {{"textDocument", {{"uri", uri}, {"version", round + 2}}},
                    {"contentChanges", {{{"text", edited}}}}});
      bench.notify("textDocument/didSave", {{"textDocument", {{"uri", uri}}}});
      if (!bench.waitReady(uri, round + 2)) std::cerr << name << ": compile failed\n";
      server += ms(Clock::now() - start);
      std::string rawText = text + "// raw round " + std::to_string(round) + "\n";
      start = Clock::now();
      compileWithDefaults(tc, CompileInput{path, rawText}, CompileOptions{});
      raw += ms(Clock::now() - start);
      ++compiles;
    }
    bench.notify("textDocument/didClose", {{"textDocument", {{"uri", uri}}}});
  }
  std::printf(
      "save -> ready: %.1f ms per compile through the server, %.1f ms raw pipeline, ratio %.3f (%d "
      "compiles)\n",
      server / compiles, raw / compiles, server / raw, compiles);

  // 2. peak RSS with 20 kernels open (each example several times, under different names),
  //    measured before the large kernel below raises it.
  {
    long before = peakRssKiB();
    for (int k = 0; k < 20; ++k) {
      const char* name = examples[k % 5];
      std::string path = "/tmp/kernelscope-bench-" + std::to_string(k) + "-" + name + ".rs";
      std::string text = readWholeFile(root + "/examples/" + name + ".rs");
      std::ofstream(path) << text;
      std::string uri = lsp::pathToFileUri(path);
      bench.notify("textDocument/didOpen",
                   {{"textDocument",
                     {{"uri", uri}, {"languageId", "rust"}, {"version", 1}, {"text", text}}}});
      bench.waitReady(uri, 1);
    }
    std::printf("peak RSS with 20 open kernels: %.1f MiB (%.1f MiB before opening them)\n",
                peakRssKiB() / 1024.0, before / 1024.0);
  }
  // 3. hover and lineMap on a large kernel.
  {
    std::string path = "/tmp/kernelscope-bench-large.rs";
    std::string text = largeKernel(600);
    std::ofstream(path) << text;
    std::string uri = lsp::pathToFileUri(path);
    bench.notify(
        "textDocument/didOpen",
        {{"textDocument", {{"uri", uri}, {"languageId", "rust"}, {"version", 1}, {"text", text}}}});
    bench.waitReady(uri, 1);
    json artifact =
        bench.request("kernelscope/artifact", {{"textDocument", {{"uri", uri}}}, {"stage", "ptx"}});
    size_t ptxLines = 0;
    if (artifact.contains("result"))
      ptxLines = splitLines(artifact["result"]["text"].get_ref<const std::string&>()).size();
    int sourceLines = static_cast<int>(splitLines(text).size());
    std::mt19937 rng(1);
    std::vector<double> hover, lineMap;
    for (int i = 0; i < 2000; ++i) {
      int line = static_cast<int>(rng() % sourceLines);
      auto start = Clock::now();
      bench.request("textDocument/hover", {{"textDocument", {{"uri", uri}}},
                                           {"position", {{"line", line}, {"character", 4}}}});
      hover.push_back(ms(Clock::now() - start));
      start = Clock::now();
      bench.request("kernelscope/lineMap", {{"textDocument", {{"uri", uri}}}, {"line", line}});
      lineMap.push_back(ms(Clock::now() - start));
    }
    std::printf("large kernel: %d source lines, %zu PTX lines\n", sourceLines, ptxLines);
    std::printf("hover:   p50 %.3f ms, p99 %.3f ms\n", percentile(hover, 0.5),
                percentile(hover, 0.99));
    std::printf("lineMap: p50 %.3f ms, p99 %.3f ms\n", percentile(lineMap, 0.5),
                percentile(lineMap, 0.99));
    bench.notify("textDocument/didClose", {{"textDocument", {{"uri", uri}}}});

    // 4. The `changes` diff of a save that edits one line of the large kernel.
    std::string edited = text;
    edited.replace(edited.find(" + 3.5;"), 7, " + 4.5;");
    CompileResult before = compileWithDefaults(tc, CompileInput{path, text}, CompileOptions{});
    CompileResult after = compileWithDefaults(tc, CompileInput{path, edited}, CompileOptions{});
    std::vector<double> diffMs;
    std::string summary;
    for (int i = 0; i < 5; ++i) {
      auto start = Clock::now();
      summary = diffCompiles(before, after, "before", "after").summary;
      diffMs.push_back(ms(Clock::now() - start));
    }
    std::printf("changes diff of a one-line edit of the large kernel: median %.1f ms (%s)\n",
                percentile(diffMs, 0.5), summary.c_str());
    // The worst case: an arch switch rewrites all of the SASS.
    CompileOptions sm80;
    sm80.arch = "sm_80";
    CompileResult retargeted = compileWithDefaults(tc, CompileInput{path, text}, sm80);
    diffMs.clear();
    for (int i = 0; i < 5; ++i) {
      auto start = Clock::now();
      summary = diffCompiles(retargeted, before, "sm_80", "sm_90").summary;
      diffMs.push_back(ms(Clock::now() - start));
    }
    std::printf("changes diff of sm_80 -> sm_90 on the large kernel: median %.1f ms (%s)\n",
                percentile(diffMs, 0.5), summary.c_str());
  }

  return 0;
}
