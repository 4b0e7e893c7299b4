// Golden tests of every parser on real compiler output recorded by tests/golden/record.sh.
// Each case dumps what the parser read (kinds, functions, location chains) next to the
// text and compares it with the `.expected` file beside the input.
#include <doctest/doctest.h>

#include <map>
#include <sstream>
#include <tuple>

#include "Diagnostics.h"
#include "ExactLocations.h"
#include "LineMap.h"
#include "Parsers.h"
#include "Remarks.h"
#include "TestSupport.h"

using namespace ks;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kCompiled = {
    "saxpy",   "vector_add", "elementwise_mul", "reduce_sum", "matmul_naive",    "matmul_tiled",
    "atomics", "iterators",  "local_array",     "jump_table", "spin_after_panic"};

fs::path golden(const std::string& name) { return test::sourceDir() / "tests/golden" / name; }

/// The recorded kernel's own file (`NAME.rs`) as the IR's debug info names it.
std::string userFileOf(const Artifact& ir, const std::string& name) {
  for (const auto& l : ir.lines())
    for (const auto& f : l.location)
      if (fs::path(f.file.str()).filename() == name + ".rs") return f.file;
  return {};
}

std::string dumpResources(const PtxasReport& r) {
  std::ostringstream out;
  for (const auto& k : r.functions)
    out << k.name << (k.isEntry ? " entry " + k.arch : " func") << ": regs=" << k.registers
        << " barriers=" << k.barriers << " stack=" << k.stackFrame << " spill=" << k.spillStores
        << "/" << k.spillLoads << " smem=" << k.sharedMemory << " cmem=" << k.constantMemory
        << " lmem=" << k.localMemory << "\n";
  for (const auto& d : r.diagnostics) out << "diagnostic: " << d.message << "\n";
  return out.str();
}

std::string dumpRemarks(const std::vector<Remark>& remarks) {
  std::ostringstream out;
  for (const auto& r : remarks) {
    out << (r.kind == Remark::Kind::Passed   ? "passed"
            : r.kind == Remark::Kind::Missed ? "missed"
                                             : "analysis")
        << " " << r.pass << "/" << r.name << " in " << r.function;
    if (r.location)
      out << " at " << fs::path(r.location->file.str()).filename().string() << ":"
          << r.location->line;
    out << ": " << r.message << "\n";
  }
  return out.str();
}

}  // namespace

TEST_CASE("MIR, LLVM IR, PTX and SASS parsers on the recorded kernels") {
  for (const auto& name : kCompiled) {
    CAPTURE(name);
    fs::path dir = golden(name);
    test::checkGolden(dir / "mir.expected",
                      test::dumpArtifact(parseMir(readWholeFile(dir / "k.mir"))));
    std::string error;
    Artifact ir = parseLlvmIr(readWholeFile(dir / "k.ll"), &error);
    CHECK(error.empty());
    test::checkGolden(dir / "llvm-ir.expected", test::dumpArtifact(ir));

    Artifact ptx = parsePtx(readWholeFile(dir / "k.ptx"));
    ChainTable chains = assignExactChains(ptx, readWholeFile(dir / "k.ll"), "sm_90", 3);
    CHECK(chains.error.empty());
    CHECK(chains.instructionsMatched * 20 >= ptx.instructionCount() * 19);
    LineMap users({userFileOf(ir, name)});
    recoverInlineChains(ptx, ir, users);  // as the pipeline does, before SASS is decoded
    test::checkGolden(dir / "ptx.expected", test::dumpArtifact(ptx));

    // The recorded SASS came from PTX with line-id lines (ptxWithLineIds of this PTX).
    Artifact sass = parseSass(readWholeFile(dir / "k.sass"));
    CHECK(decodeSassLineIds(sass, ptx) > 0);
    test::checkGolden(dir / "sass.expected", test::dumpArtifact(sass));

    test::checkGolden(dir / "ptxas.expected",
                      dumpResources(parsePtxasReport(readWholeFile(dir / "ptxas.stderr"))));
    std::vector<Remark> remarks;
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().filename().string().starts_with("remarks."))
        for (auto& r : parseRemarksYaml(readWholeFile(e.path()))) remarks.push_back(std::move(r));
    std::sort(remarks.begin(), remarks.end(), [](const Remark& a, const Remark& b) {
      return std::tie(a.pass, a.name, a.message) < std::tie(b.pass, b.name, b.message);
    });
    test::checkGolden(dir / "remarks.expected", dumpRemarks(remarks));
  }
}

TEST_CASE("a decoded listing keeps its place comments as markers and shows them written out") {
  const fs::path dir = golden("iterators");
  Artifact ptx = parsePtx(readWholeFile(dir / "k.ptx"));
  ChainTable chains = assignExactChains(ptx, readWholeFile(dir / "k.ll"), "sm_90", 3);
  REQUIRE(chains.error.empty());
  Artifact sass = parseSass(readWholeFile(dir / "k.sass"));
  REQUIRE(decodeSassLineIds(sass, ptx) > 0);
  // Held: the marker alone, the place in the line's chain.
  CHECK(sass.text().find("inlined at") == std::string::npos);
  size_t markers = 0;
  for (size_t i = 0; i < sass.lines().size(); ++i)
    if (text::trim(sass.lineText(i)) == kSassPlaceMarker) {
      ++markers;
      CHECK(!sass.lines()[i].location.empty());
    }
  CHECK(markers > 10);
  // Shown: every line as shownLine writes it, the places in nvdisasm's notation.
  const std::string shown = sass.shownText();
  const std::vector<std::string_view> lines = splitLines(shown);
  REQUIRE(lines.size() == sass.lines().size());
  size_t inlined = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    CHECK(lines[i] == sass.shownLine(i));
    CHECK(text::trim(lines[i]) != kSassPlaceMarker);
    inlined += lines[i].find(" inlined at \"") != std::string_view::npos;
  }
  CHECK(inlined > 0);
  CHECK(shown.size() > sass.text().size());
  // Other stages are shown as they are held.
  CHECK(ptx.shownText() == ptx.text());
}

TEST_CASE("a failed chain regeneration leaves the PTX as it was and becomes a warning") {
  const fs::path dir = golden("saxpy");
  Artifact ptx = parsePtx(readWholeFile(dir / "k.ptx"));
  const std::string before = test::dumpArtifact(ptx);
  ChainTable chains = assignExactChains(ptx, "this is not LLVM IR", "sm_90", 3);
  CHECK_FALSE(chains.error.empty());
  CHECK(test::dumpArtifact(ptx) == before);
  auto warning = chainRegenerationWarning(chains);
  REQUIRE(warning);
  CHECK(warning->severity == Severity::Warning);
  CHECK(warning->code == "exact-map");
  CHECK(warning->message.find(chains.error) != std::string::npos);
  CHECK_FALSE(
      chainRegenerationWarning(assignExactChains(ptx, readWholeFile(dir / "k.ll"), "sm_90", 3)));
}

TEST_CASE("SASS straight from nvdisasm (no chain ids)") {
  fs::path dir = golden("plain-sass");
  Artifact sass = parseSass(readWholeFile(dir / "elementwise_mul.sass"));
  REQUIRE(sass.functions.size() == 1);
  CHECK(sass.functions[0].symbol == "elementwise_mul");
  test::checkGolden(dir / "elementwise_mul.expected", test::dumpArtifact(sass));
}

TEST_CASE("rustc JSON diagnostics: exact spans, codes, no summaries") {
  // rustc's stderr as the recording of its compile keeps it (paths as placeholders).
  test::Fixture broken(test::sourceDir() / "tests/fixtures/broken.rs");
  auto diags =
      parseRustcDiagnostics(readWholeFile(test::recordingOf(broken.path) / "1-rustc.stderr"));
  REQUIRE(diags.size() >= 2);
  const Diagnostic* typeError = nullptr;
  const Diagnostic* unused = nullptr;
  for (const auto& d : diags) {
    CHECK(d.message.find("aborting due to") == std::string::npos);
    if (d.code == "E0308") typeError = &d;
    if (d.severity == Severity::Warning &&
        d.message.find("unnecessary parentheses") != std::string::npos)
      unused = &d;
  }
  REQUIRE(typeError);
  REQUIRE(typeError->range);
  CHECK(typeError->range->startLine == broken.line("type_error"));
  CHECK(typeError->range->startColumn == 18);
  CHECK(typeError->range->file.ends_with("tests/fixtures/broken.rs"));
  REQUIRE(unused);
  CHECK(unused->range->startLine == broken.line("warning"));
}

TEST_CASE("malformed input never crashes a parser") {
  std::string garbage =
      "{\n}}}} .loc 9 x y\n.file \"unterminated\n//## File \"x\", line\n/*00*/ ;\nscope 3 (inlined "
      "{\n";
  CHECK_NOTHROW(parseMir(garbage));
  CHECK_NOTHROW(parsePtx(garbage));
  CHECK_NOTHROW(parseSass(garbage));
  CHECK_NOTHROW(parsePtxasReport(garbage));
  CHECK_NOTHROW(parseRustcDiagnostics(garbage + "{\"level\": 3}\n{not json"));
  CHECK_NOTHROW(parseRemarksYaml("--- !Missed\nDebugLoc: { File: \nArgs:\n  - : x\n"));
  std::string error;
  Artifact ir = parseLlvmIr("define void @f( {", &error);
  CHECK_FALSE(error.empty());
  CHECK(ir.lines().size() == 1);
}

TEST_CASE("ptxas errors and the PTX lines they name") {
  auto r = parsePtxasReport(
      "ptxas /tmp/k.ptx, line 12; error   : Unknown symbol 'x'\n"
      "ptxas fatal   : Unresolved extern function '_ZN4core9panicking5panic'\n"
      "ptxas info    : Compiling entry function 'k' for 'sm_80'\n"
      "ptxas info    : Function properties for k\n"
      "    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n"
      "ptxas info    : Used 255 registers, 1 barriers, 2048 bytes smem, 368 bytes cmem[0], 16 "
      "bytes lmem\n");
  REQUIRE(r.diagnostics.size() == 2);
  CHECK(r.diagnostics[0].ptxLine == 12u);
  CHECK(r.diagnostics[1].message.find("Unresolved extern") != std::string::npos);
  REQUIRE(r.functions.size() == 1);
  const auto& k = r.functions[0];
  CHECK(k.arch == "sm_80");
  CHECK(k.registers == 255);
  CHECK(k.barriers == 1);
  CHECK(k.sharedMemory == 2048);
  CHECK(k.constantMemory == 368);
  CHECK(k.localMemory == 16);
  CHECK(k.stackFrame == 8);
  CHECK(k.spillStores == 4);
  CHECK(k.spillLoads == 4);
}

TEST_CASE("PTX .loc with function_name and inlined_at (newer LLVM)") {
  std::string ptx =
      ".visible .entry k(\n)\n{\n"
      "\t.loc\t1 10 3, function_name $L__info_string0, inlined_at 2 20 5\n"
      "\tadd.s32 %r1, %r2, %r3;\n"
      "\t.loc\t2 21 1\n"
      "\tret;\n}\n"
      "\t.file\t1 \"/src/core/ptr.rs\"\n\t.file\t2 \"/home/me/k.rs\"\n"
      "\t.section\t.debug_str\n\t{\n$L__info_string0:\n\t.b8 97,100,100,0\n\t}\n";
  Artifact a = parsePtx(ptx);
  REQUIRE(a.functions.size() == 1);
  CHECK(a.functions[0].isKernel);
  const auto& add = a.lines()[4];
  REQUIRE(add.location.size() == 2);
  CHECK(add.location[0].file == "/src/core/ptr.rs");
  CHECK(add.location[0].function == "add");
  CHECK(add.location[1].file == "/home/me/k.rs");
  CHECK(add.location[1].line == 20);
  CHECK(a.lines()[6].location.size() == 1);
}

TEST_CASE("a PTX declaration over several lines ends at its semicolon") {
  // LLVM declares a function called before its definition with its parameters on lines of
  // their own; what follows (an extern's declaration, a global with braces) is no body.
  std::string ptx =
      ".visible .func helper\n(\n\t.param .b32 helper_param_0\n)\n;\n"
      ".global .align 1 .b8 text[2] = {104, 0};\n"
      ".visible .entry k(\n)\n{\n\tret;\n}\n"
      ".visible .func helper(\n\t.param .b32 helper_param_0\n)\n{\n\tret;\n}\n";
  const Artifact parsed = parsePtx(ptx);
  // Each function's name and lines: the declaration's five, the kernel, the definition.
  std::vector<std::tuple<std::string, uint32_t, uint32_t>> ranges;
  for (const ArtifactFunction& f : parsed.functions)
    ranges.emplace_back(f.symbol, f.firstLine, f.lastLine);
  CHECK(ranges == decltype(ranges){{"helper", 0, 4}, {"k", 6, 10}, {"helper", 11, 16}});
  CHECK(parsed.lines()[5].function == -1);  // the global
  CHECK(parsed.lines()[5].kind == LineKind::Directive);
  CHECK(parsed.lines()[15].kind == LineKind::Instruction);  // the definition's `ret;`
}

TEST_CASE("demangling Rust symbols") {
  CHECK(demangleSymbol("_RNvCs2zO1CNtWFRx_1k11grid_stride") == "k::grid_stride");
  CHECK(demangleSymbol("_ZN4core3ptr7mut_ptr3add17h0123456789abcdefE") ==
        "core::ptr::mut_ptr::add");
  CHECK(demangleSymbol("saxpy") == "saxpy");
}

TEST_CASE("lines with one inline chain share one copy of its frames, and one line-map origin") {
  // Held once: a chain as an instruction's location, in the line map, in every snapshot.
  auto checkShared = [](const Artifact& a) {
    std::map<std::vector<Frame>, const void*> byFrames;
    size_t located = 0;
    for (const auto& l : a.lines()) {
      if (l.location.empty()) continue;
      ++located;
      auto [it, added] = byFrames.try_emplace(l.location.frames(), l.location.id());
      CHECK(it->second == l.location.id());
    }
    CHECK(byFrames.size() < located);  // real code repeats its chains
  };
  for (const auto& name : kCompiled) {
    CAPTURE(name);
    fs::path dir = golden(name);
    checkShared(parseMir(readWholeFile(dir / "k.mir")));
    Artifact ir = parseLlvmIr(readWholeFile(dir / "k.ll"));
    checkShared(ir);
    Artifact ptx = parsePtx(readWholeFile(dir / "k.ptx"));
    checkShared(ptx);
    assignExactChains(ptx, readWholeFile(dir / "k.ll"), "sm_90", 3);
    LineMap map({userFileOf(ir, name)});
    recoverInlineChains(ptx, ir, map);
    map.addArtifact(ptx);
    // The map's origin of two lines with the same chain is one object.
    std::map<const void*, const LineOrigin*> originOf;
    for (uint32_t i = 0; i < ptx.lines().size(); ++i) {
      if (ptx.lines()[i].kind != LineKind::Instruction) continue;
      auto [it, added] =
          originOf.try_emplace(ptx.lines()[i].location.id(), &map.origin(Stage::Ptx, i));
      CHECK(it->second == &map.origin(Stage::Ptx, i));
      CHECK(map.origin(Stage::Ptx, i).chain.id() == ptx.lines()[i].location.id());
    }
    Artifact sass = parseSass(readWholeFile(dir / "k.sass"));
    decodeSassLineIds(sass, ptx);
    checkShared(sass);
  }
}
