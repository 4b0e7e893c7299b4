// Memory access across a warp (Access.h): one kernel of tests/fixtures/access.rs per
// predicted class, compiled for real; and the predictions against Nsight Compute's counters
// recorded on an H200 (tests/golden/gpu/access/), recomputed here without a GPU.
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "Access.h"
#include "Costs.h"
#include "LineProfile.h"
#include "Ncu.h"
#include "TestSupport.h"

namespace ks {
namespace fs = std::filesystem;

TEST_CASE("sectors per request and bank-conflict ways from the stride between lanes") {
  CHECK(sectorsPerRequest(4, 4) == 4);     // 32 floats side by side: 128 bytes
  CHECK(sectorsPerRequest(0, 4) == 1);     // one address
  CHECK(sectorsPerRequest(8, 4) == 8);     // every other float
  CHECK(sectorsPerRequest(128, 4) == 32);  // a sector per lane
  CHECK(sectorsPerRequest(16, 16) == 16);  // float4, side by side
  CHECK(sectorsPerRequest(-4, 4) == 4);
  CHECK(bankConflictWays(4, 4) == 1);
  CHECK(bankConflictWays(0, 4) == 1);     // broadcast
  CHECK(bankConflictWays(128, 4) == 32);  // tile[tx * 32 + ty]
  CHECK(bankConflictWays(132, 4) == 1);   // a row of 33
  CHECK(bankConflictWays(8, 4) == 2);
  CHECK(bankConflictWays(64, 4) == 16);
  CHECK(bankConflictWays(8, 8) == 1);  // 64-bit, side by side: two wavefronts, no conflict
  CHECK(bankConflictWays(1, 1) == 1);  // bytes of one word
}

namespace {

struct Line {
  LineCost cost;
  std::string text;  // every access clause, one per line
};

Line costAt(const CompileResult& r, const test::Fixture& f, const char* marker) {
  const Artifact& a = *r.stage(Stage::Sass)->artifact;
  Line l;
  l.cost = lineCost(a, *r.lineMap, *r.costs, {normalizePath(f.path.string()), f.line(marker)});
  for (const auto& t : lineAccessTexts(l.cost)) l.text += t + "\n";
  return l;
}

}  // namespace

TEST_CASE("each access class, predicted from the IR of kernels compiled for real") {
  test::requireToolchain();
  test::Fixture f(test::sourceDir() / "tests" / "fixtures" / "access.rs");
  const CompileResult& r = test::compiled(f.path);
  REQUIRE(r.costs);
  REQUIRE_MESSAGE(r.costs->access.analyzed, r.costs->access.error);
  auto has = [&](const char* marker, const std::string& clause) {
    const Line l = costAt(r, f, marker);
    CAPTURE(marker);
    CAPTURE(l.text);
    CHECK(l.text.find(clause) != std::string::npos);
    return l;
  };
  // Global memory, against threadIdx.x.
  has("row_load", "global load f32 ×1: coalesced (4 sectors per request)");
  has("column_store", "global store f32 ×1: stride n floats: up to 32 sectors per request");
  has("stride_load", "global load f32 ×1: stride 32 floats: 32 sectors per request (ideal 4)");
  has("stride_load", "global store f32 ×1: coalesced");
  has("broadcast_load", "global load f32 ×1: uniform: one address per warp, broadcast");
  has("gather_load", "global load f32 ×1: address depends on loaded data: unknown");
  has("gather_load", "global load i32 ×1: coalesced");
  // Shared memory through `cvta.shared`: the bank-conflict class from the same stride.
  const Line column = has("tile_column_read",
                          "shared load f32 (generic pointer) ×1: 32-way bank conflict "
                          "(stride 32 words)");
  has("padded_column_read",
      "shared load f32 (generic pointer) ×1: no bank conflict (stride 33 words)");
  has("tile_row_write",
      "shared store f32 (generic pointer) ×1: no bank conflict (consecutive words)");
  // The SASS does the generic pointer's access with a generic instruction.
  const bool genericSass = std::any_of(column.cost.memory.begin(), column.cost.memory.end(),
                                       [](const MemoryOps& m) { return m.space == "generic"; });
  CHECK((column.text.find("done by generic LD/ST") != std::string::npos) == genericSass);
  // Divergence: the thread index's parity splits the warp; a row's load does not branch.
  const Line lane = has("lane_branch", "branch may diverge (depends on the thread index)");
  CHECK(lane.cost.mayDiverge);
  CHECK_FALSE(costAt(r, f, "row_load").cost.mayDiverge);
  // A per-thread array: the accesses are local, through the alloca.
  has("table_read", "local load f32");

  // The short form (inlay hints, `check`'s summary) names what a warp pays more than once for.
  auto hint = [&](const char* marker) { return lineCostHint(costAt(r, f, marker).cost); };
  CHECK(hint("tile_column_read").find("32-way conflict") != std::string::npos);
  CHECK(hint("stride_load").find("8× sectors") != std::string::npos);
  CHECK(hint("column_store").find("stride n") != std::string::npos);
  for (const char* quiet : {"row_load", "padded_column_read", "broadcast_load"}) {
    CAPTURE(quiet);
    CHECK(hint(quiet).find("conflict") == std::string::npos);
    CHECK(hint(quiet).find("sectors") == std::string::npos);
    CHECK(hint(quiet).find("stride") == std::string::npos);
  }
}

namespace {

/// The cells of one quoted CSV record (ncu's raw page), read by this test on its own.
std::vector<std::string> csvCells(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  bool quoted = false;
  for (char c : line) {
    if (c == '"')
      quoted = !quoted;
    else if (c == ',' && !quoted)
      out.push_back(std::exchange(cell, {}));
    else
      cell += c;
  }
  out.push_back(cell);
  return out;
}

/// ncu's `launch__registers_per_thread` from a result's raw page.
std::optional<int> registersOf(const std::string& raw) {
  std::vector<std::string> header;
  for (std::string_view view : splitLines(raw)) {
    const std::string line(view);
    if (line.starts_with("\"ID\"")) {
      header = csvCells(line);
      continue;
    }
    if (header.empty() || !line.starts_with("\"")) continue;
    const auto cells = csvCells(line);
    for (size_t i = 0; i < header.size() && i < cells.size(); ++i)
      // The first row after the header gives the units; the launch's row a number.
      if (header[i] == "launch__registers_per_thread" && !cells[i].empty() &&
          std::isdigit(static_cast<unsigned char>(cells[i][0])))
        return std::stoi(cells[i]);
  }
  return std::nullopt;
}

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(digits);
  s << v;
  return s.str();
}

struct Tally {
  int agree = 0, disagree = 0;
  std::string rows;
  void row(const std::string& kernel, uint32_t line, const std::string& what,
           const std::string& predicted, const std::string& measured, std::optional<bool> ok) {
    if (ok) ++(*ok ? agree : disagree);
    rows += "| " + kernel + " | " + std::to_string(line) + " | " + what + " | " + predicted +
            " | " + measured + " | " +
            (!ok   ? "—"
             : *ok ? "yes"
                   : "**no**") +
            " |\n";
  }
};

/// Compares the static prediction of every line of `kernel` with its measured counters.
void compareKernel(const CompileResult& r, const std::string& kernel,
                   const gpu::KernelLineProfile& measured, std::optional<int> registers, Tally& t) {
  const Artifact& sass = *r.stage(Stage::Sass)->artifact;
  for (const gpu::LineCounters& m : measured.lines) {
    if (m.line == 0 || m.executed == 0) continue;
    const SourceLine src{m.file, m.line};
    const LineCost c = lineCost(sass, *r.lineMap, *r.costs, src);
    // Global: sectors per ideal sector over the line's global accesses.
    double sectors = 0, ideal = 0;
    bool global = false, known = true, symbolic = false;
    uint32_t ways = 0;
    bool shared = false, sharedKnown = true;
    for (const MemoryAccess& a : r.costs->access.accesses) {
      if (a.function != kernel || a.line != src) continue;
      if (a.space == "global") {
        global = true;
        if (a.sectors)
          sectors += a.sectors, ideal += a.idealSectors;
        else if (!a.symbolicStride.empty())
          symbolic = true;
        else
          known = false;
      }
      if (a.space == "shared") {
        shared = true;
        if (a.bankWays)
          ways = std::max(ways, a.bankWays);
        else
          sharedKnown = false;
      }
    }
    if (global && m.l2SectorsIdeal > 0) {
      const double got = m.sectorsPerIdeal();
      std::string predicted;
      std::optional<bool> ok;
      if (!known) {
        predicted = "unknown";
      } else if (symbolic) {
        predicted = "strided (run-time stride): > 1";
        ok = got > 1.5;
      } else {
        const double want = ideal > 0 ? sectors / ideal : 1;
        predicted = fixed(want, 2);
        ok = std::abs(got - want) <= 0.3 * want;
      }
      t.row(kernel, m.line, "global sectors / ideal", predicted, fixed(got, 2), ok);
    }
    if (shared || m.sharedConflictWays > 0) {
      const std::string predicted = !shared       ? "no shared access"
                                    : sharedKnown ? std::to_string(ways) + "-way"
                                                  : "unknown";
      std::optional<bool> ok;
      if (shared && sharedKnown)
        ok = std::abs(m.sharedConflictWays - ways) <= std::max(1.0, 0.2 * ways);
      t.row(kernel, m.line, "shared bank conflict", predicted,
            fixed(m.sharedConflictWays, 1) + "-way", ok);
    }
    if (c.ldl + c.stl > 0 || m.l2SectorsLocal > 0)
      t.row(kernel, m.line, "local memory",
            std::to_string(c.ldl + c.stl) + " LDL/STL" + (c.spillOps ? " (spill)" : ""),
            fixed(m.l2SectorsLocal, 0) + " sectors", (c.ldl + c.stl > 0) == (m.l2SectorsLocal > 0));
    if (c.mayDiverge || m.divergentBranches > 0)
      t.row(kernel, m.line, "divergent branch", c.mayDiverge ? "may diverge" : "uniform",
            fixed(m.divergentBranches, 0) + " divergent",
            c.mayDiverge == (m.divergentBranches > 0));
  }
  std::optional<KernelResources> resources;
  for (const auto& ki : r.kernels)
    if (ki.symbol == kernel) resources = ki.resources;
  const KernelCost k = kernelCost(sass, *r.lineMap, *r.costs, kernel, resources, r.arch, 256);
  if (k.hasLive && registers)
    t.row(kernel, 0, "registers", std::to_string(k.peakGpr) + " peak live",
          std::to_string(*registers) + " allocated", k.peakGpr <= uint32_t(*registers));
}

}  // namespace

TEST_CASE("static predictions against Nsight Compute on an H200, recomputed from recorded runs") {
  test::requireToolchain();
  const fs::path dir = test::sourceDir() / "tests" / "golden" / "gpu" / "access";
  // (result file, source file, kernel)
  std::vector<std::tuple<std::string, std::string, std::string>> runs;
  for (const char* k : {"transpose_naive", "transpose_tile", "transpose_padded", "stride_32",
                        "broadcast_gather", "diverge", "local_table", "pressure"})
    runs.emplace_back(k, "tests/fixtures/access.rs", k);
  for (const char* ex :
       {"saxpy", "vector_add", "elementwise_mul", "reduce_sum", "matmul_naive", "matmul_tiled"})
    runs.emplace_back(ex, std::string("examples/") + ex + ".rs", ex);
  Tally t;
  for (const auto& run : runs) {
    // No structured binding: clang 14 cannot capture one in CAPTURE's lambda.
    const auto& [name, file, kernel] = run;
    CAPTURE(std::get<0>(run));
    const fs::path recorded = dir / (name + ".profile.result");
    REQUIRE(fs::exists(recorded));
    const std::string recordedText = readWholeFile(recorded);
    const auto result = nlohmann::json::parse(text::firstLine(recordedText));
    REQUIRE(result["ok"].get<bool>());
    gpu::NcuSourceProfile profile;
    REQUIRE(gpu::parseNcuSourceCsv(result["ncuSource"].get<std::string>(), profile).empty());
    const CompileResult& r = test::compiled(test::sourceDir() / file);
    REQUIRE(r.costs);
    std::string problem;
    auto lines = gpu::attributeToLines(
        profile, kernel, *r.stage(Stage::Sass)->artifact,
        [&](const std::string& f) { return r.lineMap->isUserFile(f); }, problem);
    REQUIRE_MESSAGE(lines, problem);
    compareKernel(r, kernel, *lines, registersOf(result["ncuMetrics"].get<std::string>()), t);
  }
  const std::string table =
      "| kernel | line | what | static | measured (ncu, H200) | agree |\n"
      "|---|---|---|---|---|---|\n" +
      t.rows + "\nagree: " + std::to_string(t.agree) + ", disagree: " + std::to_string(t.disagree) +
      "\n";
  test::checkGolden(dir / "agreement.md", table);
  // Most predictions hold; the ones that do not are named in the README.
  CHECK(t.agree > 3 * t.disagree);
}

}  // namespace ks
