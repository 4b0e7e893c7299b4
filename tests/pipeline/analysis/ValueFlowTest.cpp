// Where a SASS instruction's values come from (ValueFlow.h), on the SASS ptxas made for the
// examples: a loop's carried value, predicates, uniform registers, register pairs, and the
// definitions and uses agreeing with each other on every instruction of every example.
#include <doctest/doctest.h>

#include <algorithm>

#include "Files.h"
#include "SassText.h"
#include "TestSupport.h"
#include "TextUtil.h"
#include "ValueFlow.h"

namespace ks {
namespace fs = std::filesystem;

namespace {

const Artifact& sassOf(const CompileResult& r) {
  const StageOutcome* s = r.stage(Stage::Sass);
  REQUIRE(s);
  REQUIRE(s->available);
  return *s->artifact;
}

/// The first instruction line at or after `from` whose opcode starts with `opcode` and whose
/// text contains `has`.
std::optional<uint32_t> find(const Artifact& a, std::string_view opcode, std::string_view has = "",
                             uint32_t from = 0) {
  for (uint32_t l = from; l < a.lines().size(); ++l)
    if (a.lines()[l].kind == LineKind::Instruction &&
        sassOpcode(a.lineText(l)).starts_with(opcode) &&
        a.lineText(l).find(has) != std::string_view::npos)
      return l;
  return std::nullopt;
}

const RegisterFlow* flowOf(const std::vector<RegisterFlow>& v, std::string_view reg) {
  for (const auto& r : v)
    if (r.reg == reg) return &r;
  return nullptr;
}

std::string opcodes(const Artifact& a, const std::vector<uint32_t>& lines) {
  std::string s;
  for (uint32_t l : lines) s += std::string(sassOpcode(a.lineText(l))) + " ";
  return s;
}

}  // namespace

TEST_CASE("the registers an instruction writes and reads, from the SASS grammar") {
  auto names = [](const std::vector<SassFlowGraph::Operand>& ops) {
    std::string s;
    for (const auto& o : ops) s += (s.empty() ? "" : " ") + o.name;
    return s;
  };
  auto check = [&](std::string_view line, std::string_view writes, std::string_view reads) {
    CAPTURE(line);
    auto i = sassRegisters(line);
    CHECK(names(i.writes) == writes);
    CHECK(names(i.reads) == reads);
  };
  check("/*0210*/ LDG.E R0, [R8.64] ;", "R0", "R8.64");
  check("/*0210*/ LDG.E.128 R4, [R2.64+0x10] ;", "R4.128", "R2.64");
  check("/*02b0*/ ST.E [R2.64], R11 ;", "", "R2.64 R11");
  check("/*02b0*/ STG.E.64 [R2.64], R4 ;", "", "R2.64 R4.64");
  check("/*0110*/ ISETP.GE.U32.AND.EX P0, PT, R7, RZ, PT, P0 ;", "P0", "R7 P0");
  check("/*0140*/ IADD3 R2, P1, R0, UR4, RZ ;", "R2 P1", "R0 UR4");
  check("/*0160*/ IADD3.X R3, R8, UR7, RZ, P1, !PT ;", "R3", "R8 UR7 P1");
  check("/*00e0*/ IMAD.WIDE.U32 R6, R9, 0x100, R4 ;", "R6.64", "R9 R4.64");
  check("/*0280*/ @!P0 BRA `(.L_x_2) ;", "", "P0");
  check("/*0060*/ ULDC.64 UR8, c[0x0][0x208] ;", "UR8.64", "");
  check("/*0120*/ UIADD3 UR4, UP0, UR4, UR6, URZ ;", "UR4 UP0", "UR4 UR6");
  check("/*0400*/ SHFL.BFLY PT, R5, R2, 0x10, 0x1f ;", "R5", "R2");
  check("/*0400*/ ATOMG.E.ADD.F32.FTZ.RN.STRONG.GPU PT, R2, [R2.64], R5 ;", "R2", "R2.64 R5");
  check("/*0400*/ P2R R6, PR, RZ, 0x8 ;", "R6", "PR");
  check("/*0400*/ @P1 FSEL R3, R2, -R2, P0 ;", "R3", "P1 R2 P0");
  check("/*0400*/ F2F.F64.F32 R2, R0 ;", "R2.64", "R0");
  check("/*0400*/ DFMA R2, R4, R6, R2 ;", "R2.64", "R4.64 R6.64 R2.64");
  check("/*0400*/ S2R R4, SR_TID.X ;", "R4", "");
  check("/*0400*/ PLOP3.LUT P0, PT, PT, PT, P1, 0x8, 0x0 ;", "P0", "P1");
  check("/*0400*/ VOTE.ANY R0, PT, P0 ;", "R0", "P0");
  check("/*0400*/ LDS.U.128 R8, [R3.X4+0x10] ;", "R8.128", "R3");
  check("/*0400*/ WARPSYNC R2 ;", "", "R2");
}

TEST_CASE("a loop's carried value comes from the loop and from before it") {
  test::requireToolchain();
  const CompileResult& r = test::compiled(test::sourceDir() / "examples" / "reduce_sum.rs");
  REQUIRE(r.succeeded);
  const Artifact& a = sassOf(r);
  // The grid-stride loop's accumulation: `FADD Rs, Rx, Rs` under a backward branch.
  std::optional<uint32_t> fadd;
  for (uint32_t l = 0; l < a.lines().size() && !fadd; ++l) {
    if (a.lines()[l].kind != LineKind::Instruction || sassOpcode(a.lineText(l)) != "FADD") continue;
    auto regs = sassRegisters(a.lineText(l));
    if (regs.writes.size() == 1 &&
        std::any_of(regs.reads.begin(), regs.reads.end(),
                    [&](const SassFlowGraph::Operand& o) { return o.name == regs.writes[0].name; }))
      fadd = l;
  }
  REQUIRE(fadd);
  CAPTURE(a.lineText(*fadd));
  const ValueFlow flow = valueFlow(a, *fadd);
  REQUIRE(flow.instruction);
  const std::string acc = sassRegisters(a.lineText(*fadd)).writes[0].name;
  const RegisterFlow* carried = flowOf(flow.sources, acc);
  REQUIRE(carried);
  CAPTURE(opcodes(a, carried->lines));
  // Its own previous iteration, and the zero it starts from before the loop.
  CHECK(std::find(carried->lines.begin(), carried->lines.end(), *fadd) != carried->lines.end());
  CHECK(std::any_of(carried->lines.begin(), carried->lines.end(), [&](uint32_t l) {
    return l < *fadd && a.lineText(l).find("RZ, RZ, RZ") != std::string_view::npos;
  }));
  CHECK_FALSE(carried->fromEntry);
  // The other operand is the loop's load.
  for (const auto& s : flow.sources) {
    if (s.reg == acc) continue;
    REQUIRE(s.lines.size() == 1);
    CHECK(sassOpcode(a.lineText(s.lines[0])).starts_with("LDG"));
    // ... whose result the FADD uses.
    const ValueFlow load = valueFlow(a, s.lines[0]);
    REQUIRE(load.results.size() == 1);
    CHECK(load.results[0].lines == std::vector<uint32_t>{*fadd});
  }
  // The accumulated value reaches the loop's next iteration and the code after the loop.
  REQUIRE(flow.results.size() == 1);
  const auto& uses = flow.results[0].lines;
  CHECK(std::find(uses.begin(), uses.end(), *fadd) != uses.end());
  CHECK(std::any_of(uses.begin(), uses.end(), [&](uint32_t l) { return l > *fadd; }));
  // The hover's words: the register, the instructions, their addresses and Rust lines.
  const std::string words = describeValueFlow(a, *r.lineMap, flow);
  CAPTURE(words);
  CHECK(words.find(acc + " from the ") != std::string::npos);
  CHECK(words.find(" or the FADD at 0x") != std::string::npos);
  CHECK(words.find(" used by the FADD at 0x") != std::string::npos);
  CHECK(words.find(" — line ") != std::string::npos);
}

TEST_CASE("a branch's predicate and a compare's uniform operand have their definitions") {
  test::requireToolchain();
  const CompileResult& r = test::compiled(test::sourceDir() / "examples" / "reduce_sum.rs");
  REQUIRE(r.succeeded);
  const Artifact& a = sassOf(r);
  // The loop's backward branch, guarded by the compare that ends the loop.
  std::optional<uint32_t> back;
  for (uint32_t l = 0; l < a.lines().size(); ++l)
    if (a.lines()[l].kind == LineKind::Instruction && sassOpcode(a.lineText(l)) == "BRA" &&
        a.lineText(l).find("@") != std::string_view::npos) {
      std::string_view target = sassBranchTarget(a.lineText(l));
      for (uint32_t k = a.functions[a.lines()[l].function].firstLine; k < l; ++k)
        if (text::trim(a.lineText(k)) == std::string(target) + ":") back = l;
    }
  REQUIRE(back);
  CAPTURE(a.lineText(*back));
  const ValueFlow branch = valueFlow(a, *back);
  REQUIRE(branch.sources.size() == 1);
  CHECK(branch.sources[0].reg.starts_with("P"));
  REQUIRE(!branch.sources[0].lines.empty());
  for (uint32_t d : branch.sources[0].lines) {
    CAPTURE(a.lineText(d));
    CHECK(sassOpcode(a.lineText(d)).find("SETP") != std::string_view::npos);
    CHECK(d < *back);
  }
  // A compare against a uniform register: the uniform register's load of the parameter.
  auto cmp = find(a, "ISETP", ", UR");
  REQUIRE(cmp);
  const ValueFlow compare = valueFlow(a, *cmp);
  bool uniform = false;
  for (const auto& s : compare.sources)
    if (s.reg.starts_with("UR")) {
      uniform = true;
      REQUIRE(!s.lines.empty());
      for (uint32_t d : s.lines) CHECK(sassOpcode(a.lineText(d)).starts_with("U"));
    }
  CHECK(uniform);
  // The compare's predicate is read by a later instruction.
  REQUIRE(!compare.results.empty());
  CHECK(!compare.results[0].lines.empty());
}

TEST_CASE("explain --annotate says where each SASS instruction's values come from") {
  test::requireToolchain();
  const std::string file = (test::sourceDir() / "examples" / "saxpy.rs").string();
  const std::string text = readRegularFile(file).text;
  const uint32_t line =
      1 + static_cast<uint32_t>(
              std::count(text.begin(), text.begin() + long(text.find("a * *x.add(i)")), '\n'));
  ProcessResult r = test::runKernelscope(
      {"explain", file, "--stages", "sass", "--annotate", "--line", std::to_string(line)});
  REQUIRE_MESSAGE(r.ok(), r.err);
  CAPTURE(r.out);
  // The FADD's operands come from the FMUL and a load on the same line; the store reads its
  // result.
  const size_t fadd = r.out.find("FADD R");
  REQUIRE(fadd != std::string::npos);
  const size_t values = r.out.find("= values ", fadd);
  REQUIRE(values != std::string::npos);
  const std::string said = r.out.substr(values, r.out.find('\n', values) - values);
  CHECK(said.find(" from the LDG.E") != std::string::npos);
  CHECK(said.find(" — line " + std::to_string(line)) != std::string::npos);
  CHECK(said.find(" used by the STG.E") != std::string::npos);
}

TEST_CASE("definitions and uses agree on every instruction of every example") {
  test::requireToolchain();
  size_t checked = 0;
  for (const auto& k : test::compilingKernels()) {
    CAPTURE(k);
    const CompileResult& r = test::compiled(test::sourceDir() / k);
    REQUIRE(r.succeeded);
    const Artifact& a = sassOf(r);
    for (size_t f = 0; f < a.functions.size(); ++f) {
      const SassFlowGraph g(a, f);
      for (const auto& inst : g.instructions()) {
        const ValueFlow flow = g.flowOf(inst.line);
        REQUIRE(flow.instruction);
        for (const auto& s : flow.sources)
          for (uint32_t d : s.lines) {
            // Each definition writes a register the operand reads, and lists this
            // instruction among its uses (or is a call, which may write any register).
            CAPTURE(a.lineText(inst.line));
            CAPTURE(a.lineText(d));
            const ValueFlow def = g.flowOf(d);
            if (sassOpcode(a.lineText(d)).starts_with("CALL")) continue;
            bool listed = false;
            for (const auto& res : def.results)
              listed = listed ||
                       std::find(res.lines.begin(), res.lines.end(), inst.line) != res.lines.end();
            CHECK(listed);
            ++checked;
          }
      }
    }
  }
  CHECK(checked > 1000);
}

}  // namespace ks
