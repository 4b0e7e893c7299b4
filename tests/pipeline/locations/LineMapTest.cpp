// Line-map tests on real compiles of the examples and the marked fixtures, replayed from their
// recorded tool runs (tests/golden/tools/: no toolchain needed): what each user line became,
// inline-aware, in every stage.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "LineMap.h"
#include "Parsers.h"
#include "TestSupport.h"
#include "TextUtil.h"

using namespace ks;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string>& kKernels = test::recordedKernels();

bool anyStartsWith(const std::vector<std::string>& lines, std::string_view prefix) {
  return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) {
    // SASS lines start with their address comment: look at the opcode after it.
    std::string_view t = l;
    if (auto c = t.find("*/"); t.starts_with("/*") && c != std::string_view::npos)
      t = t.substr(c + 2);
    while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
    if (t.starts_with("@")) t = t.substr(t.find(' ') + 1);
    return t.starts_with(prefix);
  });
}

std::set<uint32_t> linesWithCode(const CompileResult& r, Stage s) {
  std::set<uint32_t> out;
  for (const auto& sl : r.lineMap->sourceLinesWithCode(s)) out.insert(sl.line);
  return out;
}

}  // namespace

TEST_CASE("saxpy: the a*x+y line becomes a multiply and an add in every stage") {
  test::Fixture f(test::sourceDir() / "examples/saxpy.rs");
  uint32_t line = f.lineOf("*y.add(i) = a * *x.add(i) + *y.add(i);");
  const CompileResult& r = test::replayed(f.path);
  REQUIRE(r.succeeded);
  auto file = f.path.string();
  CHECK(anyStartsWith(test::instructionsFor(r, Stage::Mir, file, line), "_12 = Mul("));
  auto ir = test::instructionsFor(r, Stage::LlvmIr, file, line);
  CHECK(std::any_of(ir.begin(), ir.end(),
                    [](auto& l) { return l.find("fmul float") != std::string::npos; }));
  CHECK(std::any_of(ir.begin(), ir.end(),
                    [](auto& l) { return l.find("fadd float") != std::string::npos; }));
  auto ptx = test::instructionsFor(r, Stage::Ptx, file, line);
  CHECK((anyStartsWith(ptx, "fma.rn.f32") ||
         (anyStartsWith(ptx, "mul.rn.f32") && anyStartsWith(ptx, "add.rn.f32"))));
  CHECK(anyStartsWith(ptx, "ld.global"));
  CHECK(anyStartsWith(ptx, "st.global"));
  auto sass = test::instructionsFor(r, Stage::Sass, file, line);
  CHECK((anyStartsWith(sass, "FFMA") ||
         (anyStartsWith(sass, "FMUL") && anyStartsWith(sass, "FADD"))));
  CHECK(anyStartsWith(sass, "STG"));
}

TEST_CASE("the address arithmetic of an inlined ptr::add belongs to the line that called it") {
  test::Fixture f(test::sourceDir() / "examples/saxpy.rs");
  uint32_t line = f.lineOf("*y.add(i) = a * *x.add(i) + *y.add(i);");
  const CompileResult& r = test::replayed(f.path);
  for (Stage s : {Stage::Mir, Stage::LlvmIr, Stage::Ptx, Stage::Sass}) {
    CAPTURE(stageName(s));
    const StageLines& sl = r.lineMap->linesFor(s, {f.path.string(), line});
    size_t viaAdd = 0;
    for (uint32_t l : sl.direct) {
      const LineOrigin& o = r.lineMap->origin(s, l);
      if (o.viaLibrary && o.chain.front().file.find("/ptr/") != std::string::npos) {
        ++viaAdd;
        CHECK(o.chain.front().function.find("add") != std::string::npos);
        CHECK(o.user.line == line);
      }
    }
    CHECK(viaAdd >= 1);
  }
}

TEST_CASE("atomics: each ptr::add goes to its own call site, not the nearest one") {
  // Two `<*const T>::add` calls on neighbouring lines inline the same core location;
  // only the exact chains tell them apart.
  test::Fixture f(test::sourceDir() / "tests/fixtures/atomics.rs");
  const CompileResult& r = test::replayed(f.path);
  REQUIRE(r.succeeded);
  uint32_t atomic = f.line("atomic_add");
  auto file = f.path.string();
  auto ptx = test::instructionsFor(r, Stage::Ptx, file, atomic);
  CHECK(anyStartsWith(ptx, "atom.global.add.u32"));
  CHECK(anyStartsWith(ptx, "add.s64"));  // &bins[bin]
  auto before = test::instructionsFor(r, Stage::Ptx, file, atomic - 1);
  CHECK(std::count_if(before.begin(), before.end(),
                      [](auto& l) { return l.starts_with("add.s64"); }) == 1);
  auto sass = test::instructionsFor(r, Stage::Sass, file, atomic);
  CHECK((anyStartsWith(sass, "RED") || anyStartsWith(sass, "ATOMG")));
}

TEST_CASE("a user function inlined into a call lists its code under the call, marked inlined") {
  test::Fixture f(test::sourceDir() / "examples/elementwise_mul.rs");
  const CompileResult& r = test::replayed(f.path);
  uint32_t body = f.lineOf("let start = (nvptx::_block_idx_x()");
  uint32_t call = f.lineOf("let (start, stride) = grid_stride();");
  for (Stage s : {Stage::LlvmIr, Stage::Ptx, Stage::Sass}) {
    CAPTURE(stageName(s));
    const StageLines& atBody = r.lineMap->linesFor(s, {f.path.string(), body});
    const StageLines& atCall = r.lineMap->linesFor(s, {f.path.string(), call});
    CHECK_FALSE(atBody.direct.empty());
    CHECK_FALSE(atCall.inlined.empty());
    for (uint32_t l : atBody.direct)
      CHECK(std::find(atCall.inlined.begin(), atCall.inlined.end(), l) != atCall.inlined.end());
  }
}

TEST_CASE("iterators, closures and generics map to the user's lines") {
  test::Fixture f(test::sourceDir() / "tests/fixtures/iterators.rs");
  const CompileResult& r = test::replayed(f.path);
  REQUIRE(r.succeeded);
  auto file = f.path.string();
  auto sum = test::instructionsFor(r, Stage::Ptx, file, f.line("iter_sum"), true);
  CHECK(anyStartsWith(sum, "ld.global"));
  CHECK((anyStartsWith(sum, "add.rn.f32") || anyStartsWith(sum, "fma.rn.f32")));
  // The generic `scale` is inlined through the closure into the `.sum()` line.
  auto scale = test::instructionsFor(r, Stage::Ptx, file, f.line("scale_body"));
  CHECK((anyStartsWith(scale, "mul.rn.f32") || anyStartsWith(scale, "fma.rn.f32")));
  const StageLines& atSum = r.lineMap->linesFor(Stage::Ptx, {file, f.line("iter_sum")});
  const StageLines& atScale = r.lineMap->linesFor(Stage::Ptx, {file, f.line("scale_body")});
  for (uint32_t l : atScale.direct)
    CHECK(std::find(atSum.inlined.begin(), atSum.inlined.end(), l) != atSum.inlined.end());
  CHECK(anyStartsWith(test::instructionsFor(r, Stage::Ptx, file, f.line("store")), "st.global"));
}

TEST_CASE("every instruction of every kernel maps to a user line or is marked compiler-generated") {
  for (const auto& k : kKernels) {
    const CompileResult& r = test::replayed(test::sourceDir() / k);
    REQUIRE_MESSAGE(r.succeeded, k);
    for (Stage s : kAllStages) {
      const StageOutcome* st = r.stage(s);
      REQUIRE(st);
      REQUIRE_MESSAGE(st->available, k << " " << stageName(s) << ": " << st->unavailableReason);
      size_t direct = 0, guessed = 0;
      for (uint32_t l = 0; l < st->artifact->lines().size(); ++l) {
        if (st->artifact->lines()[l].kind != LineKind::Instruction) continue;
        const LineOrigin& o = r.lineMap->origin(s, l);
        INFO(k << " " << stageName(s) << " line " << l + 1 << ": " << st->artifact->lineText(l));
        CHECK((o.attribution == Attribution::Direct ||
               o.attribution == Attribution::CompilerGenerated));
        direct += o.attribution == Attribution::Direct;
        guessed += st->artifact->lines()[l].source == LocationSource::Guessed;
      }
      // How much is compiler-generated depends on the kernel (a zeroed local array is 64
      // stores with no line); MapTruthTest checks each instruction's line or its absence
      // against the compiler's debug info.
      CHECK(direct > 0);
      // Exact chains for (nearly) everything: a few reordered PTX instructions may be paired
      // by shape, and the SASS made from them inherits that.
      CHECK_MESSAGE(guessed * 10 <= direct,
                    k << " " << stageName(s) << ": " << guessed << " guessed of " << direct);
    }
  }
}

TEST_CASE("MIR, LLVM IR, PTX and SASS agree on which lines produced code") {
  for (const auto& k : kKernels) {
    CAPTURE(k);
    const CompileResult& r = test::replayed(test::sourceDir() / k);
    auto mir = linesWithCode(r, Stage::Mir), ir = linesWithCode(r, Stage::LlvmIr);
    auto ptx = linesWithCode(r, Stage::Ptx), sass = linesWithCode(r, Stage::Sass);
    // A function's own `fn` line holds its prologue (parameter loads) in some stages only.
    for (const auto& f : r.stage(Stage::LlvmIr)->artifact->functions) {
      mir.insert(f.definition.line);
      ir.insert(f.definition.line);
    }
    // Each later stage's lines were already code in the stage before it. (Earlier stages
    // may have more: the optimizer deletes code.) PTX and SASS name the same lines.
    for (uint32_t l : ir) CHECK_MESSAGE(mir.count(l), "IR line " << l << " has no MIR");
    for (uint32_t l : ptx) CHECK_MESSAGE(ir.count(l), "PTX line " << l << " has no IR");
    for (uint32_t l : sass) CHECK_MESSAGE(ptx.count(l), "SASS line " << l << " has no PTX");
  }
}

TEST_CASE("segments cover runs of one source line and nothing else") {
  const CompileResult& r = test::replayed(test::sourceDir() / "examples/saxpy.rs");
  auto segments = r.lineMap->segments(Stage::Ptx);
  REQUIRE_FALSE(segments.empty());
  for (const auto& seg : segments) {
    const LineOrigin& first = r.lineMap->origin(Stage::Ptx, seg.origin);
    for (uint32_t l = seg.start; l <= seg.end; ++l) {
      const LineOrigin& o = r.lineMap->origin(Stage::Ptx, l);
      CHECK((o.attribution == Attribution::None || o.user.line == first.user.line));
    }
  }
}

TEST_CASE("a kernel with local memory keeps its SASS and resources") {
  // `.local` starts like `.loc`: the PTX given to ptxas must keep the depot declaration.
  test::Fixture f(test::sourceDir() / "tests/fixtures/local_array.rs");
  const CompileResult& r = test::replayed(f.path);
  REQUIRE(r.succeeded);
  const StageOutcome* sass = r.stage(Stage::Sass);
  REQUIRE(sass);
  REQUIRE_MESSAGE(sass->available, sass->unavailableReason);
  REQUIRE(r.kernels.size() == 1);
  REQUIRE(r.kernels[0].resources);
  CHECK(r.kernels[0].resources->stackFrame > 0);
  CHECK(r.kernels[0].sassInstructions > 0);
  auto file = f.path.string();
  CHECK(anyStartsWith(test::instructionsFor(r, Stage::Ptx, file, f.line("update")), "st.local"));
  CHECK(anyStartsWith(test::instructionsFor(r, Stage::Sass, file, f.line("read")), "LDL"));
}

TEST_CASE("a match compiled to a jump table: the target list is no instruction, SASS exists") {
  test::Fixture f(test::sourceDir() / "tests/fixtures/jump_table.rs");
  const CompileResult& r = test::replayed(f.path);
  REQUIRE(r.succeeded);
  const Artifact& ptx = *r.stage(Stage::Ptx)->artifact;
  size_t targets = 0;
  for (uint32_t l = 0; l < ptx.lines().size(); ++l) {
    std::string_view t = ptx.lineText(l);
    if (t.find("$L__BB") != std::string_view::npos && t.ends_with(",")) {
      ++targets;
      CHECK(ptx.lines()[l].kind != LineKind::Instruction);
    }
  }
  CHECK(targets >= 8);
  REQUIRE_MESSAGE(r.stage(Stage::Sass)->available, r.stage(Stage::Sass)->unavailableReason);
  auto file = f.path.string();
  CHECK(anyStartsWith(test::instructionsFor(r, Stage::Ptx, file, f.line("match")), "brx.idx"));
  CHECK_FALSE(test::instructionsFor(r, Stage::Sass, file, f.line("arm4")).empty());
}

TEST_CASE(
    "loop {} after a call that does not return keeps its branch; only the padding is ptxas's") {
  test::Fixture f(test::sourceDir() / "tests/fixtures/spin_after_panic.rs");
  const CompileResult& r = test::replayed(f.path);
  REQUIRE(r.succeeded);
  auto file = f.path.string();
  CHECK(anyStartsWith(test::instructionsFor(r, Stage::Ptx, file, f.line("spin")), "bra.uni"));
  CHECK(anyStartsWith(test::instructionsFor(r, Stage::Sass, file, f.line("spin")), "BRA"));
  CHECK_FALSE(test::instructionsFor(r, Stage::Sass, file, f.line("store")).empty());
  // Each function ends with ptxas's own branch-to-self and NOPs: compiler-generated.
  const Artifact& sass = *r.stage(Stage::Sass)->artifact;
  for (const auto& fn : sass.functions) {
    uint32_t last = fn.lastLine;
    while (last > fn.firstLine && sass.lines()[last].kind != LineKind::Instruction) --last;
    CHECK(r.lineMap->origin(Stage::Sass, last).attribution == Attribution::CompilerGenerated);
  }
}

TEST_CASE("instructions without a debug location are compiler-generated in PTX and SASS alike") {
  // rustc's PTX shows them under the `.loc` before them, and nvdisasm prints nothing for
  // line 0: both would pin them to a neighbour.
  const CompileResult& r = test::replayed(test::sourceDir() / "tests/fixtures/jump_table.rs");
  const Artifact& ptx = *r.stage(Stage::Ptx)->artifact;
  const auto& generated = r.lineMap->compilerGenerated(Stage::Ptx);
  size_t underALoc = 0;  // compiler-generated though rustc's PTX has a `.loc` line for it
  for (uint32_t l : generated) {
    CHECK(ptx.lines()[l].location.empty());
    CHECK(ptx.lines()[l].source == LocationSource::Regenerated);
    for (uint32_t k = l; k-- > 0 && ptx.lines()[k].kind != LineKind::Label;)
      if (isPtxLocDirective(text::trim(ptx.lineText(k)))) {
        underALoc += ptx.lineText(k).find(" 0 ") == std::string_view::npos;
        break;
      }
  }
  CHECK(underALoc > 0);
  CHECK_FALSE(r.lineMap->compilerGenerated(Stage::Sass).empty());
}
