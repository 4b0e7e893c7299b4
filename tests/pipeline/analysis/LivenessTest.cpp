// kernelscope's own liveness (Liveness.h) against nvdisasm's life ranges (`nvdisasm -c -plr
// -lrm count`), instruction by instruction, on every example and fixture that compiles.
#include <doctest/doctest.h>

#include <fstream>
#include <map>

#include "Costs.h"
#include "Liveness.h"
#include "TestSupport.h"

namespace ks {
namespace fs = std::filesystem;

namespace {

std::string nvdisasmLiveCounts(const std::string& cubin) {
  TempDir dir("liveness-test");
  const fs::path file = dir.path() / "k.cubin";
  std::ofstream(file, std::ios::binary) << cubin;
  ProcessSpec p;
  p.argv = {test::toolchain().nvdisasm.path.string(), "-c", "-plr", "-lrm", "count", file.string()};
  ProcessResult r = runProcess(p);
  REQUIRE_MESSAGE(r.ok(), r.err);
  return r.out;
}

}  // namespace

TEST_CASE("own liveness counts what nvdisasm's life ranges count, on every example and fixture") {
  test::requireToolchain();
  std::vector<std::string> kernels = test::compilingKernels();
  for (const char* more :
       {"tests/fixtures/access.rs", "tests/fixtures/bounds_check.rs",
        "tests/fixtures/core_calls.rs", "tests/fixtures/gpu/half.rs",
        "tests/fixtures/gpu/params.rs", "tests/fixtures/gpu/scalars.rs",
        "tests/fixtures/gpu/coalesce/before.rs", "tests/fixtures/gpu/coalesce/after.rs"})
    kernels.emplace_back(more);
  const bool nvcc = test::toolchain().nvcc.found();
  if (nvcc)
    for (const auto& e : fs::directory_iterator(test::sourceDir() / "examples" / "cuda"))
      if (e.path().extension() == ".cu")
        kernels.push_back(fs::relative(e.path(), test::sourceDir()).string());
  // Where the two still differ, by function: nvdisasm keeps some values counted past their
  // last read until the register is written again by another value (README, "What each line
  // costs"); each such instruction is off by one or two registers.
  const std::map<std::string, size_t> known = {
      {"examples/matmul_naive.rs:matmul_naive", 75},
      {"tests/fixtures/iterators.rs:row_dot", 4},
      {"examples/cuda/reduce_sum.cu:reduce_sum", 2},
  };
  size_t compared = 0, cubins = 0;
  std::map<std::string, size_t> differing;
  for (const auto& k : kernels) {
    CAPTURE(k);
    const CompileResult& r = test::compiled(test::sourceDir() / k);
    REQUIRE(r.succeeded);
    const StageOutcome* sass = r.stage(Stage::Sass);
    REQUIRE(sass);
    REQUIRE(sass->available);
    if (!r.cubin) {
      MESSAGE("no loadable cubin for " << k);
      continue;
    }
    ++cubins;
    const Artifact& a = *sass->artifact;
    SassCosts theirs, ours;
    REQUIRE(readLiveRegisters(a, nvdisasmLiveCounts(*r.cubin), theirs) > 0);
    REQUIRE(countLiveRegisters(a, *r.cubin, ours) > 0);
    for (size_t l = 0; l < a.lines().size(); ++l) {
      if (a.lines()[l].kind != LineKind::Instruction) continue;
      CAPTURE(a.lineText(l));
      const InstructionCost &t = theirs.lines[l], &o = ours.lines[l];
      // The same instructions listed (nvdisasm leaves out the code nothing reaches).
      CHECK(o.hasLive == t.hasLive);
      if (!t.hasLive) continue;
      ++compared;
      if (o.gpr == t.gpr && o.pred == t.pred && o.ugpr == t.ugpr) continue;
      const std::string fn = k + ":" + a.functions[a.lines()[l].function].symbol;
      ++differing[fn];
      CHECK(known.count(fn) == 1);
      const int off = std::abs(int(o.gpr) - int(t.gpr)) + std::abs(int(o.pred) - int(t.pred)) +
                      std::abs(int(o.ugpr) - int(t.ugpr));
      CHECK(off <= 2);
    }
  }
  for (const auto& entry : known) {
    CAPTURE(entry.first);
    CHECK(differing[entry.first] == entry.second);
  }
  MESSAGE(compared << " instructions of " << cubins << " cubins compared");
  CHECK(compared > 3000);
}

TEST_CASE("the liveness of a call: what the call reads and clobbers, and a callee of its own") {
  // A kernel calling a function ptxas keeps apart (`$kernel$callee`) and returning from it:
  // nvdisasm counts the callee on its own (its registers arrive set), a call reading R0 and
  // the stack pointer R1, a return reading R1, R2 and its 64-bit target.
  test::requireToolchain();
  const CompileResult& r = test::compiled(test::sourceDir() / "tests/fixtures/spin_after_panic.rs");
  REQUIRE(r.cubin);
  const Artifact& a = *r.stage(Stage::Sass)->artifact;
  SassCosts theirs, ours;
  readLiveRegisters(a, nvdisasmLiveCounts(*r.cubin), theirs);
  countLiveRegisters(a, *r.cubin, ours);
  size_t calls = 0, returns = 0;
  for (size_t l = 0; l < a.lines().size(); ++l) {
    const std::string_view op = sassOpcode(a.lineText(l));
    if (a.lines()[l].kind != LineKind::Instruction) continue;
    if (!op.starts_with("CALL") && !op.starts_with("RET")) continue;
    CAPTURE(a.lineText(l));
    (op.starts_with("CALL") ? calls : returns) += 1;
    CHECK(ours.lines[l].hasLive);
    CHECK(ours.lines[l].gpr == theirs.lines[l].gpr);
    CHECK(ours.lines[l].ugpr == theirs.lines[l].ugpr);
  }
  CHECK(calls >= 2);
  CHECK(returns >= 1);
}

}  // namespace ks
