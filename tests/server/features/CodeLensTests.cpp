// In-process tests of the language server (a fake client over an in-memory transport, a
// fake compile function): the kernel lens, inlay hints, kernelscope/kernels and the spill warning.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <atomic>
#include <fstream>
#include <set>

#include "Features.h"
#include "ServerTestSupport.h"
#include "TestClient.h"
#include "Uri.h"

namespace ks::test {

TEST_CASE("the kernel lens keeps the last figures, marked updating, while ptxas runs") {
  auto snapshot = [](std::optional<uint32_t> registers, std::vector<std::string> pending,
                     std::string arch = "sm_90") {
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
  auto title = [](const server::Snapshot& s, const server::Snapshot* earlier) {
    auto lenses = server::codeLenses(s, earlier, server::PositionEncoding::Utf16);
    REQUIRE_FALSE(lenses.empty());
    return lenses[0].command->title;
  };
  auto before = snapshot(40, {});
  auto partial = snapshot(std::nullopt, {"resources", "sass"});
  CHECK(title(*partial, before.get()) == "sm_90 · 40 regs · 0 B spill · updating");
  CHECK(title(*partial, nullptr) == "sm_90 · resources coming");  // the first compile
  CHECK(title(*snapshot(32, {}), before.get()) == "sm_90 · 32 regs · 0 B spill");
  // Another arch's figures are not this one's; a compile without ptxas says so.
  CHECK(title(*snapshot(std::nullopt, {"resources"}, "sm_80"), before.get()) ==
        "sm_80 · resources coming");
  CHECK(title(*snapshot(std::nullopt, {}), before.get()) == "sm_90 · resources unavailable");
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

}  // namespace ks::test
