// Benchmark at the size of real kernel files (run by hand, not a test; see README
// "Performance"). In one run, against the raw tools measured in the same run:
//  1. (measured last) per generated file of 1, 5, 10, 20, 40, 80 kernels: the tools' time (rustc,
//  ptxas,
//     nvdisasm by hand), kernelscope's whole compile, its own time (the difference), and
//     the first view (MIR, LLVM IR, PTX and the line map published) against rustc alone;
//  2. the language server's resident memory (and the heap in use, mallinfo2) with 20 files
//     open, and over many edit/compile cycles of the 40-kernel file (CYCLES:K, a K-kernel file),
//     each read once the server is idle (the results it parks after a compile parked);
//  3. the bytes of a PTX `kernelscope/artifact` reply of the 40-kernel file;
//  4. `kernelscope explain` of the largest file, compiled (the tools by hand beside it) and
//     then read from the result cache as text and as --json: bytes, time and peak RSS.
//  5. with `costs` as the fourth argument, only this: at each size, a whole compile with the
//     costs (Costs.h) and without, in turn;
//  6. with `parts` as the fourth argument, only this: at each size, the heap one result holds,
//     part by part (each freed in turn), against its footprint (CompileCache.h), and what
//     parking it costs (ParkedResult.h);
//  7. with `edit` as the fourth argument, only this: at each size, an edit to one kernel
//     through an engine that holds the other kernels' images, against a whole compile;
//  8. with `incremental` as the fourth argument, only this: rustc's own incremental compile
//     of an edit, by module layout, and whether its code is one unit's (RustcIncremental.h);
//  9. with `closures` as the fourth argument, only this: an edit whose optimization and PTX
//     are made for the edited kernel's closure alone, against rustc (KernelClosureCost.h).
// Usage: ks_bench_scale [ROUNDS [CYCLES[:K] [SIZES [costs|parts|edit|incremental|closures]]]]
// (defaults 3, 200:40 and 1,5,10,20,40,80; ROUNDS 0: no compiles, CYCLES -1: no server; SIZES: the
// kernel counts, comma-separated). KS_BENCH_CACHE_MB bounds the server's result cache (the user's
// `compileCacheMB`) for 2, to tell what the open documents hold from what the cache does.
#include <fcntl.h>
#include <malloc.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "Compile.h"
#include "CompileCache.h"
#include "Engine.h"
#include "FakeTransport.h"
#include "GeneratedKernels.h"
#include "JsonRpc.h"
#include "KernelClosureCost.h"
#include "LspServer.h"
#include "ParkedResult.h"
#include "RawTools.h"
#include "RustcIncremental.h"
#include "Uri.h"

using namespace ks;
using namespace ks::bench;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

/// The resident set now (VmRSS), in MiB.
double rssMiB() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6)) / 1024.0;
  return -1;
}

/// The heap's bytes in use (malloc's, all arenas, mmapped blocks included), in MiB: what RSS
/// holds beyond it is code, and memory malloc keeps free.
double heapInUseMiB() {
  const struct mallinfo2 m = mallinfo2();
  return static_cast<double>(m.uordblks + m.hblkhd) / (1 << 20);
}

/// CPU seconds used so far by this process (`who` = RUSAGE_SELF) or by its waited-for
/// children (RUSAGE_CHILDREN: the tools). On a loaded machine these are steadier than
/// wall time.
double cpuSeconds(int who) {
  rusage u{};
  getrusage(who, &u);
  auto s = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  return s(u.ru_utime) + s(u.ru_stime);
}

/// When a compile published its first stages (the first view: MIR, LLVM IR, PTX and the line
/// map), and the process's CPU seconds then: give `listener()` to the compile's onStages.
class FirstView {
 public:
  StageListener listener() {
    return [this](std::shared_ptr<const CompileResult>) {
      if (seen_.exchange(true)) return;
      at_ = Clock::now();
      cpuAt_ = cpuSeconds(RUSAGE_SELF);
    };
  }
  /// Milliseconds from `start` to the first view; to `end` when none came.
  double msFrom(Clock::time_point start, Clock::time_point end) const {
    return ms((seen_ ? at_ : end) - start);
  }
  /// The CPU seconds at the first view; `otherwise` when none came.
  double cpuAt(double otherwise) const { return seen_ ? cpuAt_ : otherwise; }

 private:
  std::atomic<bool> seen_ = false;
  Clock::time_point at_;
  double cpuAt_ = 0;
};

/// 1. Compile time and first view by file size.
void compileScale(const Toolchain& tc, const fs::path& dir, int rounds,
                  const std::vector<int>& sizes) {
  std::printf("%8s %6s %9s %9s %9s %9s %9s %9s %8s %9s %9s %9s %9s %9s %9s %9s %11s %7s\n",
              "kernels", "lines", "rustc", "plain", "tools", "ks", "own", "own/tools", "first",
              "first/rc", "nr first", "nr/plain", "own cpu", "first cpu", "tools cpu", "ks cpu",
              "added/tools", "ptx");
  for (int n : sizes) {
    fs::path file = dir / ("k" + std::to_string(n) + ".rs");
    std::string text = generatedKernels(n);
    std::ofstream(file) << text;
    rawTools(tc, file);  // warm the page cache for both
    std::vector<double> rustc, plain, tools, ours, first, plainFirst, ownCpu, firstCpu, toolsCpu,
        ksCpu;
    size_t ptxLines = 0;
    for (int r = 0; r < rounds; ++r) {
      const double rawChildren = cpuSeconds(RUSAGE_CHILDREN);
      ToolTimes t = rawTools(tc, file);
      toolsCpu.push_back(cpuSeconds(RUSAGE_CHILDREN) - rawChildren);
      const double plainMs = plainRustcMs(tc, file);
      if (!t.ok || plainMs < 0) {
        std::fprintf(stderr, "the raw tools failed on %d kernels\n", n);
        return;
      }
      FirstView firstView;
      const double self = cpuSeconds(RUSAGE_SELF), children = cpuSeconds(RUSAGE_CHILDREN);
      CompileOptions opts;
      opts.onStages = firstView.listener();
      auto start = Clock::now();
      // r + 1 comment lines on top, so that nothing is answered from a cache: every line
      // moves, so no function's code is that of an earlier regeneration either.
      std::string moved;
      for (int k = 0; k <= r; ++k) moved += "// round " + std::to_string(r) + "\n";
      CompileResult res = compileWithDefaults(tc, {file, moved + text}, opts);
      auto end = Clock::now();
      ownCpu.push_back(cpuSeconds(RUSAGE_SELF) - self);
      ksCpu.push_back(ownCpu.back() + cpuSeconds(RUSAGE_CHILDREN) - children);
      firstCpu.push_back(firstView.cpuAt(cpuSeconds(RUSAGE_SELF)) - self);
      if (!res.succeeded) {
        std::fprintf(stderr, "kernelscope failed on %d kernels\n", n);
        return;
      }
      if (const auto* ptx = res.stage(Stage::Ptx)) ptxLines = ptx->artifact->lines().size();
      rustc.push_back(t.rustc);
      plain.push_back(plainMs);
      tools.push_back(t.total());
      ours.push_back(ms(end - start));
      first.push_back(firstView.msFrom(start, end));
      // The first view of a compile without the remarks, as the language server compiles by
      // default (its `remarks` setting), every line moved again.
      FirstView plainView;
      CompileOptions noRemarks;
      noRemarks.remarks = false;
      noRemarks.onStages = plainView.listener();
      start = Clock::now();
      if (!compileWithDefaults(tc, {file, "// no remarks\n" + moved + text}, noRemarks).succeeded) {
        std::fprintf(stderr, "kernelscope failed on %d kernels without the remarks\n", n);
        return;
      }
      plainFirst.push_back(plainView.msFrom(start, Clock::now()));
    }
    double rc = median(rustc), pl = median(plain), tl = median(tools), ks = median(ours),
           fv = median(first), nr = median(plainFirst);
    const double toolsCpuS = median(toolsCpu), ksCpuS = median(ksCpu);
    std::printf(
        "%8d %6zu %9.0f %9.0f %9.0f %9.0f %9.0f %9.3f %8.0f %9.3f %9.0f %9.3f %9.2f %9.2f %9.2f "
        "%9.2f %11.3f %7zu\n",
        n, splitLines(text).size(), rc, pl, tl, ks, ks - tl, (ks - tl) / tl, fv, fv / rc, nr,
        nr / pl, median(ownCpu), median(firstCpu), toolsCpuS, ksCpuS,
        (ksCpuS - toolsCpuS) / toolsCpuS, ptxLines);
  }
  std::printf(
      "(ms, medians of %d rounds; rustc = rustc as kernelscope runs it (MIR, LLVM IR, PTX and\n"
      " the remarks), plain = rustc without the remarks, as a user compiling the file runs it;\n"
      " own = ks - tools; first = first view published; nr first = that of a compile without\n"
      " the remarks (the language server's default), against plain;\n"
      " own cpu = CPU seconds of kernelscope's own code in the compile, first cpu = those spent\n"
      " before the first view, tools cpu = CPU seconds of rustc + ptxas + nvdisasm by hand,\n"
      " ks cpu = CPU seconds of the whole compile, its tools included; added/tools = (ks cpu -\n"
      " tools cpu) / tools cpu: where kernelscope's LLVM back end makes the PTX in place of\n"
      " rustc's, own cpu includes that back end and rustc's time does not)\n",
      rounds);
}

/// 5. What the costs (Costs.h: live registers, control codes, local memory, access classes) add
/// to a whole compile: each round compiles the file with the costs and without, in turn (the
/// order alternating between rounds, so that a drift of the machine's load falls on both).
void costsOverhead(const Toolchain& tc, const fs::path& dir, int rounds,
                   const std::vector<int>& sizes) {
  std::printf("%8s %10s %10s %8s %10s %10s %8s %10s %10s %8s\n", "kernels", "on ms", "off ms",
              "ratio", "on cpu", "off cpu", "ratio", "own on", "own off", "own/cpu");
  for (int n : sizes) {
    fs::path file = dir / ("c" + std::to_string(n) + ".rs");
    std::string text = generatedKernels(n);
    std::ofstream(file) << text;
    std::vector<double> wall[2], cpu[2], own[2];
    int compiles = 0;
    for (int r = 0; r < rounds; ++r)
      for (int k = 0; k < 2; ++k) {
        const bool on = (r + k) % 2 == 0;
        ResolvedOptions opts;
        opts.costs = on;
        // Every compile moves every line, so that nothing comes from a cache.
        std::string moved;
        for (int c = 0; c <= compiles; ++c)
          moved += "// compile " + std::to_string(compiles) + "\n";
        ++compiles;
        const double self = cpuSeconds(RUSAGE_SELF), children = cpuSeconds(RUSAGE_CHILDREN);
        auto start = Clock::now();
        CompileResult res = compileKernel(tc, {file, moved + text}, opts);
        wall[on].push_back(ms(Clock::now() - start));
        own[on].push_back(cpuSeconds(RUSAGE_SELF) - self);
        cpu[on].push_back(own[on].back() + cpuSeconds(RUSAGE_CHILDREN) - children);
        if (!res.succeeded || (on && !res.costs)) {
          std::fprintf(stderr, "kernelscope failed on %d kernels (costs %s)\n", n,
                       on ? "on" : "off");
          return;
        }
      }
    const double wOn = median(wall[1]), wOff = median(wall[0]);
    const double cOn = median(cpu[1]), cOff = median(cpu[0]);
    const double oOn = median(own[1]), oOff = median(own[0]);
    std::printf("%8d %10.0f %10.0f %8.3f %10.2f %10.2f %8.3f %10.2f %10.2f %8.3f\n", n, wOn, wOff,
                wOn / wOff, cOn, cOff, cOn / cOff, oOn, oOff, (oOn - oOff) / cOff);
  }
  std::printf(
      "(medians of %d rounds; on/off = a whole compile with and without the costs, in turn;\n"
      " cpu = CPU seconds of the compile, its tools included; own = those of kernelscope's\n"
      " process alone, where the costs run: own/cpu = (own on - own off) / off cpu, the costs'\n"
      " share of the compile's CPU without the tools' much larger noise)\n",
      rounds);
}

/// 7. An edit to one kernel, through an engine whose kernel images (KernelImages.h) hold the
/// file's other kernels, against a whole compile of the file (every line moved: nothing from
/// a cache) in the same round: the time to the first view and to the whole result (SASS and
/// resources), and the back end's part of each (from the first view on).
void editScale(const Toolchain& tc, const fs::path& dir, int rounds,
               const std::vector<int>& sizes) {
  std::printf("%8s %9s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n", "kernels", "whole", "edit",
              "edit/whl", "whl first", "edt first", "whl back", "edit back", "back/whl", "whl cpu",
              "edit cpu");
  for (int n : sizes) {
    const fs::path file = dir / ("e" + std::to_string(n) + ".rs");
    const std::string text = generatedKernels(n);
    std::ofstream(file) << text;
    Engine engine{ToolchainSettings{}, nullptr};
    // The edits compile as the language server compiles them: without the remarks (its
    // `remarks` setting's default), so that `edit cpu` compares with its cycles' own CPU.
    auto timed = [&](auto compile, double& firstView, double& ownCpu) {
      FirstView first;
      CompileOptions opts;
      opts.remarks = false;
      const double self = cpuSeconds(RUSAGE_SELF);
      opts.onStages = first.listener();
      const auto start = Clock::now();
      const bool ok = compile(opts);
      const auto end = Clock::now();
      firstView = first.msFrom(start, end);
      ownCpu = cpuSeconds(RUSAGE_SELF) - self;
      return ok ? ms(end - start) : -1.0;
    };
    double ignored = 0, ignoredCpu = 0;
    timed(
        [&](CompileOptions& o) {
          return engine.compile({file, text}, o)->succeeded;
        },
        ignored, ignoredCpu);
    std::vector<double> whole, edit, wholeFirst, editFirst, wholeBack, editBack, wholeCpu, editCpu;
    for (int r = 0; r < rounds; ++r) {
      // A constant of kernel_0 no earlier run used: its module is new, the others' are not.
      const std::string edited = editedKernel(text, 0, r);
      double ef = 0, wf = 0, ec = 0, wc = 0;
      const double e = timed(
          [&](CompileOptions& o) {
            return engine.compile({file, edited}, o)->succeeded;
          },
          ef, ec);
      std::string moved;
      for (int k = 0; k <= r; ++k) moved += "// round " + std::to_string(r) + "\n";
      const double w = timed(
          [&](CompileOptions& o) {
            return compileWithDefaults(tc, {file, moved + edited}, o).succeeded;
          },
          wf, wc);
      if (e < 0 || w < 0) {
        std::fprintf(stderr, "kernelscope failed on %d kernels\n", n);
        return;
      }
      edit.push_back(e);
      whole.push_back(w);
      editFirst.push_back(ef);
      wholeFirst.push_back(wf);
      editBack.push_back(e - ef);
      wholeBack.push_back(w - wf);
      editCpu.push_back(ec);
      wholeCpu.push_back(wc);
    }
    const double wh = median(whole), ed = median(edit), wb = median(wholeBack),
                 eb = median(editBack);
    std::printf("%8d %9.0f %9.0f %9.3f %9.0f %9.0f %9.0f %9.0f %9.3f %9.2f %9.2f\n", n, wh, ed,
                ed / wh, median(wholeFirst), median(editFirst), wb, eb, eb / wb, median(wholeCpu),
                median(editCpu));
    std::fflush(stdout);
  }
  std::printf(
      "(ms, medians of %d rounds; whole = a whole compile, every kernel assembled; edit = the\n"
      " same file with one constant of one kernel changed, through an engine that holds the\n"
      " other kernels' images; first = the first view (MIR, LLVM IR, PTX); back = whole -\n"
      " first: ptxas, nvdisasm, the SASS and resources after the first view; cpu = CPU seconds\n"
      " of kernelscope's own process (its back end included, the tools not); both compile\n"
      " without the remarks, as the language server does by default)\n",
      rounds);
}

/// 6. What one result holds on the heap, part by part: the heap in use falls by each part as it
/// is freed (a shared part, such as the chains the line map shares with the artifacts, falls
/// with the last holder freed).
// What parking the result costs (ParkedResult.h): the bytes it keeps, the time each way.
void parkingCost(const CompileResult& result) {
  auto start = Clock::now();
  auto parked = ParkedResult::park(result);
  const double parkMs = ms(Clock::now() - start);
  if (!parked) {
    std::printf("  not parked\n");
    return;
  }
  start = Clock::now();
  auto back = parked->unpark();
  const double unparkMs = ms(Clock::now() - start);
  std::printf("  parked: %.2f MiB (%.2f MiB serialized) in %.0f ms, back in %.0f ms%s\n",
              parked->bytes() / double(1 << 20), parked->serializedBytes() / double(1 << 20),
              parkMs, unparkMs, back ? "" : " (FAILED)");
}

void resultParts(const Toolchain& tc, const fs::path& dir, const std::vector<int>& sizes) {
  for (int n : sizes) {
    fs::path file = dir / ("p" + std::to_string(n) + ".rs");
    std::string text = generatedKernels(n);
    std::ofstream(file) << text;
    malloc_trim(0);
    const double before = heapInUseMiB();
    auto result = std::make_shared<CompileResult>(compileWithDefaults(tc, {file, text}, {}));
    if (!result->succeeded) {
      std::fprintf(stderr, "kernelscope failed on %d kernels\n", n);
      return;
    }
    const double held = heapInUseMiB() - before;
    std::printf("%d kernels: the result holds %.2f MiB of heap; its footprint says %.2f MiB\n", n,
                held, footprint(*result) / double(1 << 20));
    parkingCost(*result);
    auto freed = [last = heapInUseMiB()](const std::string& what) mutable {
      const double now = heapInUseMiB();
      std::printf("  %-28s %8.2f MiB\n", what.c_str(), last - now);
      last = now;
    };
    const size_t remarks = result->remarks.size();
    result->remarks = {};
    freed("remarks (" + std::to_string(remarks) + ")");
    result->diagnostics = {};
    freed("diagnostics");
    result->costs.reset();
    freed("costs");
    result->cubins.clear();
    freed("cubins");
    result->lineMap.reset();
    freed("line map");
    for (auto& [stage, outcome] : result->stages) {
      const size_t lines = outcome.artifact->lines().size();
      const size_t textBytes = outcome.artifact->text().size();
      outcome.artifact = StageOutcome::emptyArtifact();
      freed(std::string(stageName(stage)) + " (" + std::to_string(lines) + " lines, " +
            std::to_string(textBytes >> 10) + " KiB text)");
    }
    result.reset();
    freed("the rest");
  }
}

struct Server {
  test::FakeTransport transport;
  Engine compiler{ToolchainSettings{}, nullptr};
  std::unique_ptr<server::LspServer> lsp;
  int nextId = 0;

  Server() {
    if (const char* mb = std::getenv("KS_BENCH_CACHE_MB"))
      compiler.setCacheCapacity(size_t(std::strtoul(mb, nullptr, 10)) << 20);
    server::ServerOptions o;
    o.scheduler.workers = 1;
    o.scheduler.debounce.fixed = std::chrono::milliseconds(0);
    o.compile = [this](const CompileInput& in, const CompileOptions& opts,
                       const CancellationToken& c) { return compiler.compile(in, opts, c); };
    o.park = [this](const std::shared_ptr<const CompileResult>& r) { return compiler.park(r); };
    lsp = std::make_unique<server::LspServer>(transport, std::move(o));
    request("initialize", {{"capabilities", json::object()}});
    notify("initialized", json::object());
  }
  void notify(const std::string& method, json params) {
    lsp->onMessage(lsp::makeNotification(method, std::move(params)).dump());
  }
  std::string request(const std::string& method, json params) {
    int id = ++nextId;
    lsp->onMessage(lsp::makeRequest(id, method, std::move(params)).dump());
    for (auto& m : transport.take())
      if (m.contains("id") && m["id"] == id) return m.dump();
    return {};
  }
  /// Waits until `revision` of `uri` is ready with nothing pending (or failed).
  bool waitDone(const std::string& uri, int revision) {
    bool done = false, ok = false;
    transport.drainUntil([&] {
      for (auto& m : transport.take()) {
        if (m.value("method", "") != "kernelscope/status") continue;
        const json& p = m["params"];
        if (p["uri"] != uri || p["revision"] != revision) continue;
        if (p["state"] == "failed" ||
            (p["state"] == "ready" && p.value("pending", json::array()).empty())) {
          done = true;
          ok = p["state"] == "ready";
        }
      }
      return done;
    });
    return ok;
  }
  void open(const std::string& uri, const std::string& text) {
    notify(
        "textDocument/didOpen",
        {{"textDocument", {{"uri", uri}, {"languageId", "rust"}, {"version", 1}, {"text", text}}}});
  }
  void edit(const std::string& uri, int version, const std::string& text) {
    notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", version}}},
                                      {"contentChanges", {{{"text", text}}}}});
    notify("textDocument/didSave", {{"textDocument", {{"uri", uri}}}});
  }
};

/// 2 and 3. The server's memory and the artifact reply.
void serverMemory(const fs::path& dir, int cycles, int cycledKernels) {
  Server s;
  std::printf("server RSS at start: %.1f MiB\n", rssMiB());
  // 20 files: the examples and generated files of 1 to 10 kernels.
  std::vector<std::string> texts;
  for (const auto& e : fs::directory_iterator(fs::path(KS_SOURCE_DIR) / "examples"))
    if (e.path().extension() == ".rs") {
      std::ifstream in(e.path());
      texts.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
  for (int n = 1; texts.size() < 20; n = n % 10 + 1) texts.push_back(generatedKernels(n));
  size_t sourceLines = 0;
  for (size_t f = 0; f < texts.size(); ++f) {
    fs::path path = dir / ("open" + std::to_string(f) + ".rs");
    std::ofstream(path) << texts[f];
    sourceLines += splitLines(texts[f]).size();
    std::string uri = lsp::pathToFileUri(path.string());
    s.open(uri, texts[f]);
    if (!s.waitDone(uri, 1)) std::fprintf(stderr, "%s: compile failed\n", path.c_str());
  }
  std::printf("server RSS with 20 files open (%zu source lines): %.1f MiB (heap in use %.1f MiB)\n",
              sourceLines, rssMiB(), heapInUseMiB());

  // Edit/compile cycles of the 40-kernel file (or K kernels), each edit a different constant.
  fs::path path = dir / "cycles.rs";
  std::string text = generatedKernels(cycledKernels);
  std::ofstream(path) << text;
  std::string uri = lsp::pathToFileUri(path.string());
  s.open(uri, text);
  s.waitDone(uri, 1);
  std::string reply =
      s.request("kernelscope/artifact", {{"textDocument", {{"uri", uri}}}, {"stage", "ptx"}});
  std::printf("kernelscope/artifact (PTX, %d kernels): %zu bytes\n", cycledKernels, reply.size());
  const double self = cpuSeconds(RUSAGE_SELF), children = cpuSeconds(RUSAGE_CHILDREN);
  for (int c = 1; c <= cycles; ++c) {
    std::string edited = text;
    edited.replace(edited.find("0.75"), 4, "0." + std::to_string(100 + c));
    s.edit(uri, c + 1, edited);
    if (!s.waitDone(uri, c + 1)) std::fprintf(stderr, "cycle %d: compile failed\n", c);
    s.transport.drainUntil([&] { return s.lsp->idle(); });  // the results to park, parked
    if (c % 10 == 0 || c == 1)
      std::printf(
          "  after %3d cycles: RSS %.1f MiB (heap in use %.1f MiB); per cycle: own cpu %.2f s, "
          "tools cpu %.2f s\n",
          c, rssMiB(), heapInUseMiB(), (cpuSeconds(RUSAGE_SELF) - self) / c,
          (cpuSeconds(RUSAGE_CHILDREN) - children) / c);
    std::fflush(stdout);
  }
}

/// One run of the kernelscope executable: its time, its own peak RSS (wait4, not the other
/// children's) and the bytes it wrote.
struct CliRun {
  double seconds = 0, maxRssMiB = 0;
  uintmax_t bytes = 0;
  bool ok = false;
};

CliRun runKernelscope(const std::vector<std::string>& args, const fs::path& out) {
  std::vector<std::string> argv{KS_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  const auto start = Clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    const int fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0) _exit(127);
    execv(cargv[0], cargv.data());
    _exit(127);
  }
  CliRun run;
  int status = 0;
  rusage u{};
  if (pid < 0 || wait4(pid, &status, 0, &u) != pid) return run;
  run.seconds = ms(Clock::now() - start) / 1000;
  run.maxRssMiB = u.ru_maxrss / 1024.0;
  run.bytes = fs::file_size(out);
  run.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  return run;
}

/// 4. explain of an n-kernel file: compiled (the result kept on disk, as the CLI does),
/// against the tools by hand in the same run; then from the result cache (the user's, which
/// holds the nvptx64 core too), as text and as --json.
void explainScale(const Toolchain& tc, const fs::path& dir, int n) {
  const fs::path file = dir / ("explain" + std::to_string(n) + ".rs");
  std::ofstream(file) << generatedKernels(n);
  const fs::path out = dir / "explain.out";
  rawTools(tc, file);  // warm the page cache
  const ToolTimes raw = rawTools(tc, file);
  std::printf("\n%-34s %12s %9s %9s\n", ("explain, " + std::to_string(n) + " kernels").c_str(),
              "bytes", "s", "RSS MiB");
  std::printf("%-34s %12s %9.2f %9s\n", "the tools by hand", "", raw.total() / 1000, "");
  const CliRun compiled = runKernelscope({"explain", file.string()}, out);  // fills the cache
  std::printf("%-34s %12ju %9.2f %9.1f%s\n", "text, compiled and kept", compiled.bytes,
              compiled.seconds, compiled.maxRssMiB, compiled.ok ? "" : " (failed)");
  if (!compiled.ok) return;
  for (const char* format : {"text", "--json"}) {
    std::vector<std::string> args{"explain", file.string()};
    if (std::string_view(format) != "text") args.emplace_back(format);
    const CliRun run = runKernelscope(args, out);
    std::printf("%-34s %12ju %9.2f %9.1f%s\n", (std::string(format) + ", cached").c_str(),
                run.bytes, run.seconds, run.maxRssMiB, run.ok ? "" : " (failed)");
  }
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = argc > 1 ? std::max(0, std::atoi(argv[1])) : 3;
  int cycles = argc > 2 ? std::atoi(argv[2]) : 200;  // < 0: no server
  const char* kernels = argc > 2 ? std::strchr(argv[2], ':') : nullptr;
  const int cycledKernels = kernels ? std::max(1, std::atoi(kernels + 1)) : 40;
  std::vector<int> sizes;
  for (std::string_view rest = argc > 3 ? argv[3] : "1,5,10,20,40,80"; !rest.empty();) {
    size_t comma = std::min(rest.find(','), rest.size());
    if (int n = std::atoi(std::string(rest.substr(0, comma)).c_str()); n > 0) sizes.push_back(n);
    rest.remove_prefix(std::min(comma + 1, rest.size()));
  }
  Toolchain tc = discoverToolchain();
  if (tc.rustc.found() && !tc.sysroot.found())
    ensureSysroot(tc, [](const std::string& m) { std::fprintf(stderr, "%s\n", m.c_str()); });
  if (!tc.rustc.found() || !tc.sysroot.found() || !tc.ptxas.found() || !tc.nvdisasm.found()) {
    std::fprintf(stderr, "toolchain incomplete: run scripts/setup.sh\n%s",
                 doctorReport(tc).c_str());
    return 1;
  }
  TempDir dir("kernelscope-scale");
  if (argc > 4 && std::string_view(argv[4]) == "costs") {  // only the costs' overhead
    costsOverhead(tc, dir.path(), std::max(rounds, 1), sizes);
    return 0;
  }
  if (argc > 4 && std::string_view(argv[4]) == "edit") {  // only an edit against a whole compile
    editScale(tc, dir.path(), std::max(rounds, 1), sizes);
    return 0;
  }
  if (argc > 4 && std::string_view(argv[4]) == "incremental") {  // only rustc's own reuse
    rustcIncremental(tc, dir.path(), std::max(rounds, 1), sizes);
    return 0;
  }
  if (argc > 4 && std::string_view(argv[4]) == "closures") {  // only an edit's own optimization
    kernelClosureCost(tc, dir.path(), std::max(rounds, 1), sizes);
    return 0;
  }
  if (argc > 4 && std::string_view(argv[4]) == "parts") {  // only a result's parts
    resultParts(tc, dir.path(), sizes);
    return 0;
  }
  // The server first, so that its memory is not measured on top of the compiles'.
  if (cycles >= 0) serverMemory(dir.path(), cycles, cycledKernels);
  if (rounds > 0) compileScale(tc, dir.path(), rounds, sizes);
  if (!sizes.empty()) explainScale(tc, dir.path(), *std::max_element(sizes.begin(), sizes.end()));
  return 0;
}
