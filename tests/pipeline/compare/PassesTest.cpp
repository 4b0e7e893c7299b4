// Pass by pass (Passes.h): the parsers of LLVM's -print-changed output and of a
// -Zdump-mir directory on output recorded by tests/golden/record.sh, the counting and
// diffing on small hand-written inputs, and the proof that the passes lead to rustc's
// final IR and MIR: the kernel after the last pass is, byte for byte, what `--emit=llvm-ir`
// (`--emit=mir`) prints for it.
#include <doctest/doctest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "Artifact.h"
#include "Passes.h"
#include "TestSupport.h"
#include "TextUtil.h"

using namespace ks;
namespace fs = std::filesystem;

namespace {

fs::path golden(const std::string& name) { return test::sourceDir() / "tests/golden" / name; }

/// Each pass with its counts and diff, then the totals: what the golden files hold.
std::string dumpStage(const StagePasses& sp) {
  std::string s = std::string(stageName(sp.stage)) + ": " + std::to_string(sp.changes.size()) +
                  " changed of " + std::to_string(sp.passesRun) + ", " +
                  std::to_string(sp.initialCount) + " -> " + std::to_string(sp.finalCount) + "\n";
  for (const PassChange& c : sp.changes)
    s += "== " + c.pass + " [" + c.unit + "] " + std::to_string(c.before) + " -> " +
         std::to_string(c.after) + "\n" + c.diff;
  return s;
}

/// The kernel's body in a whole `--emit=mir` file: `fn NAME(` to the `}` in column 0.
std::string emittedMirBody(const std::string& mir, const std::string& name) {
  size_t start = mir.find("fn " + name + "(");
  if (start == std::string::npos) return {};
  size_t end = mir.find("\n}\n", start);
  return end == std::string::npos ? std::string() : mir.substr(start, end + 3 - start);
}

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

}  // namespace

TEST_CASE("LLVM passes from recorded -print-changed output, ending in rustc's final IR") {
  for (std::string kernel : {"saxpy", "reduce_sum"}) {
    CAPTURE(kernel);
    const fs::path dir = golden("passes-" + kernel);
    const std::string printed = readWholeFile(dir / "print-changed.txt");
    std::vector<IrDump> dumps = parsePrintChanged(printed);
    REQUIRE(dumps.size() > 2);
    CHECK(dumps.front().pass.empty());  // the module at the start
    StagePasses sp = llvmPassChanges(dumps, kernel);
    sp.passesRun = countPassesRun(printed, kernel);
    CHECK(sp.passesRun > 100);
    REQUIRE(!sp.changes.empty());
    for (const PassChange& c : sp.changes) {
      CHECK(!c.diff.empty());
      CHECK(c.diff.starts_with("--- before " + c.pass + "\n"));
    }
    // The proof: after the last pass the kernel is what rustc wrote to its .ll.
    const std::string final = irFunctionText(readWholeFile(dir / "k.ll"), kernel);
    REQUIRE(!final.empty());
    CHECK(sp.final == final);
    CHECK(sp.finalCount == irInstructionCount(final));
    test::checkGolden(dir / "llvm-passes.expected", dumpStage(sp));
  }
  // reduce_sum's loops are rewritten by loop passes, which print only the loop unless the
  // module scope is asked for: they must be among the changes, with a whole function.
  StagePasses rs = llvmPassChanges(
      parsePrintChanged(readWholeFile(golden("passes-reduce_sum") / "print-changed.txt")),
      "reduce_sum");
  bool sawLoopPass = false;
  for (const PassChange& c : rs.changes) sawLoopPass |= c.unit.starts_with("loop ");
  CHECK(sawLoopPass);
  CHECK(rs.initialCount != rs.finalCount);  // unrolled: more instructions, not fewer
}

TEST_CASE("MIR passes from a recorded -Zdump-mir directory, ending in rustc's final MIR") {
  const fs::path dir = golden("passes-saxpy");
  std::vector<MirDumpFile> files = listMirDumps(dir / "mir", "saxpy");
  REQUIRE(files.size() > 50);
  CHECK(files.front().number == "1-1-000");
  CHECK(files.front().pass == "built");
  for (size_t i = 1; i < files.size(); ++i)  // pass order, the before of a pass ahead of its after
    CHECK(std::tie(files[i - 1].number, files[i - 1].after) <
          std::tie(files[i].number, files[i].after));
  auto item = mirItemFor(files, "saxpy");
  REQUIRE(item);
  CHECK(*item == "saxpy");
  StagePasses sp = mirPassChanges(files, *item);
  REQUIRE(!sp.changes.empty());
  CHECK(sp.passesRun > sp.changes.size());
  CHECK(sp.initialCount > sp.finalCount);
  // Counts chain: each pass starts where the one before it ended.
  for (size_t i = 1; i < sp.changes.size(); ++i)
    CHECK(sp.changes[i].before == sp.changes[i - 1].after);
  CHECK(sp.changes.front().before == sp.initialCount);
  CHECK(sp.changes.back().after == sp.finalCount);
  bool sawInline = false;
  for (const PassChange& c : sp.changes) sawInline |= c.pass == "Inline";
  CHECK(sawInline);
  // The proof: the body after the last pass is the one `--emit=mir` printed.
  const std::string emitted = emittedMirBody(readWholeFile(golden("saxpy") / "k.mir"), "saxpy");
  REQUIRE(!emitted.empty());
  CHECK(sp.final == emitted);
  test::checkGolden(dir / "mir-passes.expected", dumpStage(sp));
}

TEST_CASE("-print-changed parsing: notes, diagnostics, pass names with spaces, units") {
  const std::string out =
      "*** IR Dump At Start ***\n"
      "define void @k(ptr %p) {\nstart:\n  ret void\n}\n"
      "*** IR Dump After NVVMReflectPass on [module] omitted because no change ***\n"
      "*** IR Dump After SROAPass on other filtered out ***\n"
      "*** IR Pass PassManager<Function> on k ignored ***\n"
      "*** IR Dump After RequireAnalysisPass<llvm::GlobalsAA, llvm::Module, "
      "llvm::AnalysisManager<Module>> on [module] ***\n"
      "{\"$message_type\":\"diagnostic\",\"message\":\"unused\"}\n"
      "define void @k(ptr %p) {\nstart:\n  store i32 0, ptr %p\n  ret void\n}\n"
      "*** IR Dump After LICMPass on loop %bb3 in function k ***\n"
      "define void @k(ptr %p) {\nstart:\n  store i32 0, ptr %p\n  ret void\n}\n"
      "define void @other() {\nstart:\n  ret void\n}\n"
      "*** IR Dump After InstCombinePass on k omitted because no change ***\n"
      "*** IR Dump After GVNPass on (k, other) ***\n"
      "define void @k(ptr %p) {\nstart:\n  ret void\n}\n";
  std::vector<IrDump> dumps = parsePrintChanged(out);
  REQUIRE(dumps.size() == 4);
  CHECK(!dumps[3].invalidated);
  CHECK(dumps[1].pass ==
        "RequireAnalysisPass<llvm::GlobalsAA, llvm::Module, llvm::AnalysisManager<Module>>");
  CHECK(dumps[1].unit == "[module]");
  CHECK(dumps[1].module.find("message_type") == std::string::npos);
  CHECK(dumps[2].unit == "loop %bb3 in function k");
  CHECK(dumps[3].unit == "(k, other)");
  // Run on k or a unit holding it: the module pass, LICM, InstCombine, GVN (not SROA on other).
  CHECK(countPassesRun(out, "k") == 5);

  StagePasses sp = llvmPassChanges(dumps, "k");
  // LICM printed k unchanged (it changed only what it ran on, as far as k goes): not listed.
  REQUIRE(sp.changes.size() == 2);
  CHECK(sp.changes[0].pass.starts_with("RequireAnalysisPass"));
  CHECK(sp.changes[0].before == 1);
  CHECK(sp.changes[0].after == 2);
  CHECK(sp.changes[0].diff.find("+  store i32 0, ptr %p") != std::string::npos);
  CHECK(sp.changes[1].pass == "GVNPass");
  CHECK(sp.changes[1].after == 1);
  CHECK(sp.initialCount == 1);
  CHECK(sp.final == "define void @k(ptr %p) {\nstart:\n  ret void\n}\n");
}

TEST_CASE("-print-changed parsing: a pass that deletes its loop") {
  const std::string fnWith =
      "define void @k() {\nstart:\n  br label %bb1\nbb1:\n  br label %bb1\n}\n";
  const std::string fnWithout = "define void @k() {\nstart:\n  ret void\n}\n";
  // -print-after printed the module after the loop was deleted: that is the pass's dump.
  std::string printed =
      "*** IR Dump At Start ***\n" + fnWith +
      "; *** IR Dump After LoopDeletionPass on loop %bb1 in function k ***\n" + fnWith +
      "; *** IR Dump After LoopFullUnrollPass on loop %bb1 in function k (invalidated) ***\n" +
      fnWithout +
      "*** IR Pass LoopFullUnrollPass invalidated ***\n"
      "*** IR Pass PassManager<Loop, LoopAnalysisManager> invalidated ***\n"
      "*** IR Dump After SROAPass on k omitted because no change ***\n";
  StagePasses sp = llvmPassChanges(parsePrintChanged(printed), "k");
  REQUIRE(sp.changes.size() == 1);
  CHECK(sp.changes[0].pass == "LoopFullUnrollPass");
  CHECK(sp.changes[0].unit == "loop %bb1 in function k");
  CHECK(sp.changes[0].before == 2);
  CHECK(sp.changes[0].after == 1);
  CHECK(countPassesRun(printed, "k") == 2);  // the unroll (a note only) and SROA
  // Without -print-after, the deleting pass's change shows in the next dump: both are named.
  std::string unprinted = "*** IR Dump At Start ***\n" + fnWith +
                          "*** IR Pass LoopFullUnrollPass invalidated ***\n"
                          "*** IR Dump After GVNPass on k ***\n" +
                          fnWithout;
  sp = llvmPassChanges(parsePrintChanged(unprinted), "k");
  REQUIRE(sp.changes.size() == 1);
  CHECK(sp.changes[0].pass == "LoopFullUnrollPass + GVNPass");
}

TEST_CASE("IR functions and their instructions") {
  const std::string module =
      "; ModuleID = 'x'\n"
      "define void @ka(ptr %p) {\n  ret void\n}\n\n"
      "; Function Attrs: nounwind\n"
      "define ptx_kernel void @k(i32 %n) unnamed_addr #1 !dbg !4 {\n"
      "start:\n"
      "  %c = icmp ult i32 0, %n, !dbg !7\n"
      "  br i1 %c, label %bb1, label %bb2\n"
      "\n"
      "bb1:                                              ; preds = %start\n"
      "  ; a comment\n"
      "  br label %bb2\n"
      "\n"
      "bb2:\n"
      "  ret void\n"
      "}\n"
      "!4 = !{}\n";
  // "@k(" and not "@ka(": the symbol is matched whole.
  std::string fn = irFunctionText(module, "k");
  CHECK(fn.starts_with("define ptx_kernel void @k(i32 %n)"));
  CHECK(fn.ends_with("  ret void\n}\n"));
  CHECK(irInstructionCount(fn) == 4);
  CHECK(irFunctionText(module, "missing").empty());
}

TEST_CASE("-Zdump-mir directories: file names, items, bodies") {
  TempDir tmp("kernelscope-passes-test");
  const fs::path d = tmp.path();
  auto body = [](const std::string& pass, const std::string& when, const std::string& stmts) {
    return "// MIR for `k` " + when + " " + pass + "\n\nfn k() -> () {\n    bb0: {\n" + stmts +
           "        return;\n    }\n}\n";
  };
  write(d / "c.k.1-1-000.built.after.mir",
        body("built", "after", "        _1 = const 1_i32;\n        _2 = copy _1;\n"));
  write(d / "c.k.2-1-001.Nop.before.mir",
        body("Nop", "before", "        _1 = const 1_i32;\n        _2 = copy _1;\n"));
  write(d / "c.k.2-1-001.Nop.after.mir",
        body("Nop", "after", "        _1 = const 1_i32;\n        _2 = copy _1;\n"));
  write(d / "c.k.2-2-000.analysis.after.mir",
        body("analysis", "after", "        _1 = const 1_i32;\n        _2 = copy _1;\n"));
  write(d / "c.k.3-2-004.CopyProp.before.mir",
        body("CopyProp", "before", "        _1 = const 1_i32;\n        _2 = copy _1;\n"));
  write(d / "c.k.3-2-004.CopyProp.after.mir",
        body("CopyProp", "after", "        _2 = const 1_i32;\n"));
  write(d / "c.k.-------.nll.0.mir", "not a pass\n");
  write(d / "c.m-k.1-1-000.built.after.mir", body("built", "after", ""));
  write(d / "c.k-{constant#0}.1-1-000.built.after.mir", body("built", "after", ""));
  write(d / "other.k.1-1-000.built.after.mir", body("built", "after", ""));

  std::vector<MirDumpFile> files = listMirDumps(d, "c");
  CHECK(files.size() == 8);  // not the analysis dump (-------), not the other crate's
  // Two items end in `k`: the whole path decides.
  CHECK(mirItemFor(files, "c::k") == std::optional<std::string>("k"));
  CHECK(mirItemFor(files, "c::m::k") == std::optional<std::string>("m-k"));
  CHECK(mirItemFor(files, "k") == std::optional<std::string>("k"));
  CHECK(!mirItemFor(files, "nothing"));

  StagePasses sp = mirPassChanges(files, "k");
  CHECK(sp.passesRun == 2);  // Nop and CopyProp; `built` and `analysis` are phase dumps
  REQUIRE(sp.changes.size() == 1);
  CHECK(sp.changes[0].pass == "CopyProp");
  CHECK(sp.changes[0].unit == "3-2-004");
  CHECK(sp.changes[0].before == 3);
  CHECK(sp.changes[0].after == 2);
  CHECK(sp.final.starts_with("fn k() -> () {"));
  CHECK(mirBodyText("// MIR for `k` after X\n\nfn k() {}\n") == "fn k() {}\n");
}

TEST_CASE("computePasses reproduces the compile's final IR and MIR") {
  test::requireToolchain();
  for (std::string kernel : {"reduce_sum", "matmul_tiled"}) {
    CAPTURE(kernel);
    const fs::path file = test::sourceDir() / "examples" / (kernel + ".rs");
    PassesResult r = computePasses(test::toolchain(), {file, std::nullopt}, {}, kernel);
    REQUIRE_MESSAGE(r.error.empty(), r.error);
    CHECK(r.kernel == kernel);
    const StagePasses* llvm = r.stage(Stage::LlvmIr);
    const StagePasses* mir = r.stage(Stage::Mir);
    REQUIRE(llvm);
    REQUIRE(mir);
    CHECK(!llvm->changes.empty());
    CHECK(!mir->changes.empty());
    // The ordinary compile of the same file and options, its raw outputs kept.
    TempDir tmp("kernelscope-passes-proof");
    CompileOptions opts;
    opts.saveTempsDir = tmp.path();
    CompileResult c = compileWithDefaults(test::toolchain(), {file, std::nullopt}, opts);
    REQUIRE(c.succeeded);
    // rustc's IR as it wrote it, without the use-order directives it is asked for (and the
    // blank line and comment before them).
    const std::string written = readWholeFile(tmp.path() / "k.ll");
    std::string ll;
    std::vector<std::string_view> lines = splitLines(written);
    for (size_t i = 0; i < lines.size(); ++i) {
      std::string_view t = text::trim(lines[i]);
      const bool directives = t == "; uselistorder directives";
      if (directives && !ll.empty() && ll.ends_with("\n\n")) ll.pop_back();
      if (!directives && !t.starts_with("uselistorder")) ll.append(lines[i]).push_back('\n');
    }
    CHECK(llvm->final == irFunctionText(ll, kernel));
    CHECK(llvm->final == irFunctionText(r.finalModuleIr, kernel));
    CHECK(mir->final == emittedMirBody(readWholeFile(tmp.path() / "k.mir"), kernel));
    CHECK(!renderPasses(r, "t").empty());
  }
}

TEST_CASE("computePasses: an unknown kernel and a kernel that does not compile are clear errors") {
  test::requireToolchain();
  PassesResult r = computePasses(
      test::toolchain(), {test::sourceDir() / "examples/saxpy.rs", std::nullopt}, {}, "nosuch");
  CHECK(r.error == "unknown kernel 'nosuch' (kernels: saxpy)");
  CHECK(r.stages.empty());
  PassesResult b =
      computePasses(test::toolchain(),
                    {test::sourceDir() / "tests/fixtures/broken.rs", std::nullopt}, {}, "broken");
  CHECK(b.error.find("does not compile") != std::string::npos);
  bool sawError = false;
  for (const auto& d : b.diagnostics) sawError |= d.severity == Severity::Error;
  CHECK(sawError);
  PassesResult llvmOnly =
      computePasses(test::toolchain(), {test::sourceDir() / "examples/saxpy.rs", std::nullopt}, {},
                    "saxpy", PassesOptions{true, false});
  CHECK(llvmOnly.stages.size() == 1);
  CHECK(llvmOnly.stage(Stage::LlvmIr));
}

TEST_CASE("kernelscope passes: text, --json, --llvm, and its errors") {
  test::requireToolchain();
  auto text = test::runKernelscope({"passes", "examples/saxpy.rs", "--kernel", "saxpy"});
  INFO(text.out << text.err);
  REQUIRE(text.exitCode == 0);
  CHECK(text.out.starts_with(
      "# Passes that changed saxpy — examples/saxpy.rs · LLVM IR, MIR (sm_90, opt-level 3)\n"));
  CHECK(text.out.find("\n## LLVM IR: ") != std::string::npos);
  CHECK(text.out.find("\n## MIR: ") != std::string::npos);
  CHECK(text.out.find("### 1. ") != std::string::npos);

  auto json = test::runKernelscope(
      {"passes", "examples/reduce_sum.rs", "--kernel", "reduce_sum", "--llvm", "--json"});
  REQUIRE(json.exitCode == 0);
  auto j = nlohmann::json::parse(json.out);
  CHECK(j["kernel"] == "reduce_sum");
  REQUIRE(j["stages"].size() == 1);
  CHECK(j["stages"][0]["stage"] == "llvm-ir");
  size_t previous = j["stages"][0]["initialCount"];
  REQUIRE_FALSE(j["stages"][0]["passes"].empty());
  for (const auto& p : j["stages"][0]["passes"]) {  // each pass starts where the last ended
    CHECK(p["stage"] == "llvm-ir");                 // kernelscope/passes' PassInfo: the same fields
    CHECK_FALSE(p["name"].get<std::string>().empty());
    CHECK(p["before"] == previous);
    previous = p["after"];
  }
  CHECK(previous == j["stages"][0]["finalCount"]);

  auto unknown = test::runKernelscope({"passes", "examples/saxpy.rs", "--kernel", "nosuch"});
  CHECK(unknown.exitCode == 2);  // a bad argument, as an unknown option is
  CHECK(unknown.err.find("unknown kernel 'nosuch' (kernels: saxpy)") != std::string::npos);
  CHECK(test::runKernelscope({"passes", "examples/saxpy.rs"}).exitCode == 2);
  CHECK(test::runKernelscope({"passes", "no/such.rs", "--kernel", "k"}).exitCode == 2);
}
