// kernelscope's own liveness (Liveness.h) at calls and returns, against nvdisasm's life
// ranges (`nvdisasm -c -plr -lrm count`). Every other instruction of every example and
// fixture is compared where the costs are (CostsTest).
#include <doctest/doctest.h>

#include "Costs.h"
#include "Liveness.h"
#include "NvdisasmTable.h"
#include "TestSupport.h"

namespace ks {

TEST_CASE("the liveness of a call: what the call reads and clobbers, and a callee of its own") {
  // A kernel calling a function ptxas keeps apart (`$kernel$callee`) and returning from it:
  // nvdisasm counts the callee on its own (its registers arrive set), a call reading R0 and
  // the stack pointer R1, a return reading R1, R2 and its 64-bit target.
  test::requireToolchain();
  const CompileResult& r = test::compiled(test::sourceDir() / "tests/fixtures/spin_after_panic.rs");
  const std::string plr = test::nvdisasmOfKernels(r, {"-c", "-plr", "-lrm", "count"});
  REQUIRE(!plr.empty());
  const Artifact& a = *r.stage(Stage::Sass)->artifact;
  const auto theirs = test::nvdisasmLiveCounts(plr);
  SassCosts ours;
  countLiveRegisters(a, test::codeOfKernels(r), ours);
  size_t calls = 0, returns = 0;
  for (size_t l = 0; l < a.lines().size(); ++l) {
    const std::string_view op = sassOpcode(a.lineText(l));
    if (a.lines()[l].kind != LineKind::Instruction) continue;
    if (!op.starts_with("CALL") && !op.starts_with("RET")) continue;
    CAPTURE(a.lineText(l));
    (op.starts_with("CALL") ? calls : returns) += 1;
    const auto it = theirs.find({a.functions[a.lines()[l].function].symbol, ours.lines[l].address});
    REQUIRE(it != theirs.end());
    CHECK(ours.lines[l].hasLive);
    CHECK(ours.lines[l].gpr == it->second.gpr);
    CHECK(ours.lines[l].ugpr == it->second.ugpr);
  }
  CHECK(calls >= 2);
  CHECK(returns >= 1);
}

}  // namespace ks
