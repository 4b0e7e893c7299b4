// The compile driver: unsaved text, broken kernels, missing and failing tools, arches. Its
// steps (what is published when, what a missing tool takes away, the cache's bounds) run on
// recorded tool runs (tests/golden/tools/), the rest on the toolchain.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>

#include "Compile.h"
#include "CompileCache.h"
#include "ExactLocations.h"
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
/// The toolchain that answers a compile of `file` (with the default options) from its recorded
/// tool runs (tests/golden/tools/): no tool starts.
Toolchain recorded(const fs::path& file) {
  return test::replayToolchain(test::recordingOf(file), test::sourceDir());
}
std::string withLineReplaced(const std::string& text, std::string_view from, std::string_view to) {
  std::string out = text;
  out.replace(out.find(from), from.size(), to);
  return out;
}
}  // namespace

TEST_CASE("unsaved text is compiled and reported under the real path") {
  test::requireToolchain();
  test::Fixture f(test::sourceDir() / "examples/saxpy.rs");
  uint32_t line = f.lineOf("*y.add(i) = a * *x.add(i) + *y.add(i);");
  std::string broken = withLineReplaced(f.text, "a * *x.add(i)", "a * *x.add(i) * undefined_name");
  CompileResult r = compileWithDefaults(test::toolchain(), {f.path, broken}, {});
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
  CompileResult s = compileWithDefaults(test::toolchain(), {f.path, shifted}, {});
  REQUIRE(s.succeeded);
  CHECK_FALSE(s.lineMap->linesFor(Stage::Ptx, {f.path.string(), line + 1}).direct.empty());
  CHECK(s.lineMap->linesFor(Stage::Ptx, {f.path.string(), line}).direct.empty());
}

TEST_CASE("a missing nvdisasm or ptxas degrades SASS only, with a reason") {
  fs::path saxpy = test::sourceDir() / "examples/saxpy.rs";
  Toolchain noDisasm = recorded(saxpy);
  noDisasm.nvdisasm.path.clear();
  noDisasm.nvdisasm.problem = "not found";
  CompileResult r = compileWithDefaults(noDisasm, {saxpy, std::nullopt}, {});
  CHECK(r.succeeded);
  CHECK(r.stage(Stage::Ptx)->available);
  CHECK(r.stage(Stage::Mir)->available);
  CHECK(r.stage(Stage::LlvmIr)->available);
  CHECK_FALSE(r.stage(Stage::Sass)->available);
  CHECK(r.stage(Stage::Sass)->unavailableReason.find("nvdisasm") != std::string::npos);
  REQUIRE(r.kernels.size() == 1);
  CHECK(r.kernels[0].resources);  // ptxas still ran

  Toolchain noPtxas = recorded(saxpy);
  noPtxas.ptxas.path.clear();
  noPtxas.ptxas.problem = "not found";
  r = compileWithDefaults(noPtxas, {saxpy, std::nullopt}, {});
  CHECK(r.stage(Stage::Ptx)->available);
  CHECK_FALSE(r.stage(Stage::Sass)->available);
  CHECK(r.stage(Stage::Sass)->unavailableReason.find("ptxas") != std::string::npos);
}

TEST_CASE("a compiler that crashes or hangs is reported, not waited for") {
  test::requireToolchain();
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
  CompileResult crashed = compileWithDefaults(
      fake("crash", "echo 'internal error' >&2; kill -9 $$"), {saxpy, std::nullopt}, {});
  CHECK_FALSE(crashed.succeeded);
  REQUIRE(firstError(crashed));
  CHECK(firstError(crashed)->message.find("signal 9") != std::string::npos);
  CHECK(firstError(crashed)->message.find("internal error") != std::string::npos);

  CompileOptions quick;
  quick.toolTimeout = 300ms;
  CompileResult hung = compileWithDefaults(fake("hang", "sleep 30"), {saxpy, std::nullopt}, quick);
  CHECK_FALSE(hung.succeeded);
  REQUIRE(firstError(hung));
  CHECK(firstError(hung)->message.find("timed out") != std::string::npos);
  CHECK(hung.totalTime < 10s);
  // The failure names the step that timed out; it is not "does not compile".
  CHECK(hung.failure.starts_with("rustc timed out after 0."));
  CHECK(hung.failure.find("(its time limit)") != std::string::npos);

  CancellationToken cancelled;
  cancelled.cancel();
  CompileResult c =
      compileWithDefaults(fake("slow", "sleep 30"), {saxpy, std::nullopt}, {}, cancelled);
  CHECK(c.cancelled);
}

TEST_CASE(
    "stages are published as they come: PTX with its line map first, then resources, then SASS") {
  test::Fixture f(test::sourceDir() / "examples/saxpy.rs");
  const Toolchain tc = recorded(f.path);
  uint32_t line = f.lineOf("*y.add(i) = a * *x.add(i) + *y.add(i);");
  std::vector<std::shared_ptr<const CompileResult>> published;
  CompileOptions opts;
  opts.onStages = [&](std::shared_ptr<const CompileResult> r) {
    published.push_back(std::move(r));
  };
  CompileResult final = compileWithDefaults(tc, {f.path, std::nullopt}, opts);
  REQUIRE(final.succeeded);
  CHECK(final.pending.empty());
  REQUIRE(published.size() == 2);

  const CompileResult& code = *published[0];
  CHECK(code.pending == std::vector<std::string>{"resources", "sass"});
  for (Stage s : {Stage::Mir, Stage::LlvmIr, Stage::Ptx}) {
    REQUIRE(code.stage(s));
    CHECK(code.stage(s)->available);
  }
  CHECK_FALSE(code.stage(Stage::Sass));
  REQUIRE(code.lineMap);
  CHECK_FALSE(code.lineMap->linesFor(Stage::Ptx, {f.path.string(), line}).direct.empty());
  CHECK(code.lineMap->linesFor(Stage::Sass, {f.path.string(), line}).direct.empty());
  REQUIRE(code.kernels.size() == 1);
  CHECK(code.kernels[0].ptxInstructions > 0);
  CHECK_FALSE(code.kernels[0].resources);
  // The remarks come with the resources. The PTX's exact chains are there from the first
  // view where kernelscope's back end made the PTX (rustc's LLVM is its own); otherwise
  // they are regenerated from the IR and come with the resources, in a new line map.
  CHECK(code.remarks.empty());
  auto regenerated = [](const CompileResult& r) {
    const auto& lines = r.stage(Stage::Ptx)->artifact->lines();
    return std::count_if(lines.begin(), lines.end(), [](const ArtifactLine& l) {
      return l.source == LocationSource::Regenerated;
    });
  };
  const bool ourBackEnd = tc.rustcLlvm == backEndLlvmRelease();
  CHECK(regenerated(code) ==
        (ourBackEnd ? code.stage(Stage::Ptx)->artifact->instructionCount() : 0));

  const CompileResult& resources = *published[1];
  CHECK(resources.pending == std::vector<std::string>{"sass"});
  REQUIRE(resources.kernels.size() == 1);
  REQUIRE(resources.kernels[0].resources);
  CHECK(resources.kernels[0].resources->registers > 0);
  CHECK_FALSE(resources.stage(Stage::Sass));
  CHECK(regenerated(resources) == resources.stage(Stage::Ptx)->artifact->instructionCount());
  CHECK_FALSE(resources.remarks.empty());
  CHECK((resources.lineMap != code.lineMap) == !ourBackEnd);
  CHECK_FALSE(resources.lineMap->linesFor(Stage::Ptx, {f.path.string(), line}).direct.empty());

  // The last step adds SASS to a new line map: what was published stays as it was.
  REQUIRE(final.stage(Stage::Sass));
  CHECK(final.stage(Stage::Sass)->available);
  CHECK_FALSE(final.lineMap->linesFor(Stage::Sass, {f.path.string(), line}).direct.empty());
  CHECK(code.lineMap->linesFor(Stage::Sass, {f.path.string(), line}).direct.empty());
  CHECK(final.kernels[0].sassInstructions > 0);

  // Nothing comes after the front end when only MIR and PTX are asked for without ptxas.
  Toolchain noPtxas = tc;
  noPtxas.ptxas.path.clear();
  noPtxas.ptxas.problem = "not found";
  published.clear();
  opts.stages = {Stage::Mir, Stage::Ptx};
  CompileResult alone = compileWithDefaults(noPtxas, {f.path, std::nullopt}, opts);
  CHECK(alone.succeeded);
  CHECK(published.empty());
}

TEST_CASE(
    "ptxas runs once per compile, nvdisasm once and only when SASS is asked for (the costs' "
    "live registers come from kernelscope's own count)") {
  test::requireToolchain();
  TempDir dir("kernelscope-count-tools");
  fs::path log = dir.path() / "runs";
  // Wrappers that log each run and then run the real tool.
  auto counted = [&](ToolInfo& tool) {
    fs::path p = dir.path() / tool.path.filename();
    std::ofstream(p) << "#!/bin/sh\necho " << tool.path.filename().string() << " >> '"
                     << log.string() << "'\nexec '" << tool.path.string() << "' \"$@\"\n";
    fs::permissions(p, fs::perms::owner_all);
    tool.path = p;
  };
  Toolchain tc = test::toolchain();
  counted(tc.ptxas);
  counted(tc.nvdisasm);
  auto runs = [&] {
    std::string all = readWholeFile(log);
    fs::remove(log);
    return all;
  };
  // A kernel whose PTX calls into `core` (linked in: ptxas runs once) and one that does not.
  for (fs::path file : {test::sourceDir() / "tests/fixtures/bounds_check.rs",
                        test::sourceDir() / "examples/saxpy.rs"}) {
    CAPTURE(file);
    CompileResult all = compileKernel(tc, {file, std::nullopt, {}}, {});
    REQUIRE(all.succeeded);
    CHECK(all.stage(Stage::Sass)->available);
    CHECK(runs() == "ptxas\nnvdisasm\n");
    REQUIRE(all.costs);
    CHECK(all.costs->liveCounts);
    CompileOptions noCosts;
    noCosts.costs = false;
    REQUIRE(compileWithDefaults(tc, {file, std::nullopt, {}}, noCosts).succeeded);
    CHECK(runs() == "ptxas\nnvdisasm\n");
    CompileOptions noSass;
    noSass.stages = {Stage::Ptx};
    CompileResult ptx = compileWithDefaults(tc, {file, std::nullopt, {}}, noSass);
    REQUIRE(ptx.succeeded);
    REQUIRE_FALSE(ptx.kernels.empty());
    CHECK(ptx.kernels[0].resources);
    CHECK(runs() == "ptxas\n");
  }
}

TEST_CASE("architectures: another target works, an unknown one is refused") {
  test::requireToolchain();
  fs::path saxpy = test::sourceDir() / "examples/saxpy.rs";
  CompileOptions sm75;
  sm75.arch = "sm_75";
  CompileResult r = compileWithDefaults(test::toolchain(), {saxpy, std::nullopt}, sm75);
  REQUIRE(r.succeeded);
  CHECK(r.stage(Stage::Ptx)->artifact->text().find(".target sm_75") != std::string::npos);
  CHECK(r.stage(Stage::Sass)->artifact->text().find("SM75") != std::string::npos);

  CompileOptions bogus;
  bogus.arch = "sm_42";
  r = compileWithDefaults(test::toolchain(), {saxpy, std::nullopt}, bogus);
  CHECK_FALSE(r.succeeded);
  REQUIRE(firstError(r));
  CHECK(firstError(r)->message.find("sm_42") != std::string::npos);
  CHECK(validateArch("sm_90") == std::nullopt);
  CHECK(validateArch("sm_90a") == std::nullopt);
  CHECK(validateArch("compute_90").has_value());
}

TEST_CASE("a missing file and a missing toolchain are clear errors") {
  CompileResult r = compileWithDefaults(test::toolchain(), {"/nonexistent/k.rs", std::nullopt}, {});
  CHECK_FALSE(r.succeeded);
  REQUIRE(firstError(r));
  CHECK(firstError(r)->message.find("/nonexistent/k.rs") != std::string::npos);

  Toolchain none;
  none.rustc.name = "rustc";
  none.rustc.problem = "no rustc found";
  none.rustc.fix = "install rustc-web";
  r = compileWithDefaults(none, {test::sourceDir() / "examples/saxpy.rs", std::nullopt}, {});
  REQUIRE(firstError(r));
  CHECK(firstError(r)->message.find("install rustc-web") != std::string::npos);
  CHECK(r.stage(Stage::Ptx)->unavailableReason.find("no rustc found") != std::string::npos);
}

TEST_CASE("kernels carry their resources and sizes") {
  test::requireToolchain();
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
  ResolvedOptions sm90, sm80;
  sm80.arch = "sm_80";
  CHECK(compileKey(tc, a, sm90) == compileKey(tc, a, sm90));
  CHECK(compileKey(tc, a, sm90) != compileKey(tc, a, sm80));
  CompileInput edited = a;
  edited.text = "fn a() { }";
  CHECK(compileKey(tc, a, sm90) != compileKey(tc, edited, sm90));
  Toolchain other = tc;
  other.ptxas.version = "13.0";
  CHECK(compileKey(tc, a, sm90) != compileKey(other, a, sm90));

  auto result = [] {
    auto r = std::make_shared<CompileResult>();
    r->succeeded = true;
    return r;
  };
  CompileCache cache(2 * footprint(*result()) + 1);  // room for two results
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

TEST_CASE("the compile cache is bounded in bytes: real results are evicted, least recent first") {
  auto compiled = [](const char* kernel) {
    const fs::path file = test::sourceDir() / kernel;
    return std::make_shared<const CompileResult>(
        compileWithDefaults(recorded(file), {file, std::nullopt}, {}));
  };
  auto saxpy = compiled("examples/saxpy.rs"), iterators = compiled("tests/fixtures/iterators.rs"),
       jumpTable = compiled("tests/fixtures/jump_table.rs");
  size_t a = footprint(*saxpy), b = footprint(*iterators), c = footprint(*jumpTable);
  // At least the texts and a line per artifact line: the estimate is not a constant.
  CHECK(a > saxpy->stage(Stage::Ptx)->artifact->text().size() +
                saxpy->stage(Stage::Sass)->artifact->text().size());
  CHECK(b > a);
  CompileCache cache(a + b + c - 1);  // not room for all three
  cache.insert("saxpy", saxpy);
  cache.insert("iterators", iterators);
  CHECK(cache.bytes() == a + b);
  cache.insert("jumpTable", jumpTable);
  CHECK_FALSE(cache.find("saxpy"));
  CHECK(cache.find("iterators"));
  CHECK(cache.find("jumpTable"));
  CHECK(cache.bytes() == b + c);
  CHECK(cache.bytes() <= a + b + c - 1);
  CompileCache tiny(a - 1);  // a result larger than the whole cache is not kept
  tiny.insert("saxpy", saxpy);
  CHECK(tiny.size() == 0);
  CHECK(tiny.bytes() == 0);
}

TEST_CASE("the compile cache keeps a parked result parked, bounded apart, and brings it back") {
  auto made = [](int n) {
    auto r = std::make_shared<CompileResult>();
    r->succeeded = true;
    r->arch = "sm_" + std::to_string(n);
    return r;
  };
  auto first = made(1), second = made(2), third = made(3);
  const size_t capacity = footprint(*first) * 3;
  CompileCache cache(capacity);
  int unparked = 0;
  auto parkedAs = [&unparked](std::shared_ptr<const CompileResult> r) {
    return [&unparked, r] {
      ++unparked;
      return std::make_shared<const CompileResult>(*r);
    };
  };
  cache.insert("first", first);
  cache.insert("second", second);
  const size_t live = cache.bytes();
  const size_t parkedBytes = capacity / CompileCache::kParkedShare * 2 / 5;  // two fit
  cache.park(first.get(), parkedAs(first), parkedBytes);
  CHECK(cache.bytes() == live - footprint(*first));
  CHECK(cache.parkedBytes() == parkedBytes);
  cache.park(third.get(), parkedAs(third), parkedBytes);  // not kept: nothing to park
  CHECK(cache.size() == 2);

  // Found: brought back once, and kept whole again.
  auto back = cache.find("first");
  REQUIRE(back);
  CHECK(back != first);
  CHECK(back->arch == "sm_1");
  CHECK(cache.find("first") == back);
  CHECK(unparked == 1);
  CHECK(cache.parkedBytes() == 0);
  CHECK(cache.bytes() == live);

  // Parked results beyond their own bound go, least recent first; the live ones stay.
  cache.insert("third", third);
  cache.park(back.get(), parkedAs(first), parkedBytes);
  cache.park(second.get(), parkedAs(second), parkedBytes);
  cache.park(third.get(), parkedAs(third), parkedBytes);
  CHECK(cache.parkedBytes() == 2 * parkedBytes);
  CHECK(cache.size() == 2);
  CHECK_FALSE(cache.find("second"));  // used least recently
  CHECK(cache.find("first"));
  CHECK(cache.find("third"));
  CHECK(unparked == 3);

  // One that cannot come back is forgotten.
  auto lost = made(4);
  cache.insert("lost", lost);
  cache.park(
      lost.get(), [] { return std::shared_ptr<const CompileResult>(); }, 1);
  CHECK_FALSE(cache.find("lost"));
  CHECK_FALSE(cache.find("lost"));
}

TEST_CASE("the compile cache counts an artifact that results share once") {
  const std::string ptx = ".version 8.0\n.target sm_80\n.entry k()\n{\n\tret;\n}\n";
  auto result = [&](const std::string& text, uint32_t sourceLine = 3) {
    auto r = std::make_shared<CompileResult>();
    r->succeeded = true;
    StageOutcome& o = r->stages[Stage::Ptx];
    o.available = true;
    Artifact a(Stage::Ptx, text);
    a.lines()[4].kind = LineKind::Instruction;
    a.lines()[4].location = Chain({Frame{"/k/a.rs", sourceLine, 5, "k"}});
    o.setArtifact(std::move(a));
    return r;
  };
  auto first = result(ptx), same = result(ptx), other = result(ptx + "// another\n");
  const size_t artifactBytes = footprint(*first->stage(Stage::Ptx)->artifact, true);
  CHECK(artifactBytes > ptx.size());
  const size_t one = footprint(*first);

  // An equal artifact (text, lines, locations) is shared; a different one is not.
  CHECK(shareUnchangedArtifacts(*other, *first) == 0);
  CHECK(shareUnchangedArtifacts(*same, *first) == 1);
  CHECK(same->stage(Stage::Ptx)->artifact == first->stage(Stage::Ptx)->artifact);
  auto moved = result(ptx, 4);  // the same text, but the instruction from another source line
  CHECK(shareUnchangedArtifacts(*moved, *first) == 0);

  CompileCache cache;
  cache.insert("first", first);
  CHECK(cache.bytes() == one);
  cache.insert("same", same);  // holds the first's artifact: only its own bytes are added
  CHECK(cache.bytes() == 2 * one - artifactBytes);
  cache.insert("other", other);
  CHECK(cache.bytes() == 2 * one - artifactBytes + footprint(*other));
  // Evicting one result that holds the shared artifact keeps it counted for the other.
  cache.setCapacity(cache.bytes() - 1);
  CHECK_FALSE(cache.find("first"));
  CHECK(cache.bytes() == one + footprint(*other));
  cache.setCapacity(footprint(*other));
  CHECK(cache.size() == 1);
  CHECK(cache.bytes() == footprint(*other));
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

TEST_CASE("a ptxas error is reported on the Rust line whose PTX it names") {
  test::requireToolchain();
  TempDir dir("kernelscope-ptxas-error");
  const fs::path file = dir.path() / "cluster.rs";
  // An instruction of sm_90 (thread block clusters) in a kernel compiled for sm_80: rustc
  // passes the inline asm through, and ptxas refuses it.
  const std::string text =
      "#![no_std]\n#![feature(abi_ptx, asm_experimental_arch)]\n#[no_mangle]\n"
      "pub unsafe extern \"ptx-kernel\" fn arrive(out: *mut f32) {\n"
      "    *out = 1.0;\n"
      "    core::arch::asm!(\"barrier.cluster.arrive;\");\n"
      "}\n#[panic_handler]\nfn p(_: &core::panic::PanicInfo) -> ! { loop {} }\n";
  std::ofstream(file) << text;
  CompileOptions sm80;
  sm80.arch = "sm_80";
  CompileResult r = compileWithDefaults(test::toolchain(), {file, std::nullopt}, sm80);
  REQUIRE(r.succeeded);  // rustc's part compiled: MIR, LLVM IR and PTX are there
  CHECK(r.stage(Stage::Ptx)->available);
  CHECK_FALSE(r.stage(Stage::Sass)->available);
  bool onItsLine = false;
  for (const Diagnostic& d : r.diagnostics) {
    if (d.source != "ptxas" || d.severity != Severity::Error || !d.ptxLine) continue;
    CAPTURE(d.message);
    REQUIRE(d.range);  // every message about a PTX line is placed on the source
    CHECK(d.range->file == normalizePath(file.string()));
    onItsLine |= d.range->startLine == 6 &&
                 d.message.find("requires .target sm_90") != std::string::npos &&
                 d.message.find("(PTX line ") != std::string::npos;
  }
  CHECK(onItsLine);
}
