// Diffs of generated code: what is normalized away (register and label numbers, debug
// locations, addresses), and real compiles of a kernel and of its edited text.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <regex>

#include "Diff.h"
#include "EditScript.h"
#include "Parsers.h"
#include "Process.h"
#include "TestSupport.h"

using namespace ks;

namespace {

/// The comparable form of each line of `text` as a `stage` artifact, empty ones dropped.
std::vector<std::string> comparable(Stage stage, const std::string& text) {
  Artifact a = stage == Stage::Ptx    ? parsePtx(text)
               : stage == Stage::Sass ? parseSass(text)
                                      : parseLlvmIr(text);
  std::vector<std::string> out;
  for (size_t i = 0; i < a.lines().size(); ++i)
    if (auto s = comparableLine(a, i); !s.empty()) out.push_back(s);
  return out;
}

const char* kPtx = R"(.version 7.8
.target sm_90
.address_size 64
.visible .entry k(
.param .u32 k_param_0
)
{
.reg .b32 %r<12>;
$L__func_begin0:
.loc 1 8 0
ld.param.b32 %r3, [k_param_0];
$L__tmp0:
.loc 1 9 13
setp.lt.u32 %p1, %r3, %r11;
@%p1 bra $L__BB0_2;
$L__BB0_2:
ret;
}
)";

/// Compiles `file` with its text changed by `edit` (unsaved text: same path, same crate).
CompileResult compileEdited(const std::filesystem::path& file,
                            const std::function<std::string(std::string)>& edit) {
  CompileInput in;
  in.path = file;
  in.text = edit(readWholeFile(file));
  return compileWithDefaults(test::toolchain(), in, {});
}

std::string replaceAll(std::string s, const std::string& from, const std::string& to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
    s.replace(p, from.size(), to);
  return s;
}

}  // namespace

TEST_CASE("PTX: register and label numbers and debug locations are not compared") {
  auto lines = comparable(Stage::Ptx, kPtx);
  CHECK(std::find(lines.begin(), lines.end(), ".reg .b32 %r<N>;") != lines.end());
  CHECK(std::find(lines.begin(), lines.end(), "ld.param.b32 %r, [k_param_0];") != lines.end());
  CHECK(std::find(lines.begin(), lines.end(), "setp.lt.u32 %p, %r, %r;") != lines.end());
  CHECK(std::find(lines.begin(), lines.end(), "@%p bra $L__BB;") != lines.end());
  for (const auto& l : lines) {
    CHECK_FALSE(l.starts_with(".loc"));
    CHECK_FALSE(l.starts_with("$L__tmp"));
    CHECK_FALSE(l.starts_with("$L__func"));
  }
  // Special registers keep their names.
  auto special =
      comparable(Stage::Ptx, ".visible .entry k()\n{\nmov.u32 %r4, %ctaid.x;\nret;\n}\n");
  CHECK(std::find(special.begin(), special.end(), "mov.u32 %r, %ctaid.x;") != special.end());
}

TEST_CASE("SASS: addresses, labels' numbers and padding go; registers stay") {
  std::string sass =
      readWholeFile(test::sourceDir() / "tests/golden/plain-sass/elementwise_mul.sass");
  auto lines = comparable(Stage::Sass, sass);
  REQUIRE_FALSE(lines.empty());
  for (const auto& l : lines) {
    CHECK(l.find("/*") == std::string::npos);
    CHECK_FALSE(l.starts_with("NOP"));
    CHECK_FALSE(l.starts_with("//##"));
  }
  bool sawRegister = false;
  for (const auto& l : lines) sawRegister |= l.find(" R") != std::string::npos;
  CHECK(sawRegister);
}

TEST_CASE("the same artifact against itself, and against a renumbered copy: no change") {
  Artifact a = parsePtx(kPtx);
  CHECK_FALSE(diffArtifacts(a, a, "a", "b").changed());
  Artifact renumbered =
      parsePtx(replaceAll(replaceAll(kPtx, "%r3", "%r7"), "$L__BB0_2", "$L__BB0_5"));
  CHECK_FALSE(diffArtifacts(a, renumbered, "a", "b").changed());
  DiffOptions raw;
  raw.normalize = false;
  CHECK(diffArtifacts(a, renumbered, "a", "b", raw).changed());
}

TEST_CASE("a changed instruction: a unified diff with hunk and function, counted") {
  Artifact a = parsePtx(kPtx);
  Artifact b = parsePtx(replaceAll(kPtx, "setp.lt.u32", "setp.le.u32"));
  StageDiff d = diffArtifacts(a, b, "before", "after");
  REQUIRE(d.changed());
  CHECK(d.added == 1);
  CHECK(d.removed == 1);
  CHECK(d.unified.starts_with("--- before\n+++ after\n@@ -"));
  CHECK(d.unified.find("@@ k\n") != std::string::npos);
  CHECK(d.unified.find("-setp.lt.u32 %p1, %r3, %r11;") != std::string::npos);
  CHECK(d.unified.find("+setp.le.u32 %p1, %r3, %r11;") != std::string::npos);
}

TEST_CASE("real compiles: a perturbed SAXPY changes the PTX; a renamed variable changes nothing") {
  test::requireToolchain();
  const auto file = test::sourceDir() / "examples/saxpy.rs";
  const CompileResult original = compileEdited(file, [](std::string s) { return s; });
  REQUIRE(original.succeeded);

  const CompileResult renamed = compileEdited(file, [](const std::string& s) {
    return std::regex_replace(s, std::regex(R"(\bi\b)"), "index");  // every `i` becomes `index`
  });
  REQUIRE(renamed.succeeded);
  CompileDiff same = diffCompiles(original, renamed, "before", "after");
  CHECK(same.summary == "no change");
  for (const auto& s : same.stages) {
    CAPTURE(stageName(s.stage));
    CHECK(s.unified == "");
  }

  const CompileResult perturbed = compileEdited(file, [](std::string s) {
    return replaceAll(s, "a * *x.add(i) + *y.add(i)", "a * *x.add(i) + *y.add(i) * a");
  });
  REQUIRE(perturbed.succeeded);
  CompileDiff d = diffCompiles(original, perturbed, "before", "after");
  const StageDiff* ptx = nullptr;
  for (const auto& s : d.stages)
    if (s.stage == Stage::Ptx) ptx = &s;
  REQUIRE(ptx);
  CHECK(ptx->added == 1);
  CHECK(ptx->removed == 0);
  CHECK(ptx->unified.find("+\tmul.rn.f32") != std::string::npos);
  CHECK(d.summary.find("PTX +1") != std::string::npos);
  CHECK(d.summary.find("SASS") != std::string::npos);
}

TEST_CASE("one file under two settings: the summary names registers that changed") {
  test::requireToolchain();
  const auto file = test::sourceDir() / "examples/reduce_sum.rs";
  CompileOptions sm80;
  sm80.arch = "sm_80";
  const CompileResult& a = test::compiled(file, sm80);
  const CompileResult& b = test::compiled(file);
  CompileDiff d = diffCompiles(a, b, "sm_80", "sm_90");
  CHECK(d.changed());
  for (const auto& k : d.kernels) CHECK((k.before && k.after));
  const auto &ra = a.kernels.front().resources, &rb = b.kernels.front().resources;
  REQUIRE((ra && rb));
  if (ra->registers != rb->registers)
    CHECK(d.summary.find("regs " + std::to_string(ra->registers) + "→" +
                         std::to_string(rb->registers)) != std::string::npos);
}

TEST_CASE(
    "kernelscope diff: exit 4 and a summary when something changed, 2 on bad arguments, 1 when "
    "a side does not compile") {
  test::requireToolchain();
  auto r = test::runKernelscope(
      {"diff", "examples/saxpy.rs", "--vs-opt", "0", "--stages", "ptx", "--summary"});
  INFO(r.out << r.err);
  CHECK(r.exitCode == 4);
  CHECK(r.out.starts_with("PTX +"));
  auto same = test::runKernelscope(
      {"diff", "examples/saxpy.rs", "examples/saxpy.rs", "--stages", "ptx,sass"});
  CHECK(same.exitCode == 0);
  CHECK(same.out == "no change\n");
  auto oneFile = test::runKernelscope({"diff", "examples/saxpy.rs"});
  CHECK(oneFile.exitCode == 2);
  CHECK(oneFile.err.find("--vs-arch") != std::string::npos);
  CHECK(test::runKernelscope({"diff", "examples/saxpy.rs", "--vs-arch", "sm_13"}).exitCode == 2);
  // A side that does not compile: its errors as every command prints them, and exit 1.
  test::Fixture broken(test::sourceDir() / "tests/fixtures/broken.rs");
  auto failed = test::runKernelscope({"diff", "tests/fixtures/broken.rs", "--vs-opt", "0"});
  CHECK(failed.exitCode == 1);
  CHECK(failed.err.find("broken.rs:" + std::to_string(broken.line("type_error")) +
                        ":18: error[E0308]: mismatched types") != std::string::npos);
}

TEST_CASE("the summary of two compiles: changed stages, then each kernel's resources") {
  auto kernel = [](std::string name, uint32_t registers, uint32_t spillBytes) {
    KernelInfo k;
    k.symbol = k.demangled = std::move(name);
    KernelResources r;
    r.registers = registers;
    r.spillStores = spillBytes;
    k.resources = r;
    k.occupancy = kernelOccupancy("sm_90", r);
    return k;
  };
  auto compile = [](const std::string& ptx, std::vector<KernelInfo> kernels) {
    CompileResult c;
    c.succeeded = true;
    c.stages[Stage::Ptx].available = true;
    c.stages[Stage::Ptx].setArtifact(parsePtx(ptx));
    c.kernels = std::move(kernels);
    return c;
  };
  const CompileResult before = compile(kPtx, {kernel("k", 32, 0)});
  CHECK(diffCompiles(before, before, "a", "b").summary == kNoChange);
  CHECK_FALSE(diffCompiles(before, before, "a", "b").changed());

  // One instruction replaced, one added; more registers cost occupancy at 256 threads.
  const std::string ptx =
      replaceAll(replaceAll(kPtx, "setp.lt.u32", "setp.le.u32"), "ret;", "ret;\nexit;");
  const CompileResult after = compile(ptx, {kernel("k", 128, 8)});
  const auto occupancy = [](const CompileResult& c) {
    return std::to_string(std::lround(c.kernels[0].occupancy->atBlockSize.fraction() * 100));
  };
  REQUIRE(occupancy(before) != occupancy(after));
  CompileDiff d = diffCompiles(before, after, "a", "b");
  CHECK(d.summary == "PTX +2 −1, regs 32→128, spills 0→8, occupancy " + occupancy(before) + "%→" +
                         occupancy(after) + "%");
  REQUIRE(d.kernels.size() == 1);
  CHECK(d.kernels[0].changed());
  REQUIRE(d.kernels[0].resources.size() == 3);
  CHECK(d.kernels[0].resources[0].resource == Resource::Registers);
  CHECK(d.kernels[0].resources[1].after == 8);

  // Declarations alone read ±0; with two kernels each one is named; new and gone kernels.
  const CompileResult declared = compile(replaceAll(kPtx, "%r<12>", "%r<12>;\n.reg .b64 %rd<4>"),
                                         {kernel("k", 32, 0), kernel("m", 16, 0)});
  d = diffCompiles(before, declared, "a", "b");
  CHECK(d.summary == "PTX ±0, +kernel m");
  d = diffCompiles(declared, compile(kPtx, {kernel("k", 24, 0)}), "a", "b");
  CHECK(d.summary == "PTX ±0, k regs 32→24, −kernel m");
}

TEST_CASE("the shortest edit script: a few changes in long sequences, and its bound") {
  // 40,000 lines with two changed, one inserted and two swapped: the script has every line
  // once, and the lines it keeps are a longest common subsequence.
  std::vector<std::string> a, b;
  for (int i = 0; i < 40000; ++i) a.push_back("add.s32 %r" + std::to_string(i) + ";");
  b = a;
  b[100] = "mul.lo.s32 %r100;";
  b[30000] = "sub.s32 %r30000;";
  std::swap(b[20000], b[20001]);
  b.insert(b.begin() + 35000, "bar.sync 0;");
  EditScript s = shortestEdit(a, b, 3000);
  CHECK(s.complete);
  size_t equal = 0, deleted = 0, inserted = 0;
  for (const Edit& e : s.edits) {
    equal += e.op == EditOp::Equal;
    deleted += e.op == EditOp::Delete;
    inserted += e.op == EditOp::Insert;
    if (e.op == EditOp::Equal) CHECK(a[e.a] == b[e.b]);
  }
  CHECK(equal == 40000 - 3);  // two replaced, one of the swapped pair
  CHECK(deleted == 3);
  CHECK(inserted == 4);

  // Beyond the bound: everything between the common prefix and suffix is replaced.
  std::vector<std::string> c = {"same", "x1", "x2", "x3", "end"}, d = {"same", "y1", "y2", "end"};
  EditScript bounded = shortestEdit(c, d, 2);
  CHECK_FALSE(bounded.complete);
  REQUIRE(bounded.edits.size() == 2 + 3 + 2);
  CHECK(bounded.edits.front().op == EditOp::Equal);
  CHECK(bounded.edits[1].op == EditOp::Delete);
  CHECK(bounded.edits[4].op == EditOp::Insert);
  CHECK(bounded.edits.back().op == EditOp::Equal);
}
