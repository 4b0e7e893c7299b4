// Tests of the instruction reference: coverage of the PTX ISA's instruction index, decoding
// of real PTX lines from our examples, and an entry for every SASS opcode, LLVM IR
// instruction and MIR kind in the recorded compiler output of tests/golden.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "InstructionDocs.h"
#include "Parsers.h"
#include "TestSupport.h"

using namespace ks;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kGolden = {"saxpy",      "vector_add",   "elementwise_mul",
                                          "reduce_sum", "matmul_naive", "matmul_tiled",
                                          "atomics",    "iterators"};

std::string goldenText(const std::string& name, const std::string& file) {
  return readWholeFile(test::sourceDir() / "tests/golden" / name / file);
}

// The instruction index of the PTX ISA document for CUDA 13 (PTX ISA 9.0, plus the two
// instructions 9.1 adds), section by section. A name
// documented in several sections (add for integers, floats, halves and mixed precision)
// is listed once per section; `mov`, which has two sections of its own, once.
struct IsaName {
  const char* section;
  const char* name;
};
const IsaName kPtxIsaIndex[] = {
    // 9.7.1 Integer arithmetic.
    {"integer", "add"},
    {"integer", "sub"},
    {"integer", "mul"},
    {"integer", "mad"},
    {"integer", "mul24"},
    {"integer", "mad24"},
    {"integer", "sad"},
    {"integer", "div"},
    {"integer", "rem"},
    {"integer", "abs"},
    {"integer", "neg"},
    {"integer", "min"},
    {"integer", "max"},
    {"integer", "popc"},
    {"integer", "clz"},
    {"integer", "bfind"},
    {"integer", "fns"},
    {"integer", "brev"},
    {"integer", "bfe"},
    {"integer", "bfi"},
    {"integer", "szext"},
    {"integer", "bmsk"},
    {"integer", "dp4a"},
    {"integer", "dp2a"},
    // 9.7.2 Extended-precision integer arithmetic.
    {"extended", "add.cc"},
    {"extended", "addc"},
    {"extended", "sub.cc"},
    {"extended", "subc"},
    {"extended", "mad.cc"},
    {"extended", "madc"},
    // 9.7.3 Floating point.
    {"float", "testp"},
    {"float", "copysign"},
    {"float", "add"},
    {"float", "sub"},
    {"float", "mul"},
    {"float", "fma"},
    {"float", "mad"},
    {"float", "div"},
    {"float", "abs"},
    {"float", "neg"},
    {"float", "min"},
    {"float", "max"},
    {"float", "rcp"},
    {"float", "rcp.approx.ftz.f64"},
    {"float", "sqrt"},
    {"float", "rsqrt"},
    {"float", "rsqrt.approx.ftz.f64"},
    {"float", "sin"},
    {"float", "cos"},
    {"float", "lg2"},
    {"float", "ex2"},
    {"float", "tanh"},
    // 9.7.4 Half precision.
    {"half", "add"},
    {"half", "sub"},
    {"half", "mul"},
    {"half", "fma"},
    {"half", "neg"},
    {"half", "abs"},
    {"half", "min"},
    {"half", "max"},
    {"half", "tanh"},
    {"half", "ex2"},
    // 9.7.5 Mixed precision.
    {"mixed", "add"},
    {"mixed", "sub"},
    {"mixed", "fma"},
    // 9.7.6 Comparison and selection; 9.7.7 half-precision comparison.
    {"compare", "set"},
    {"compare", "setp"},
    {"compare", "selp"},
    {"compare", "slct"},
    {"half-compare", "set"},
    {"half-compare", "setp"},
    // 9.7.8 Logic and shift.
    {"logic", "and"},
    {"logic", "or"},
    {"logic", "xor"},
    {"logic", "not"},
    {"logic", "cnot"},
    {"logic", "lop3"},
    {"logic", "shf"},
    {"logic", "shl"},
    {"logic", "shr"},
    // 9.7.9 Data movement and conversion.
    {"data", "mov"},
    {"data", "shfl"},
    {"data", "shfl.sync"},
    {"data", "prmt"},
    {"data", "ld"},
    {"data", "ld.global.nc"},
    {"data", "ldu"},
    {"data", "st"},
    {"data", "st.async"},
    {"data", "st.bulk"},
    {"data", "multimem.ld_reduce"},
    {"data", "multimem.st"},
    {"data", "multimem.red"},
    {"data", "prefetch"},
    {"data", "prefetchu"},
    {"data", "applypriority"},
    {"data", "discard"},
    {"data", "createpolicy"},
    {"data", "isspacep"},
    {"data", "cvta"},
    {"data", "cvt"},
    {"data", "cvt.pack"},
    {"data", "mapa"},
    {"data", "getctarank"},
    {"data", "cp.async"},
    {"data", "cp.async.commit_group"},
    {"data", "cp.async.wait_group"},
    {"data", "cp.async.wait_all"},
    {"data", "cp.async.bulk"},
    {"data", "cp.reduce.async.bulk"},
    {"data", "cp.async.bulk.prefetch"},
    {"data", "cp.async.bulk.tensor"},
    {"data", "cp.reduce.async.bulk.tensor"},
    {"data", "cp.async.bulk.prefetch.tensor"},
    {"data", "cp.async.bulk.commit_group"},
    {"data", "cp.async.bulk.wait_group"},
    {"data", "multimem.cp.async.bulk"},
    {"data", "multimem.cp.reduce.async.bulk"},  // added by PTX ISA 9.1
    {"data", "tensormap.replace"},
    // 9.7.10 Texture; 9.7.11 surface.
    {"texture", "tex"},
    {"texture", "tld4"},
    {"texture", "txq"},
    {"texture", "istypep"},
    {"surface", "suld"},
    {"surface", "sust"},
    {"surface", "sured"},
    {"surface", "suq"},
    // 9.7.12 Control flow.
    {"control", "{}"},
    {"control", "@"},
    {"control", "bra"},
    {"control", "brx.idx"},
    {"control", "call"},
    {"control", "ret"},
    {"control", "exit"},
    // 9.7.13 Parallel synchronization and communication.
    {"sync", "bar"},
    {"sync", "barrier"},
    {"sync", "bar.warp.sync"},
    {"sync", "barrier.cluster"},
    {"sync", "membar"},
    {"sync", "fence"},
    {"sync", "atom"},
    {"sync", "red"},
    {"sync", "red.async"},
    {"sync", "vote"},
    {"sync", "vote.sync"},
    {"sync", "match.sync"},
    {"sync", "activemask"},
    {"sync", "redux.sync"},
    {"sync", "griddepcontrol"},
    {"sync", "elect.sync"},
    {"sync", "mbarrier.init"},
    {"sync", "mbarrier.inval"},
    {"sync", "mbarrier.expect_tx"},
    {"sync", "mbarrier.complete_tx"},
    {"sync", "mbarrier.arrive"},
    {"sync", "mbarrier.arrive_drop"},
    {"sync", "cp.async.mbarrier.arrive"},
    {"sync", "mbarrier.test_wait"},
    {"sync", "mbarrier.try_wait"},
    {"sync", "mbarrier.pending_count"},
    {"sync", "tensormap.cp_fenceproxy"},
    {"sync", "clusterlaunchcontrol.try_cancel"},
    {"sync", "clusterlaunchcontrol.query_cancel"},
    // 9.7.14 Warp-level matrix multiply-accumulate.
    {"mma", "wmma.load"},
    {"mma", "wmma.store"},
    {"mma", "wmma.mma"},
    {"mma", "mma"},
    {"mma", "ldmatrix"},
    {"mma", "stmatrix"},
    {"mma", "movmatrix"},
    {"mma", "mma.sp"},
    // 9.7.15 Warpgroup-level asynchronous matrix multiply-accumulate.
    {"wgmma", "wgmma.mma_async"},
    {"wgmma", "wgmma.mma_async.sp"},
    {"wgmma", "wgmma.fence"},
    {"wgmma", "wgmma.commit_group"},
    {"wgmma", "wgmma.wait_group"},
    // 9.7.16 TensorCore 5th generation.
    {"tcgen05", "tcgen05.alloc"},
    {"tcgen05", "tcgen05.dealloc"},
    {"tcgen05", "tcgen05.relinquish_alloc_permit"},
    {"tcgen05", "tcgen05.ld"},
    {"tcgen05", "tcgen05.st"},
    {"tcgen05", "tcgen05.wait"},
    {"tcgen05", "tcgen05.cp"},
    {"tcgen05", "tcgen05.shift"},
    {"tcgen05", "tcgen05.mma"},
    {"tcgen05", "tcgen05.mma.sp"},
    {"tcgen05", "tcgen05.mma.ws"},
    {"tcgen05", "tcgen05.mma.ws.sp"},
    {"tcgen05", "tcgen05.fence"},
    {"tcgen05", "tcgen05.commit"},
    // 9.7.17 Stack manipulation.
    {"stack", "stacksave"},
    {"stack", "stackrestore"},
    {"stack", "alloca"},
    // 9.7.18 Video.
    {"video", "vadd"},
    {"video", "vsub"},
    {"video", "vabsdiff"},
    {"video", "vmin"},
    {"video", "vmax"},
    {"video", "vshl"},
    {"video", "vshr"},
    {"video", "vmad"},
    {"video", "vset"},
    {"video", "vadd2"},
    {"video", "vsub2"},
    {"video", "vavrg2"},
    {"video", "vabsdiff2"},
    {"video", "vmin2"},
    {"video", "vmax2"},
    {"video", "vset2"},
    {"video", "vadd4"},
    {"video", "vsub4"},
    {"video", "vavrg4"},
    {"video", "vabsdiff4"},
    {"video", "vmin4"},
    {"video", "vmax4"},
    {"video", "vset4"},
    // 9.7.19 Miscellaneous.
    {"misc", "brkpt"},
    {"misc", "nanosleep"},
    {"misc", "pmevent"},
    {"misc", "trap"},
    {"misc", "setmaxnreg"},
};

/// The artifact lines of a kind the parser marked as instructions.
std::vector<std::string> instructionLines(const Artifact& a) {
  std::vector<std::string> out;
  for (size_t i = 0; i < a.lines().size(); ++i)
    if (a.lines()[i].kind == LineKind::Instruction) out.emplace_back(a.lineText(i));
  return out;
}

/// Requires an explanation, with a meaning for every modifier, of each instruction line.
void checkAllExplained(Stage stage, const Artifact& artifact, const std::string& name) {
  for (const auto& line : instructionLines(artifact)) {
    CAPTURE(name);
    CAPTURE(line);
    auto doc = describeInstruction(stage, line);
    REQUIRE(doc.has_value());
    CHECK_FALSE(doc->summary.empty());
    for (const auto& m : doc->modifiers) {
      CAPTURE(m.text);
      CHECK_FALSE(m.meaning.empty());
    }
  }
}

const ModifierDoc* modifier(const InstructionDoc& d, std::string_view text) {
  for (const auto& m : d.modifiers)
    if (m.text == text) return &m;
  return nullptr;
}

}  // namespace

TEST_CASE("every instruction of the PTX ISA index is documented") {
  auto documented = documentedPtxInstructions();
  for (const auto& isa : kPtxIsaIndex) {
    CAPTURE(isa.section);
    CAPTURE(isa.name);
    CHECK(std::any_of(documented.begin(), documented.end(), [&](const PtxInstructionName& d) {
      return d.section == isa.section && d.name == isa.name;
    }));
  }
  // And nothing is documented that the index does not have.
  CHECK(documented.size() == std::size(kPtxIsaIndex));
  CHECK(instructionDocCounts().ptxInstructions == std::size(kPtxIsaIndex));
}

TEST_CASE("each PTX instruction decodes to its own entry, with the version and target it needs") {
  std::set<std::string> duplicated;
  std::set<std::string> seen;
  for (const auto& isa : kPtxIsaIndex)
    if (!seen.insert(isa.name).second) duplicated.insert(isa.name);
  for (const auto& isa : kPtxIsaIndex) {
    std::string name = isa.name;
    if (duplicated.count(name) || name == "{}" || name == "@") continue;
    CAPTURE(name);
    auto doc = describeInstruction(Stage::Ptx, "\t" + name + " \t%r1, %r2;");
    REQUIRE(doc.has_value());
    CHECK(doc->mnemonic == name);
    CHECK_FALSE(doc->summary.empty());
    CHECK_FALSE(doc->minPtx.empty());
    CHECK_FALSE(doc->minSm.empty());
  }
}

TEST_CASE("real PTX lines of our examples decode with their modifiers") {
  struct Case {
    const char* line;  // as it appears in tests/golden/*/k.ptx
    const char* mnemonic;
    const char* category;
    std::vector<std::pair<const char*, const char*>> modifiers;  // text, a word of its meaning
    const char* operands;  // a part of the operand description ("" for none)
    const char* minPtx;
    const char* minSm;
  };
  const std::vector<Case> cases = {
      {"\tld.global.b32 \t%r7, [%rd6];",
       "ld",
       "data movement and conversion",
       {{".global", "global memory"}, {".b32", "32 untyped bits"}},
       "[%rd6] is a memory address",
       "1.0",
       "all targets"},
      {"\tld.param.b64 \t%rd3, [saxpy_param_2];",
       "ld",
       "data movement and conversion",
       {{".param", "kernel arguments"}, {".b64", "64"}},
       "destination %rd3",
       "1.0",
       "all targets"},
      {"\tld.b32 \t%r10, [%rd8];",
       "ld",
       "data movement and conversion",
       {{".b32", "32"}},
       "generic",
       "1.0",
       "all targets"},
      {"\tst.global.b32 \t[%rd7], %r10;",
       "st",
       "data movement and conversion",
       {{".global", "global"}, {".b32", "32"}},
       "[%rd7] is a memory address",
       "1.0",
       "all targets"},
      {"\tcvta.to.global.u64 \t%rd1, %rd3;",
       "cvta",
       "data movement and conversion",
       {{".to", "generic"}, {".global", "global"}, {".u64", "64-bit unsigned"}},
       "destination %rd1",
       "2.0",
       "sm_20"},
      {"\tcvt.u64.u32 \t%rd2, %r1;",
       "cvt",
       "data movement and conversion",
       {{".u64", "destination type"}, {".u32", "source type"}},
       "sources %r1",
       "1.0",
       "all targets"},
      {"\tmov.u32 \t%r4, %ctaid.x;",
       "mov",
       "data movement and conversion",
       {{".u32", "32-bit unsigned"}},
       "block's index within the grid",
       "1.0",
       "all targets"},
      {"\tmov.u32 \t%r6, %tid.x;",
       "mov",
       "data movement and conversion",
       {{".u32", "unsigned"}},
       "thread's index within its block",
       "1.0",
       "all targets"},
      {"\tmul.wide.u32 \t%rd5, %r1, 4;",
       "mul",
       "integer arithmetic",
       {{".wide", "twice as wide"}, {".u32", "32-bit unsigned"}},
       "sources %r1, 4",
       "1.0",
       "all targets"},
      {"\tmad.lo.s32 \t%r1, %r4, %r5, %r6;",
       "mad",
       "integer arithmetic",
       {{".lo", "low half"}, {".s32", "signed"}},
       "destination %r1",
       "1.0",
       "all targets"},
      {"\tmul.lo.s64 \t%rd10, %rd4, 12;",
       "mul",
       "integer arithmetic",
       {{".lo", "low half"}, {".s64", "64-bit signed"}},
       "",
       "1.0",
       "all targets"},
      {"\tadd.s64 \t%rd6, %rd1, %rd5;",
       "add",
       "integer arithmetic",
       {{".s64", "64-bit signed"}},
       "",
       "1.0",
       "all targets"},
      {"\tneg.s64 \t%rd23, %rd5;",
       "neg",
       "integer arithmetic",
       {{".s64", "signed"}},
       "",
       "1.0",
       "all targets"},
      {"\tmul.rn.f32 \t%r8, %r2, %r7;",
       "mul",
       "floating point",
       {{".rn", "nearest"}, {".f32", "single-precision"}},
       "",
       "1.0",
       "all targets"},
      {"\tadd.rn.f32 \t%r10, %r8, %r9;",
       "add",
       "floating point",
       {{".rn", "ties to even"}, {".f32", "32-bit"}},
       "",
       "1.0",
       "all targets"},
      {"\tsetp.lt.u32 \t%p1, %r1, %r3;",
       "setp",
       "comparison and selection",
       {{".lt", "less than"}, {".u32", "compared as 32-bit unsigned"}},
       "destination %p1",
       "1.0",
       "all targets"},
      {"\tsetp.eq.b64 \t%p1, %rd43, 0;",
       "setp",
       "comparison and selection",
       {{".eq", "equal"}, {".b64", "64"}},
       "",
       "1.0",
       "all targets"},
      {"\t@%p1 bra \t$L__BB1_2;",
       "bra",
       "control flow",
       {{"@%p1", "where %p1 is true"}},
       "$L__BB1_2",
       "1.0",
       "all targets"},
      {"\tbra.uni \t$L__BB1_1;",
       "bra",
       "control flow",
       {{".uni", "same way"}},
       "",
       "1.0",
       "all targets"},
      {"\tret;", "ret", "control flow", {}, "", "1.0", "all targets"},
      {"\tbar.sync \t0;",
       "bar",
       "synchronization and communication",
       {{".sync", "__syncthreads"}},
       "",
       "1.0",
       "all targets"},
      {"\tatom.global.add.u32 \t%r8, [%rd8], 1;",
       "atom",
       "synchronization and communication",
       {{".global", "global"}, {".add", "add"}, {".u32", "unsigned"}},
       "destination %r8",
       "1.1",
       "all targets"},
      {"\tred.add.f32 [%rd14], %r30;",
       "red",
       "synchronization and communication",
       {{".add", "add"}, {".f32", "float"}},
       "[%rd14] is a memory address",
       "1.2",
       "all targets"},
      {"\tand.pred \t%p11, %p9, %p10;",
       "and",
       "logic and shift",
       {{".pred", "predicate"}},
       "",
       "1.0",
       "all targets"},
      {"\tshl.b64 \t%rd5, %rd4, 2;",
       "shl",
       "logic and shift",
       {{".b64", "64"}},
       "",
       "1.0",
       "all targets"},
      {"\t.reg .b32 \t%r<11>;", ".reg", "directive", {{".b32", "32"}}, "%r0..%r10", "", ""},
      {"\t.loc\t1 12 25", ".loc", "directive", {}, "line 12, column 25", "", ""},
      {"\t.loc\t1 0 8", ".loc", "directive", {}, "compiler made up", "", ""},
      {".visible .entry saxpy(",
       ".entry",
       "directive",
       {{".visible", "outside this module"}},
       "saxpy",
       "",
       ""},
      {"\t.param .u64 .ptr .align 1 saxpy_param_2,",
       ".param",
       "directive",
       {{".u64", "64-bit"}, {".ptr", "pointer"}, {".align 1", "1-byte aligned"}},
       "saxpy_param_2",
       "",
       ""},
      {".version 7.8", ".version", "directive", {}, "7.8", "", ""},
      {".target sm_90", ".target", "directive", {}, "sm_90", "", ""},
      {".address_size 64", ".address_size", "directive", {}, "64", "", ""},
      {"\t.pragma \"nounroll\";", ".pragma", "directive", {}, "nounroll", "", ""},
  };
  std::string allPtx;
  for (const auto& name : kGolden) allPtx += goldenText(name, "k.ptx");
  for (const auto& c : cases) {
    std::string line = c.line;
    CAPTURE(line);
    CHECK(allPtx.find(c.line) != std::string::npos);  // the line is real compiler output
    auto doc = describeInstruction(Stage::Ptx, c.line);
    REQUIRE(doc.has_value());
    CHECK(doc->mnemonic == c.mnemonic);
    CHECK(doc->category == c.category);
    CHECK(doc->minPtx == c.minPtx);
    CHECK(doc->minSm == c.minSm);
    CHECK(doc->modifiers.size() == c.modifiers.size());
    for (const auto& expected : c.modifiers) {
      const auto& [text, word] = expected;
      CAPTURE(expected.first);  // (clang 14 cannot capture a structured binding)
      const ModifierDoc* m = modifier(*doc, text);
      REQUIRE(m);
      CHECK(m->meaning.find(word) != std::string::npos);
    }
    CHECK(doc->operands.find(c.operands) != std::string::npos);
  }
}

TEST_CASE("PTX modifiers beyond our examples") {
  auto doc = describeInstruction(
      Stage::Ptx, "ld.global.nc.L1::no_allocate.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];");
  REQUIRE(doc);
  CHECK(doc->mnemonic == "ld.global.nc");
  CHECK(doc->minSm == "sm_32");
  CHECK(modifier(*doc, ".v4"));
  CHECK(modifier(*doc, ".L1::no_allocate"));
  doc = describeInstruction(Stage::Ptx, "atom.acquire.gpu.global.cas.b32 %r1, [%rd1], %r2, %r3;");
  REQUIRE(doc);
  CHECK(modifier(*doc, ".acquire")->meaning.find("cannot move before") != std::string::npos);
  CHECK(modifier(*doc, ".gpu")->meaning.find("GPU") != std::string::npos);
  CHECK(modifier(*doc, ".cas")->meaning == "compare and swap");
  doc = describeInstruction(Stage::Ptx, "add.f16x2 %r1, %r2, %r3;");
  REQUIRE(doc);
  CHECK(doc->category == "half-precision floating point");
  CHECK(doc->minSm == "sm_53");
  doc = describeInstruction(Stage::Ptx, "fma.rn.f32.f16 %f1, %h1, %h2, %f2;");
  REQUIRE(doc);
  CHECK(doc->category == "mixed-precision floating point");
  doc = describeInstruction(Stage::Ptx, "@!%p2 st.shared.v2.u32 [%r1], {%r2, %r3};");
  REQUIRE(doc);
  CHECK(modifier(*doc, "@!%p2")->meaning.find("false") != std::string::npos);
  doc =
      describeInstruction(Stage::Ptx, "mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r1], %r2;");
  REQUIRE(doc);
  CHECK(doc->mnemonic == "mbarrier.try_wait");
  CHECK(doc->minSm == "sm_90");
  doc = describeInstruction(Stage::Ptx, "ld.global.cg.u32 %r1, [%rd1];");
  REQUIRE(doc);
  CHECK(modifier(*doc, ".cg")->meaning.find("L2") != std::string::npos);
  doc = describeInstruction(Stage::Ptx, "mov.u32 %r1, %laneid;");
  REQUIRE(doc);
  CHECK(doc->operands.find("lane") != std::string::npos);
  CHECK_FALSE(describeInstruction(Stage::Ptx, "// a comment"));
  CHECK_FALSE(describeInstruction(Stage::Ptx, ""));
  CHECK(renderPlain(*doc).find("Needs PTX ISA 1.0, all targets.") != std::string::npos);
}

TEST_CASE("every SASS opcode in our examples' output has an entry") {
  for (const auto& name : kGolden)
    checkAllExplained(Stage::Sass, parseSass(goldenText(name, "k.sass")), name);
  auto doc = describeInstruction(
      Stage::Sass, "        /*00c0*/                   IMAD.WIDE.U32 R2, R7, 0x4, R2 ;");
  REQUIRE(doc);
  CHECK(doc->mnemonic == "IMAD");
  CHECK(modifier(*doc, ".WIDE"));
  CHECK(modifier(*doc, ".U32"));
  doc = describeInstruction(Stage::Sass, "        /*0070*/               @P0 EXIT ;");
  REQUIRE(doc);
  CHECK(doc->mnemonic == "EXIT");
  CHECK(modifier(*doc, "@P0"));
  doc = describeInstruction(Stage::Sass, "/*0300*/ REDG.E.ADD.STRONG.GPU desc[UR4][R2.64], R5 ;");
  REQUIRE(doc);
  CHECK(modifier(*doc, ".STRONG.GPU"));
  doc = describeInstruction(Stage::Sass, "/*0100*/ FFMA R0, R2.reuse, UR6, R3 ;");
  REQUIRE(doc);
  CHECK(modifier(*doc, ".reuse"));
  CHECK(instructionDocCounts().sassOpcodes >= 150);
}

TEST_CASE("every LLVM IR instruction and MIR kind in our examples' output has an entry") {
  for (const auto& name : kGolden) {
    std::string error;
    checkAllExplained(Stage::LlvmIr, parseLlvmIr(goldenText(name, "k.ll"), &error), name);
    checkAllExplained(Stage::Mir, parseMir(goldenText(name, "k.mir")), name);
  }
  auto doc = describeInstruction(
      Stage::LlvmIr, "  %_12 = getelementptr inbounds nuw i32, ptr %data, i64 %_13, !dbg !30");
  REQUIRE(doc);
  CHECK(doc->mnemonic == "getelementptr");
  CHECK(modifier(*doc, "inbounds"));
  CHECK(modifier(*doc, "nuw"));
  doc = describeInstruction(Stage::LlvmIr,
                            "  %_6 = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !13");
  REQUIRE(doc);
  CHECK(doc->mnemonic == "llvm.nvvm.read.ptx.sreg.ctaid.x");
  CHECK(doc->summary.find("%ctaid") != std::string::npos);
  doc = describeInstruction(Stage::LlvmIr, "  %_9 = icmp ult i32 %i, %n, !dbg !26");
  REQUIRE(doc);
  CHECK(modifier(*doc, "ult")->meaning.find("unsigned less than") != std::string::npos);
  doc = describeInstruction(Stage::LlvmIr,
                            "  %0 = atomicrmw add ptr %_15, i32 1 monotonic, align 4, !dbg !43");
  REQUIRE(doc);
  CHECK(modifier(*doc, "monotonic"));
  CHECK(modifier(*doc, "align 4"));
  doc = describeInstruction(Stage::Mir,
                            "        _14 = Offset(copy _3, copy _11); // scope 1 at x.rs:1:1: 1:2");
  REQUIRE(doc);
  CHECK(doc->mnemonic == "Offset");
  CHECK(modifier(*doc, "copy"));
  doc = describeInstruction(Stage::Mir, "        _9 = copy _4 as usize (IntToInt);");
  REQUIRE(doc);
  CHECK(doc->mnemonic == "IntToInt");
  doc = describeInstruction(Stage::Mir, "        switchInt(move _16) -> [0: bb4, otherwise: bb3];");
  REQUIRE(doc);
  CHECK(doc->mnemonic == "switchInt");
  doc = describeInstruction(Stage::Mir, "        StorageLive(_6);");
  REQUIRE(doc);
  CHECK(doc->category == "statement");
}
