// kernelscope/lineCosts and kernelscope/valueFlow on recorded compiles of the examples
// (Recorded.h): what a source line costs before it runs, each kernel's register pressure,
// and where the values of a SASS instruction come from and go, table by table.
#include <doctest/doctest.h>

#include "Recorded.h"

namespace ks::test {

TEST_CASE("what a source line of a recorded kernel costs: its hint and its figures in words") {
  const SourceRow rows[] = {
      {"examples/saxpy.rs", "$0*y.add(i) = a * *x.add(i) + *y.add(i);", EXPECT(R"~(
6 live
peak 6 registers live, 3 uniform; global: 2 loads 1 store (32-bit); global load f32 ×2: coalesced (4 sectors per request); global store f32 ×1: coalesced (4 sectors per request); issue ≥ 32 cycles (stall counts: a lower bound)
)~")},
      {"tests/fixtures/local_array.rs", "$0// <- update", EXPECT(R"~(
9 live · LDL ×1 · STL ×1
peak 9 registers live, 3 uniform; local memory: LDL ×1, STL ×1, 2 per-thread array; local load f32 ×1: address depends on loaded data: unknown; local store f32 ×1: address depends on loaded data: unknown; issue ≥ 16 cycles (stall counts: a lower bound)
)~")},
      {"examples/saxpy.rs", "$0use core::arch::nvptx;", EXPECT(R"~((no cost))~")},
  };
  checkRows(rows, [](const server::Snapshot& s, int line) {
    for (const lsp::LineCostInfo& c : server::lineCostsOf(s).lines)
      if (c.line == line) return c.hint + "\n" + c.text;
    return std::string("(no cost)");
  });
}

TEST_CASE("each recorded kernel's register pressure and the lines to look at first") {
  struct Row {
    const char* kernel;
    Expect expect;
  };
  const Row rows[] = {
      {"examples/saxpy.rs", EXPECT(R"~(
saxpy: 10 registers → 100% at 256 threads; the peak is 6 live at line 12; fewer registers would not raise it (limited by warps) (4 more allocated than live at the peak: registers are named, not packed: the code uses R0..R7 though at most 6 hold a value at once; ptxas reserves 2 beyond the highest it names (two for the ABI's program counter and stack, rounded to an even count))
look first at 11: the register peak of saxpy: 6 live of 10 allocated
look first at 9: the most issue cycles: ≥ 22
)~")},
      {"tests/fixtures/local_array.rs", EXPECT(R"~(
gather_local: 32 registers → 100% at 256 threads; the peak is 29 live at line 17; fewer registers would not raise it (limited by registers, warps) (3 more allocated than live at the peak: registers are named, not packed: the code uses R0..R29 though at most 29 hold a value at once; ptxas reserves 2 beyond the highest it names (two for the ABI's program counter and stack, rounded to an even count))
look first at 16: a per-thread array in local memory: 32 local-memory instructions
look first at 19: a per-thread array in local memory: 2 local-memory instructions
look first at 20: a per-thread array in local memory: 2 local-memory instructions
)~")},
  };
  for (const Row& row : rows) {
    CAPTURE(row.kernel);
    const lsp::LineCostsResult costs = server::lineCostsOf(*recordedSnapshot(row.kernel));
    std::string text;
    for (const lsp::KernelCostInfo& k : costs.kernels)
      text += k.name + ": " + k.summary +
              (k.registerNote.empty() ? "" : " (" + k.registerNote + ")") + "\n";
    for (const lsp::LookFirst& l : costs.lookFirst)  // 0-based lines, as on the wire
      text += "look first at " + std::to_string(l.line) + ": " + l.why + "\n";
    row.expect.check(text);
  }
}

TEST_CASE("where the values of a recorded kernel's SASS instruction come from and go") {
  const ArtifactRow rows[] = {
      {"examples/saxpy.rs", Stage::Sass, "$0FADD",
       EXPECT(
           R"~(R0 from the FMUL at 0x0100 — line 12; R7 from the LDG.E at 0x00f0 — line 12; R7 used by the STG.E at 0x0120 — line 12)~")},
      {"examples/saxpy.rs", Stage::Sass, "$0STG.E",
       EXPECT(
           R"~(R4.64 from the IMAD.WIDE.U32 at 0x00e0 — line 12; R7 from the FADD at 0x0110 — line 12)~")},
      {"examples/saxpy.rs", Stage::Sass, "$0.headerflags", EXPECT(R"~((no instruction))~")},
  };
  checkRows(rows, [](const server::Snapshot& s, Stage, int line) {
    const std::string sassUri = server::virtualUri(Stage::Sass, s.path);
    const server::UriOf uriOf = [](const std::string& path) { return lsp::pathToFileUri(path); };
    const lsp::ValueFlowResult flow = server::valueFlowOf(s, line, sassUri, nullptr, uriOf);
    return flow.instruction ? flow.text : std::string("(no instruction)");
  });
}

}  // namespace ks::test
