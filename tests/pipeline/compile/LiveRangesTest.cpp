// The live registers of the costs, per function and cached by the function's code
// (LiveRanges.h): after any edit, the counts of a compile with the cache warm are those of a
// compile with an empty cache and of one nvdisasm run over the whole cubin.
#include <doctest/doctest.h>

#include <fstream>
#include <random>

#include "Compile.h"
#include "Costs.h"
#include "Files.h"
#include "LiveRanges.h"
#include "TestSupport.h"

using namespace ks;
namespace fs = std::filesystem;

namespace {

/// `n` kernels of one shape, kernel k scaling by `scale[k]`.
std::string kernels(const std::vector<int>& scale) {
  std::string s =
      "#![no_std]\n#![feature(abi_ptx, stdarch_nvptx)]\nuse core::arch::nvptx;\n"
      "#[panic_handler]\nfn panic(_: &core::panic::PanicInfo) -> ! {\n    loop {}\n}\n";
  for (size_t k = 0; k < scale.size(); ++k)
    s += "#[no_mangle]\npub unsafe extern \"ptx-kernel\" fn kernel_" + std::to_string(k) +
         "(x: *const f32, y: *mut f32, n: usize) {\n"
         "    let i = nvptx::_block_idx_x() as usize * nvptx::_block_dim_x() as usize\n"
         "        + nvptx::_thread_idx_x() as usize;\n"
         "    if i >= n { return; }\n"
         "    let xs = core::slice::from_raw_parts(x, n);\n"
         "    let mut acc = 0.0f32;\n"
         "    for j in 0.." +
         std::to_string(2 + k % 3) +
         " { acc = acc * 0.5 + xs.get(i + j).copied().unwrap_or(0.0); }\n"
         "    *y.add(i) = acc / " +
         std::to_string(scale[k]) + ".0;\n}\n";
  return s;
}

struct Compiled {
  CompileResult result;
  std::string cubin;
};

Compiled compile(const fs::path& file, const std::string& text, const fs::path& temps) {
  ResolvedOptions opts;
  opts.saveTempsDir = temps;
  Compiled c{compileKernel(test::toolchain(), {file, text}, opts), {}};
  REQUIRE(c.result.succeeded);
  REQUIRE(c.result.costs);
  c.cubin = readWholeFile(temps / "k.cubin");
  REQUIRE_FALSE(c.cubin.empty());
  return c;
}

/// The live counts of every SASS line, as the costs hold them.
std::vector<std::tuple<bool, int, int, int>> liveCounts(const CompileResult& r) {
  std::vector<std::tuple<bool, int, int, int>> out;
  for (const auto& c : r.costs->lines) out.emplace_back(c.hasLive, c.gpr, c.pred, c.ugpr);
  return out;
}

}  // namespace

TEST_CASE(
    "live registers after random edits are those of a clean compile, and only the edited "
    "kernels are analysed again") {
  test::requireToolchain();
  const Toolchain& tc = test::toolchain();
  TempDir dir("live-ranges-test");
  const fs::path file = dir.path() / "many.rs";
  std::vector<int> scale{3, 5, 7, 9, 11, 13};
  std::ofstream(file) << kernels(scale);
  clearLiveRangeCache();
  Compiled before = compile(file, kernels(scale), dir.path() / "first");
  CHECK(before.result.costs->liveCounts);
  // The first compile analysed every function; its counts are one whole run's.
  const fs::path cubin = dir.path() / "first" / "k.cubin";
  LiveRangeRun again = liveRanges(tc, {}, {}, cubin);
  REQUIRE(again.run.ok());
  CHECK(again.functions == scale.size());
  CHECK(again.analysed == 0);
  ProcessSpec whole;
  whole.argv = {tc.nvdisasm.path.string(), "-c", "-plr", "-lrm", "count", cubin.string()};
  ProcessResult all = runProcess(whole);
  REQUIRE(all.ok());
  const Artifact& sass = *before.result.stage(Stage::Sass)->artifact;
  SassCosts fromWhole, fromCache;
  const size_t matched = readLiveRegisters(sass, all.out, fromWhole);
  CHECK(matched > 100);
  CHECK(readLiveRegisters(sass, again.run.out, fromCache) == matched);
  for (size_t l = 0; l < sass.lines().size(); ++l) {
    CAPTURE(sass.lineText(l));
    CHECK(fromCache.lines[l].gpr == fromWhole.lines[l].gpr);
    CHECK(fromCache.lines[l].pred == fromWhole.lines[l].pred);
    CHECK(fromCache.lines[l].ugpr == fromWhole.lines[l].ugpr);
    CHECK(fromCache.lines[l].hasLive == fromWhole.lines[l].hasLive);
  }
  // A sequence of edits, each to one kernel chosen by a fixed seed.
  std::mt19937 random(30);
  for (int edit = 1; edit <= 3; ++edit) {
    const size_t k = random() % scale.size();
    scale[k] += 100 * edit;
    CAPTURE(edit);
    CAPTURE(k);
    const std::string text = kernels(scale);
    const fs::path temps = dir.path() / ("edit" + std::to_string(edit));
    Compiled warm = compile(file, text, temps);
    // Only the edited kernel's code changed: the others' counts were cached.
    clearLiveRangeCache();
    LiveRangeRun cold = liveRanges(tc, {}, {}, temps / "k.cubin");
    REQUIRE(cold.run.ok());
    CHECK(cold.analysed == scale.size());
    Compiled clean = compile(file, text, dir.path() / ("clean" + std::to_string(edit)));
    CHECK(warm.cubin == clean.cubin);
    CHECK(liveCounts(warm.result) == liveCounts(clean.result));
    CHECK(warm.result.costs->liveCounts);
    // Warm again (every function cached), the file with one more kernel edited: one analysed.
    std::vector<int> next = scale;
    next[(k + 1) % next.size()] += 1;
    const fs::path nextTemps = dir.path() / ("next" + std::to_string(edit));
    compile(file, kernels(next), nextTemps);
    clearLiveRangeCache();
    compile(file, text, dir.path() / ("rewarm" + std::to_string(edit)));
    LiveRangeRun one = liveRanges(tc, {}, {}, nextTemps / "k.cubin");
    REQUIRE(one.run.ok());
    CHECK(one.analysed == 1);
  }
  CHECK(liveRangeCacheBytes() > 0);
}
