// The compile driver: unsaved text, broken kernels, missing and failing tools, arches.
#include <doctest/doctest.h>

#include <fstream>

#include "Compile.h"
#include "CompileCache.h"
#include "TestSupport.h"

using namespace ks;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {
const Diagnostic* firstError(const CompileResult& r) {
  for (const auto& d : r.diagnostics)
    if (d.severity == Severity::Error) return &d;
  return nullptr;
}
std::string withLineReplaced(const std::string& text, std::string_view from, std::string_view to) {
  std::string out = text;
  out.replace(out.find(from), from.size(), to);
  return out;
}
}  // namespace

TEST_CASE("unsaved text is compiled and reported under the real path") {
  if (!test::toolchainUsable()) return;
  test::Fixture f(test::sourceDir() / "examples/saxpy.rs");
  uint32_t line = f.lineOf("*y.add(i) = a * *x.add(i) + *y.add(i);");
  std::string broken = withLineReplaced(f.text, "a * *x.add(i)", "a * *x.add(i) * undefined_name");
  CompileResult r = compileKernel(test::toolchain(), {f.path, broken}, {});
  CHECK_FALSE(r.succeeded);
  const Diagnostic* e = firstError(r);
  REQUIRE(e);
  REQUIRE(e->range);
  CHECK(e->range->file == f.path.string());
  CHECK(e->range->startLine == line);
  CHECK(e->message.find("undefined_name") != std::string::npos);
  for (Stage s : kAllStages) {
    REQUIRE(r.stage(s));
    CHECK_FALSE(r.stage(s)->available);
  }

  // An unsaved insertion shifts the lines; the map follows the text, not the disk.
  std::string shifted = withLineReplaced(f.text, "#[no_mangle]", "// a new comment\n#[no_mangle]");
  CompileResult s = compileKernel(test::toolchain(), {f.path, shifted}, {});
  REQUIRE(s.succeeded);
  CHECK_FALSE(s.lineMap->linesFor(Stage::Ptx, {f.path.string(), line + 1}).direct.empty());
  CHECK(s.lineMap->linesFor(Stage::Ptx, {f.path.string(), line}).direct.empty());
}

TEST_CASE("a missing nvdisasm or ptxas degrades SASS only, with a reason") {
  if (!test::toolchainUsable()) return;
  fs::path saxpy = test::sourceDir() / "examples/saxpy.rs";
  Toolchain noDisasm = test::toolchain();
  noDisasm.nvdisasm.path.clear();
  noDisasm.nvdisasm.problem = "not found";
  CompileResult r = compileKernel(noDisasm, {saxpy, std::nullopt}, {});
  CHECK(r.succeeded);
  CHECK(r.stage(Stage::Ptx)->available);
  CHECK(r.stage(Stage::Mir)->available);
  CHECK(r.stage(Stage::LlvmIr)->available);
  CHECK_FALSE(r.stage(Stage::Sass)->available);
  CHECK(r.stage(Stage::Sass)->unavailableReason.find("nvdisasm") != std::string::npos);
  REQUIRE(r.kernels.size() == 1);
  CHECK(r.kernels[0].resources);  // ptxas still ran

  Toolchain noPtxas = test::toolchain();
  noPtxas.ptxas.path.clear();
  noPtxas.ptxas.problem = "not found";
  r = compileKernel(noPtxas, {saxpy, std::nullopt}, {});
  CHECK(r.stage(Stage::Ptx)->available);
  CHECK_FALSE(r.stage(Stage::Sass)->available);
  CHECK(r.stage(Stage::Sass)->unavailableReason.find("ptxas") != std::string::npos);
}

TEST_CASE("a compiler that crashes or hangs is reported, not waited for") {
  if (!test::toolchainUsable()) return;
  TempDir dir("kernelscope-fake-rustc");
  auto fake = [&](const std::string& name, const std::string& body) {
    fs::path p = dir.path() / name;
    std::ofstream(p) << "#!/bin/sh\n" << body << "\n";
    fs::permissions(p, fs::perms::owner_all);
    Toolchain tc = test::toolchain();
    tc.rustc.path = p;
    return tc;
  };
  fs::path saxpy = test::sourceDir() / "examples/saxpy.rs";
  CompileResult crashed = compileKernel(fake("crash", "echo 'internal error' >&2; kill -9 $$"), {saxpy, std::nullopt}, {});
  CHECK_FALSE(crashed.succeeded);
  REQUIRE(firstError(crashed));
  CHECK(firstError(crashed)->message.find("signal 9") != std::string::npos);
  CHECK(firstError(crashed)->message.find("internal error") != std::string::npos);

  CompileOptions quick;
  quick.toolTimeout = 300ms;
  CompileResult hung = compileKernel(fake("hang", "sleep 30"), {saxpy, std::nullopt}, quick);
  CHECK_FALSE(hung.succeeded);
  REQUIRE(firstError(hung));
  CHECK(firstError(hung)->message.find("timed out") != std::string::npos);
  CHECK(hung.totalTime < 10s);
  // The failure names the step that timed out; it is not "does not compile".
  CHECK(hung.failure.starts_with("rustc timed out after 0."));
  CHECK(hung.failure.find("(its time limit)") != std::string::npos);

  CancellationToken cancelled;
  cancelled.cancel();
  CompileResult c = compileKernel(fake("slow", "sleep 30"), {saxpy, std::nullopt}, {}, cancelled);
  CHECK(c.cancelled);
}

TEST_CASE("architectures: another target works, an unknown one is refused") {
  if (!test::toolchainUsable()) return;
  fs::path saxpy = test::sourceDir() / "examples/saxpy.rs";
  CompileOptions sm75;
  sm75.arch = "sm_75";
  CompileResult r = compileKernel(test::toolchain(), {saxpy, std::nullopt}, sm75);
  REQUIRE(r.succeeded);
  CHECK(r.stage(Stage::Ptx)->artifact.text.find(".target sm_75") != std::string::npos);
  CHECK(r.stage(Stage::Sass)->artifact.text.find("SM75") != std::string::npos);

  CompileOptions bogus;
  bogus.arch = "sm_42";
  r = compileKernel(test::toolchain(), {saxpy, std::nullopt}, bogus);
  CHECK_FALSE(r.succeeded);
  REQUIRE(firstError(r));
  CHECK(firstError(r)->message.find("sm_42") != std::string::npos);
  CHECK(validateArch("sm_90") == std::nullopt);
  CHECK(validateArch("sm_90a") == std::nullopt);
  CHECK(validateArch("compute_90").has_value());
}

TEST_CASE("a missing file and a missing toolchain are clear errors") {
  CompileResult r = compileKernel(test::toolchain(), {"/nonexistent/k.rs", std::nullopt}, {});
  CHECK_FALSE(r.succeeded);
  REQUIRE(firstError(r));
  CHECK(firstError(r)->message.find("/nonexistent/k.rs") != std::string::npos);

  Toolchain none;
  none.rustc.name = "rustc";
  none.rustc.problem = "no rustc found";
  none.rustc.fix = "install rustc-web";
  r = compileKernel(none, {test::sourceDir() / "examples/saxpy.rs", std::nullopt}, {});
  REQUIRE(firstError(r));
  CHECK(firstError(r)->message.find("install rustc-web") != std::string::npos);
  CHECK(r.stage(Stage::Ptx)->unavailableReason.find("no rustc found") != std::string::npos);
}

TEST_CASE("kernels carry their resources and sizes") {
  if (!test::toolchainUsable()) return;
  const CompileResult& r = test::compiled(test::sourceDir() / "examples/matmul_tiled.rs");
  REQUIRE(r.kernels.size() == 1);
  const KernelInfo& k = r.kernels[0];
  CHECK(k.symbol == "matmul_tiled");
  REQUIRE(k.resources);
  CHECK(k.resources->registers > 0);
  CHECK(k.resources->sharedMemory == 2 * 16 * 16 * 4);
  CHECK(k.ptxInstructions > 50);
  CHECK(k.sassInstructions > 50);
  test::Fixture f(test::sourceDir() / "examples/matmul_tiled.rs");
  CHECK(k.definition.line == f.lineOf("fn matmul_tiled"));
}

TEST_CASE("the compile cache: one key per input, least recently used evicted first") {
  Toolchain tc;
  tc.rustc.version = "1.96.0";
  CompileInput a{"/k/a.rs", std::string("fn a() {}")};
  CompileOptions sm90, sm80;
  sm80.arch = "sm_80";
  CHECK(compileKey(tc, a, sm90) == compileKey(tc, a, sm90));
  CHECK(compileKey(tc, a, sm90) != compileKey(tc, a, sm80));
  CompileInput edited = a;
  edited.text = "fn a() { }";
  CHECK(compileKey(tc, a, sm90) != compileKey(tc, edited, sm90));
  Toolchain other = tc;
  other.ptxas.version = "13.0";
  CHECK(compileKey(tc, a, sm90) != compileKey(other, a, sm90));

  CompileCache cache(2);
  auto result = [] {
    auto r = std::make_shared<CompileResult>();
    r->succeeded = true;
    return r;
  };
  cache.insert("one", result());
  cache.insert("two", result());
  CHECK(cache.find("one"));  // now the most recent
  cache.insert("three", result());
  CHECK(cache.size() == 2);
  CHECK(cache.find("one"));
  CHECK_FALSE(cache.find("two"));
  auto cancelled = result();
  cancelled->cancelled = true;
  cache.insert("four", cancelled);
  CHECK_FALSE(cache.find("four"));
  cache.insert("five", std::make_shared<CompileResult>());  // failed: may be worth a retry
  CHECK_FALSE(cache.find("five"));
}

TEST_CASE("a cached result built from a file that changed on disk is not served") {
  TempDir dir("kernelscope-cache");
  fs::path module = dir.path() / "math.rs";
  std::ofstream(module) << "pub fn f() {}\n";
  auto r = std::make_shared<CompileResult>();
  r->succeeded = true;
  r->sourceFiles = {module};
  CompileCache cache;
  cache.insert("k", r);
  CHECK(cache.find("k"));
  std::ofstream(module) << "pub fn f() { }\n";
  CHECK_FALSE(cache.find("k"));
}
