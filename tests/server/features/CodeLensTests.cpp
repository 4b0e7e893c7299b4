// The kernel lens, inlay hints, kernelscope/kernels and the spill warning: through the protocol
// (a fake client over an in-memory transport, a fake compile function), on hand-made snapshots
// and table by table on recorded compiles of the examples (Recorded.h).
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <atomic>
#include <fstream>
#include <set>

#include "Features.h"
#include "Recorded.h"
#include "ServerTestSupport.h"
#include "TestClient.h"
#include "Uri.h"

namespace ks::test {

TEST_CASE("the kernel lens keeps the last figures, marked updating, while ptxas runs") {
  auto snapshot = [](std::optional<uint32_t> registers, std::vector<std::string> pending,
                     std::string arch) {
    auto result = std::make_shared<CompileResult>();
    result->succeeded = true;
    result->arch = arch;
    result->pending = std::move(pending);
    KernelInfo k;
    k.symbol = "saxpy";
    k.definition.line = 2;
    if (registers) {
      k.resources = KernelResources{};
      k.resources->registers = *registers;
    }
    result->kernels.push_back(k);
    auto s = std::make_shared<server::Snapshot>();
    s->uri = "file:///k.rs";
    s->path = "/k.rs";
    s->text = "\nfn saxpy() {}\n";
    s->result = result;
    return s;
  };
  const auto before = snapshot(40, {}, "sm_90");  // an earlier compile with its resources
  struct Row {
    std::optional<uint32_t> registers;  // the compile's own, unset: not (yet) there
    std::vector<std::string> pending;
    std::string arch;
    bool earlier;  // `before` is shown while this compile's figures come
    Expect expect;
  };
  const Row rows[] = {
      {std::nullopt,
       {"resources", "sass"},
       "sm_90",
       true,
       EXPECT(R"~(sm_90 · 40 regs · 0 B spill · updating)~")},
      // The first compile has nothing earlier to show.
      {std::nullopt,
       {"resources", "sass"},
       "sm_90",
       false,
       EXPECT(R"~(sm_90 · resources coming)~")},
      {32, {}, "sm_90", true, EXPECT(R"~(sm_90 · 32 regs · 0 B spill)~")},
      // Another arch's figures are not this one's; a compile without ptxas says so.
      {std::nullopt, {"resources"}, "sm_80", true, EXPECT(R"~(sm_80 · resources coming)~")},
      {std::nullopt, {}, "sm_90", true, EXPECT(R"~(sm_90 · resources unavailable)~")},
  };
  for (const Row& row : rows) {
    auto lenses =
        server::codeLenses(*snapshot(row.registers, row.pending, row.arch),
                           row.earlier ? before.get() : nullptr, server::PositionEncoding::Utf16);
    REQUIRE_FALSE(lenses.empty());
    row.expect.check(lenses[0].command->title);
  }
}

TEST_CASE("inlay hints, code lens, kernels and the spill warning") {
  TestClient client(TestClient::options());
  std::string uri = client.open(kPath, kSaxpy + "// SPILL\n");
  client.sync();
  json hints = client.result(
      "textDocument/inlayHint",
      {{"textDocument", {{"uri", uri}}},
       {"range",
        {{"start", {{"line", 0}, {"character", 0}}}, {"end", {{"line", 10}, {"character", 0}}}}}});
  REQUIRE(hints.size() == 2);
  CHECK(hints[0]["label"] == "1 ptx · 2 sass");
  CHECK(hints[0]["position"] == json::parse(R"({"line":2,"character":18})"));
  json narrow = client.result(
      "textDocument/inlayHint",
      {{"textDocument", {{"uri", uri}}},
       {"range",
        {{"start", {{"line", 3}, {"character", 0}}}, {"end", {{"line", 3}, {"character", 0}}}}}});
  CHECK(narrow.size() == 1);

  json lenses = client.result("textDocument/codeLens", textDocument(uri));
  REQUIRE(lenses.size() == 4);  // the summary, PTX and SASS, and a launch spec to add
  CHECK(lenses[0]["command"]["title"] == "sm_90 · 10 regs · 16 B spill · 16 B local");
  CHECK(lenses[0]["range"]["start"]["line"] == 1);
  CHECK(lenses[2]["command"]["arguments"][0]["stage"] == "sass");
  CHECK(lenses[3]["command"]["title"] == "Add launch spec");
  CHECK(lenses[3]["command"]["command"] == "kernelscope.insertLaunchSpec");

  json kernels = client.result("kernelscope/kernels", textDocument(uri));
  CHECK(kernels["arch"] == "sm_90");
  REQUIRE(kernels["kernels"].size() == 1);
  CHECK(kernels["kernels"][0]["name"] == "saxpy");
  CHECK(kernels["kernels"][0]["registers"] == 10);
  CHECK(kernels["kernels"][0]["spillStores"] == 8);
  CHECK(kernels["kernels"][0]["instructions"]["ptx"] == 2);

  auto diagnostics = client.notifications("textDocument/publishDiagnostics");
  REQUIRE(diagnostics.size() == 1);
  REQUIRE(diagnostics[0]["diagnostics"].size() == 1);
  CHECK(diagnostics[0]["diagnostics"][0]["severity"] == 2);
  CHECK(diagnostics[0]["diagnostics"][0]["range"]["start"]["line"] == 1);
}

namespace {

/// One line per lens: its line, title and command (with the stage a stage's lens opens).
std::string lensesText(const std::vector<lsp::CodeLens>& lenses) {
  std::string out;
  for (const auto& l : lenses) {
    out += std::to_string(l.range.start.line) + ": ";
    if (!l.command) {
      out += "(unresolved)\n";
      continue;
    }
    out += l.command->title + " -> " + l.command->command;
    if (!l.command->arguments.empty() && l.command->arguments[0].is_object() &&
        l.command->arguments[0].contains("stage"))
      out += " " + l.command->arguments[0]["stage"].get<std::string>();
    out += "\n";
  }
  return out;
}

/// The kernels as kernelscope/kernels answers them, one line each.
std::string kernelsText(const lsp::KernelsResult& r) {
  std::ostringstream out;
  for (const lsp::KernelSummary& k : r.kernels) {
    out << r.arch << " " << k.name << " (" << k.demangled << ") at " << rangeText(k.range) << ": "
        << k.instructions.ptx << " ptx · " << k.instructions.sass << " sass";
    if (const auto& u = k.resources)
      out << "; " << u->registers << " regs, " << u->barriers << " barriers, stack "
          << u->stackFrame << ", spills " << u->spillStores << "/" << u->spillLoads << ", shared "
          << u->sharedMemory << ", constant " << u->constantMemory << ", local " << u->localMemory;
    if (const auto& o = k.occupancy)
      out << "; " << o->percent << "% at " << o->blockSize << " (" << o->activeWarpsPerSM << " of "
          << o->maxWarpsPerSM << " warps, " << o->limiter << ")";
    out << "\n";
  }
  return out.str();
}

}  // namespace

TEST_CASE("code lenses and kernels of a recorded kernel") {
  struct Row {
    const char* kernel;
    Expect lenses;
    Expect kernels;
  };
  const Row rows[] = {
      {"examples/saxpy.rs",  //
       EXPECT(R"~(
7: sm_90 · 10 regs · 0 B spill · 100% occupancy @256 · peak 6 live at line 12 -> kernelscope.openArtifact ptx
7: MIR -> kernelscope.openArtifact mir
7: LLVM IR -> kernelscope.openArtifact llvm-ir
7: PTX -> kernelscope.openArtifact ptx
7: SASS -> kernelscope.openArtifact sass
)~"),
       EXPECT(
           R"~(sm_90 saxpy (saxpy) at 7:0-7:85: 22 ptx · 32 sass; 10 regs, 0 barriers, stack 0, spills 0/0, shared 0, constant 0, local 0; 100% at 256 (64 of 64 warps, warps))~")},
      {"tests/fixtures/spin_after_panic.rs",  //
       EXPECT(R"~(
16: sm_90 · 24 regs · 0 B spill · 100% occupancy @256 · peak 13 live at line 13 -> kernelscope.openArtifact ptx
16: MIR -> kernelscope.openArtifact mir
16: LLVM IR -> kernelscope.openArtifact llvm-ir
16: PTX -> kernelscope.openArtifact ptx
16: SASS -> kernelscope.openArtifact sass
)~"),
       EXPECT(
           R"~(sm_90 checked_copy (checked_copy) at 16:0-16:100: 27 ptx · 48 sass; 24 regs, 0 barriers, stack 8, spills 0/0, shared 0, constant 0, local 0; 100% at 256 (64 of 64 warps, warps))~")},
  };
  for (const Row& row : rows) {
    CAPTURE(row.kernel);
    auto s = recordedSnapshot(row.kernel);
    row.lenses.check(lensesText(server::codeLenses(*s, nullptr, server::PositionEncoding::Utf16)));
    row.kernels.check(kernelsText(server::kernelsOf(*s, server::PositionEncoding::Utf16)));
  }
}

}  // namespace ks::test
