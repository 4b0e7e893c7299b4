// What each line costs (Costs.h), checked against the tools themselves: per-line live
// registers against nvdisasm's own per-instruction counts, control codes against
// nvdisasm's `-hex` encoding, local memory against ptxas's report and the IR.
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <regex>

#include "CostSummary.h"
#include "Costs.h"
#include "NvdisasmTable.h"
#include "TestSupport.h"
#include "TextUtil.h"

namespace ks {
namespace fs = std::filesystem;

TEST_CASE(
    "per-line live registers are the peak of nvdisasm's counts over the line's instructions") {
  test::requireToolchain();
  size_t linesChecked = 0;
  // Every example and every fixture that compiles (the broken one does not; the cargo
  // fixture is a crate, compiled by CargoTest).
  // The CUDA examples too, where nvcc is at hand: ptxas's code for C++ is counted as well.
  std::vector<std::string> kernels = test::compilingKernels();
  for (const char* more :
       {"tests/fixtures/access.rs", "tests/fixtures/bounds_check.rs",
        "tests/fixtures/core_calls.rs", "tests/fixtures/gpu/half.rs",
        "tests/fixtures/gpu/params.rs", "tests/fixtures/gpu/scalars.rs",
        "tests/fixtures/gpu/coalesce/before.rs", "tests/fixtures/gpu/coalesce/after.rs"})
    kernels.emplace_back(more);
  if (test::toolchain().nvcc.found())
    for (const auto& e : fs::directory_iterator(test::sourceDir() / "examples" / "cuda"))
      if (e.path().extension() == ".cu")
        kernels.push_back(fs::relative(e.path(), test::sourceDir()).string());
  size_t instructionsChecked = 0;
  for (const auto& k : kernels) {
    CAPTURE(k);
    const fs::path file = test::sourceDir() / k;
    const CompileResult& r = test::compiled(file);
    REQUIRE(r.succeeded);
    const StageOutcome* sass = r.stage(Stage::Sass);
    REQUIRE(sass);
    REQUIRE(sass->available);
    REQUIRE(r.costs);
    CHECK(r.costs->liveCounts);
    const std::string plr = test::nvdisasmOfKernels(r, {"-c", "-plr", "-lrm", "count"});
    if (plr.empty()) {
      MESSAGE("no loadable cubin for " << k << ": its counts are checked only as present");
      continue;
    }
    const auto counts = test::nvdisasmLiveCounts(plr);
    const Artifact& a = *sass->artifact;
    // nvdisasm's count of an instruction; none for code its table leaves blank (unreachable
    // padding, the targets of a jump table it does not follow).
    auto expectedAt = [&](uint32_t l) -> std::optional<test::LiveCounts> {
      const auto addr = test::addressOfLine(a.lineText(l));
      REQUIRE(addr);
      REQUIRE(a.lines()[l].function >= 0);
      auto it = counts.find({a.functions[a.lines()[l].function].symbol, *addr});
      if (it == counts.end()) return std::nullopt;
      return it->second;
    };
    // Every instruction has nvdisasm's count, where it gives one.
    size_t counted = 0, instructions = 0;
    for (size_t l = 0; l < a.lines().size(); ++l)
      if (a.lines()[l].kind == LineKind::Instruction) {
        ++instructions;
        const auto expected = expectedAt(static_cast<uint32_t>(l));
        CHECK(r.costs->lines[l].hasLive == expected.has_value());
        if (!expected) continue;
        ++counted;
        CAPTURE(a.lineText(l));
        CHECK(r.costs->lines[l].gpr == expected->gpr);
        CHECK(r.costs->lines[l].pred == expected->pred);
        CHECK(r.costs->lines[l].ugpr == expected->ugpr);
      }
    CHECK(counted * 2 > instructions);  // what it leaves blank is mostly the NOP padding
    instructionsChecked += counted;
    // Per source line, inline-aware: the direct instructions and those inlined through it.
    for (const SourceLine& src : r.lineMap->sourceLinesWithCode(Stage::Sass, true)) {
      CAPTURE(src.line);
      const StageLines& sl = r.lineMap->linesFor(Stage::Sass, src);
      test::LiveCounts peak;
      for (const auto* lines : {&sl.direct, &sl.inlined})
        for (uint32_t l : *lines)
          if (const auto c = expectedAt(l)) {
            peak.gpr = std::max(peak.gpr, c->gpr);
            peak.pred = std::max(peak.pred, c->pred);
            peak.ugpr = std::max(peak.ugpr, c->ugpr);
          }
      const LineCost cost = lineCost(a, *r.lineMap, *r.costs, src);
      CHECK(cost.peakGpr == peak.gpr);
      CHECK(cost.peakPred == peak.pred);
      CHECK(cost.peakUgpr == peak.ugpr);
      ++linesChecked;
    }
  }
  CHECK(linesChecked > 50);
  MESSAGE(instructionsChecked << " instructions compared with nvdisasm's counts");
  CHECK(instructionsChecked > 3000);
}

TEST_CASE("control codes read from the cubin are the bits nvdisasm -hex prints") {
  test::requireToolchain();
  const fs::path file = test::sourceDir() / "examples" / "matmul_tiled.rs";
  const CompileResult& r = test::compiled(file);
  REQUIRE(r.costs);
  REQUIRE(r.costs->controlCodes);
  // nvdisasm -hex prints each instruction's two 64-bit words; the second holds the control.
  const std::string hex = test::nvdisasmOfKernels(r, {"-c", "-hex"});
  REQUIRE(!hex.empty());
  static const std::regex first(R"(/\*([0-9a-f]{4,})\*/.*/\* 0x[0-9a-f]{16} \*/)");
  static const std::regex second(R"(^\s+/\* 0x([0-9a-f]{16}) \*/)");
  static const std::regex section(R"(//-+ \.text\.(\S+))");
  std::map<std::pair<std::string, uint32_t>, uint64_t> high;
  std::string fn;
  int64_t pending = -1;  // the address whose second word comes next
  for (std::string_view view : splitLines(hex)) {
    const std::string line(view);
    std::smatch m;
    if (std::regex_search(line, m, section))
      fn = m[1];
    else if (std::regex_search(line, m, first))
      pending = static_cast<int64_t>(std::stoul(m[1], nullptr, 16));
    else if (pending >= 0 && std::regex_search(line, m, second)) {
      high.try_emplace({fn, static_cast<uint32_t>(pending)}, std::stoull(m[1], nullptr, 16));
      pending = -1;
    }
  }
  const Artifact& a = *r.stage(Stage::Sass)->artifact;
  size_t checked = 0, loads = 0;
  for (size_t l = 0; l < a.lines().size(); ++l) {
    if (a.lines()[l].kind != LineKind::Instruction) continue;
    const InstructionCost& c = r.costs->lines[l];
    REQUIRE(c.hasControl);
    auto it = high.find({a.functions[a.lines()[l].function].symbol, c.address});
    REQUIRE(it != high.end());
    CHECK(c.control == decodeControlCode(it->second));
    ++checked;
    // A load from global or shared memory has a variable latency: its result is waited on
    // through a scoreboard it sets, and a later instruction waits on that scoreboard.
    const std::string_view op = sassOpcode(a.lineText(l));
    if (op.starts_with("LDG") || op.starts_with("LDS")) {
      ++loads;
      CHECK(c.control.writeBarrier != 7);
      bool waited = false;
      for (size_t n = l + 1; n < a.lines().size() && !waited; ++n)
        waited = r.costs->lines.size() > n && r.costs->lines[n].hasControl &&
                 (r.costs->lines[n].control.waitMask & (1u << c.control.writeBarrier));
      CHECK(waited);
    }
  }
  CHECK(checked == a.instructionCount());
  CHECK(loads > 0);
  // The words explain the wait: a waiting instruction names the load's address and line.
  bool named = false;
  for (size_t l = 0; l < a.lines().size() && !named; ++l)
    for (const std::string& w : describeWaits(a, *r.lineMap, *r.costs, static_cast<uint32_t>(l)))
      named |= w.find("the LDG") != std::string::npos && w.find(" at 0x") != std::string::npos &&
               w.find(" — line ") != std::string::npos;
  CHECK(named);
}

TEST_CASE("a per-thread array indexed at run time is located in local memory, not called a spill") {
  test::requireToolchain();
  test::Fixture f(test::sourceDir() / "tests" / "fixtures" / "local_array.rs");
  const CompileResult& r = test::compiled(f.path);
  REQUIRE(r.costs);
  REQUIRE(r.kernels.size() == 1);
  REQUIRE(r.kernels[0].resources);
  CHECK(r.kernels[0].resources->spillStores == 0);  // ptxas: nothing spilled
  const Artifact& a = *r.stage(Stage::Sass)->artifact;
  size_t local = 0;
  for (size_t l = 0; l < a.lines().size(); ++l) {
    const std::string_view op = sassOpcode(a.lineText(l));
    if (a.lines()[l].kind != LineKind::Instruction ||
        !(op.starts_with("LDL") || op.starts_with("STL")))
      continue;
    ++local;
    CHECK(r.costs->lines[l].local == LocalUse::Array);
  }
  CHECK(local > 0);
  const std::string file = normalizePath(f.path.string());
  for (const char* marker : {"update", "read"}) {
    const LineCost c = lineCost(a, *r.lineMap, *r.costs, {file, f.line(marker)});
    CHECK(c.ldl + c.stl > 0);
    CHECK(c.arrayOps == c.ldl + c.stl);
    CHECK(c.spillOps == 0);
  }
  // The IR says why: the alloca that stayed, indexed at run time on the lines that pick.
  REQUIRE(r.costs->arrays.size() == 1);
  const LocalArray& arr = r.costs->arrays[0];
  CHECK(arr.bytes == 256);
  CHECK(std::find(arr.indexedAt.begin(), arr.indexedAt.end(), SourceLine{file, f.line("update")}) !=
        arr.indexedAt.end());
  CHECK(std::find(arr.indexedAt.begin(), arr.indexedAt.end(), SourceLine{file, f.line("read")}) !=
        arr.indexedAt.end());
  // The kernel's summary: allocated against peak, and the lines to look at first.
  const lsp::LineCostsResult costs = lineCostsOf(r, file, 1);
  REQUIRE(costs.kernels.size() == 1);
  CHECK(costs.kernels[0].peakLive);
  CHECK(*costs.kernels[0].peakLive <= costs.kernels[0].allocated);
  CHECK(costs.kernels[0].summary.find("registers → ") != std::string::npos);
  CHECK(!costs.lookFirst.empty());
  CHECK(costs.lookFirst[0].why.find("per-thread array") != std::string::npos);
}

TEST_CASE("the occupancy step: the most registers that give the next occupancy") {
  // 64 registers at 256 threads on sm_90 allow 4 blocks (50%); the step is the largest
  // register count at which the occupancy model allows more, and one more gives no more.
  KernelResources res;
  res.registers = 64;
  Artifact sass(Stage::Sass, "//--------------------- .text.k --------------------------\n");
  sass.functions.push_back({"k", "k", 0, 0, true, {}});
  LineMap map({});
  SassCosts costs;
  const KernelCost k = kernelCost(sass, map, costs, "k", res, "sm_90", 256);
  REQUIRE(k.now);
  REQUIRE(k.stepRegisters);
  REQUIRE(k.step);
  CHECK(k.step->warpsPerSm > k.now->warpsPerSm);
  OccupancyInput in;
  in.blockSize = 256;
  in.registers = *k.stepRegisters + 1;
  CHECK(computeOccupancy(*archLimits("sm_90"), in).warpsPerSm == k.now->warpsPerSm);
}

}  // namespace ks
