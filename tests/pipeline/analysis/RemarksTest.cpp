// Optimizer remarks on the user's lines: golden tests of the attribution on the remarks and
// LLVM IR recorded in tests/golden, the filters, and the remarks of a real compile.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <set>
#include <sstream>

#include "Parsers.h"
#include "Remarks.h"
#include "TestSupport.h"

using namespace ks;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kRecorded = {"saxpy",      "vector_add",   "elementwise_mul",
                                            "reduce_sum", "matmul_naive", "matmul_tiled",
                                            "atomics",    "iterators"};

std::string base(const std::string& path) { return fs::path(path).filename().string(); }

/// The recorded remarks of one kernel, attributed with its recorded LLVM IR. The user's
/// files are those of the IR outside the Rust library.
std::vector<Remark> attributedRemarks(const fs::path& dir) {
  Artifact ir = parseLlvmIr(readWholeFile(dir / "k.ll"));
  std::set<std::string> users;
  for (const auto& l : ir.lines())
    for (const auto& f : l.location)
      if (f.file.find("/rustlib/") == std::string::npos) users.insert(f.file);
  LineMap map(std::vector<std::string>(users.begin(), users.end()));
  std::vector<Remark> remarks;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().starts_with("remarks.") && e.path().extension() == ".yaml")
      for (auto& r : parseRemarksYaml(readWholeFile(e.path())))
        if (!isBookkeepingRemark(r)) remarks.push_back(std::move(r));
  return attributeRemarks(std::move(remarks), ir, map);
}

std::string dump(const std::vector<Remark>& remarks) {
  std::ostringstream out;
  for (const auto& r : remarks) {
    out << (r.userLocation ? base(r.userLocation->file) + ":" + std::to_string(r.userLocation->line)
                           : "-")
        << " " << remarkKindName(r.kind) << " " << r.pass << "/" << r.name << ": "
        << remarkMessage(r);
    if (r.count > 1) out << " (x" << r.count << ")";
    if (r.viaLibrary && r.location)
      out << " [via " << base(r.location->file) << ":" << r.location->line << "]";
    out << "\n";
  }
  return out.str();
}

const Remark* find(const std::vector<Remark>& remarks, std::string_view pass,
                   std::string_view text) {
  for (const auto& r : remarks)
    if (r.pass == pass && remarkMessage(r).find(text) != std::string::npos) return &r;
  return nullptr;
}

}  // namespace

TEST_CASE("recorded remarks, attributed to the user's lines") {
  for (const auto& name : kRecorded) {
    CAPTURE(name);
    fs::path dir = test::sourceDir() / "tests/golden" / name;
    test::checkGolden(dir / "remarks-attributed.expected", dump(attributedRemarks(dir)));
  }
}

TEST_CASE("a remark in core belongs to the user line that inlined the code") {
  auto remarks = attributedRemarks(test::sourceDir() / "tests/golden/saxpy");
  test::Fixture saxpy(test::sourceDir() / "examples/saxpy.rs");
  const uint32_t indexLine = saxpy.lineOf("let i = nvptx::_block_idx_x()");
  // `_block_idx_x` and friends are one line each of core_arch; their tail-call remarks are
  // about the calls on the user's line, and the three identical ones fold into one.
  size_t tailCalls = 0;
  for (const auto& r : remarks) {
    if (r.pass != "tailcallelim") continue;
    ++tailCalls;
    REQUIRE(r.userLocation);
    CHECK(r.userLocation->line == indexLine);
    CHECK(r.viaLibrary);
    CHECK(r.location->file.find("core_arch") != std::string::npos);
    CHECK(r.count == 3);  // block index, block size, thread index
  }
  CHECK(tailCalls == 1);
}

TEST_CASE("identical remarks on one line are folded, counted") {
  auto remarks = attributedRemarks(test::sourceDir() / "tests/golden/matmul_tiled");
  // The tile loop is unrolled: its loads are reported once per copy, 128 times in all.
  test::Fixture f(test::sourceDir() / "examples/matmul_tiled.rs");
  const uint32_t line = f.lineOf("sum += *a_tile.add(ty * TILE + e)");
  const Remark* clobbered = nullptr;
  for (const auto& r : remarks)
    if (r.pass == "gvn" && r.userLocation && r.userLocation->line == line) clobbered = &r;
  REQUIRE(clobbered);
  CHECK(clobbered->count > 1);
  std::set<std::tuple<std::string, uint32_t, std::string, std::string>> seen;
  for (const auto& r : remarks) {
    if (!r.userLocation) continue;
    CHECK(seen.insert({r.userLocation->file, r.userLocation->line, r.pass + "/" + r.name,
                       remarkMessage(r)})
              .second);
  }
}

TEST_CASE("an inlining remark reads without LLVM's mangled call-site chain") {
  auto remarks = attributedRemarks(test::sourceDir() / "tests/golden/elementwise_mul");
  const Remark* inlined = find(remarks, "inline", "grid_stride' inlined into 'elementwise_mul'");
  REQUIRE(inlined);
  CHECK(remarkMessage(*inlined).find("callsite") == std::string::npos);
  CHECK(remarkMessage(*inlined).ends_with("always inline attribute"));
}

TEST_CASE("filters: by kind, by pass, and the default") {
  Remark missed{Remark::Kind::Missed,
                "loop-vectorize",
                "MissedDetails",
                "k",
                "loop not vectorized",
                {},
                {},
                false,
                1};
  Remark inlined{
      Remark::Kind::Passed, "inline", "Inlined", "k", "'f' inlined into 'k'", {}, {}, false, 1};
  Remark tail{Remark::Kind::Passed,
              "tailcallelim",
              "tailcall-readnone",
              "k",
              "marked as tail call",
              {},
              {},
              false,
              1};
  Remark reason{Remark::Kind::Analysis,
                "loop-vectorize",
                "CantComputeNumberOfIterations",
                "k",
                "why",
                {},
                {},
                false,
                1};
  auto all = RemarkFilter::named("all"), none = RemarkFilter::named("none"),
       def = RemarkFilter::named("default"), onlyMissed = RemarkFilter::named("missed");
  REQUIRE((all && none && def && onlyMissed));
  for (const Remark* r : {&missed, &inlined, &tail, &reason}) {
    CHECK(all->accepts(*r));
    CHECK_FALSE(none->accepts(*r));
  }
  CHECK(def->accepts(missed));
  CHECK(def->accepts(inlined));
  CHECK(def->accepts(reason));
  CHECK_FALSE(def->accepts(tail));
  CHECK(onlyMissed->accepts(missed));
  CHECK_FALSE(onlyMissed->accepts(inlined));
  RemarkFilter inlining = *all;
  inlining.passes = {"inline"};
  CHECK(inlining.accepts(inlined));
  CHECK_FALSE(inlining.accepts(missed));
  CHECK_FALSE(RemarkFilter::named("some").has_value());
}

TEST_CASE("a compile's remarks come attributed, and explain shows them under the line") {
  test::requireToolchain();
  const auto& r = test::compiled(test::sourceDir() / "examples/elementwise_mul.rs");
  test::Fixture f(test::sourceDir() / "examples/elementwise_mul.rs");
  const uint32_t loop = f.lineOf("while i < n {");
  bool missedOnLoop = false;
  for (const auto& rem : r.remarks) {
    CHECK_FALSE(isBookkeepingRemark(rem));
    if (rem.userLocation && rem.userLocation->line == loop && rem.kind == Remark::Kind::Missed &&
        rem.pass == "loop-vectorize")
      missedOnLoop = true;
  }
  CHECK(missedOnLoop);
}

TEST_CASE("explain: remarks under their line, filtered by --remarks, and in --json") {
  test::requireToolchain();
  auto r = test::runKernelscope({"explain", "examples/elementwise_mul.rs", "--stages", "ptx"});
  INFO(r.out << r.err);
  REQUIRE(r.exitCode == 0);
  const size_t loop = r.out.find("|     while i < n {");
  const size_t missed = r.out.find("remark  missed loop-vectorize: loop not vectorized");
  REQUIRE(loop != std::string::npos);
  CHECK(missed > loop);
  CHECK(r.out.find("remark  passed tailcallelim") == std::string::npos);  // not in the default set
  auto none = test::runKernelscope(
      {"explain", "examples/elementwise_mul.rs", "--stages", "ptx", "--remarks", "none"});
  CHECK(none.out.find("remark ") == std::string::npos);
  auto all = test::runKernelscope(
      {"explain", "examples/elementwise_mul.rs", "--stages", "ptx", "--remarks", "all"});
  CHECK(all.out.find("remark  passed tailcallelim") != std::string::npos);
  CHECK(test::runKernelscope({"explain", "examples/elementwise_mul.rs", "--remarks", "some"})
            .exitCode == 2);

  auto json =
      test::runKernelscope({"explain", "examples/elementwise_mul.rs", "--stages", "ptx", "--json"});
  REQUIRE(json.exitCode == 0);
  auto j = nlohmann::json::parse(json.out);
  bool onLine = false;
  for (const auto& line : j["lines"])
    if (line.contains("remarks"))
      for (const auto& rem : line["remarks"])
        onLine |= rem["kind"] == "missed" && rem["line"] == line["line"];
  CHECK(onLine);
  CHECK(j["remarks"].size() >= 1);
}
