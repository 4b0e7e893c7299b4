// In-process tests of the language server (a fake client over an in-memory transport, a
// fake compile function): kernelscope/passes on a fake pass-by-pass function.
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

namespace {
/// A pass-by-pass function that needs no toolchain: one LLVM pass for `saxpy`, an error
/// for `broken`, and, for `slow`, a run that lasts until it is cancelled.
struct FakePasses {
  std::atomic<int> calls{0};
  std::atomic<bool> running{false}, sawCancel{false};
  /// "slow" runs until cancelled only the first time; the cancelled run then returns only
  /// after the next one started (the order that once cancelled the next request too).
  std::atomic<bool> rerunSucceeds{false};
  PassesResult operator()(const CompileInput&, const CompileOptions&, const std::string& kernel,
                          const CancellationToken& cancel) {
    const int call = ++calls;
    PassesResult r;
    r.kernel = r.demangled = kernel;
    if (kernel == "slow" && (call == 1 || !rerunSucceeds)) {
      running = true;
      while (!cancel.cancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      sawCancel = true;
      for (int i = 0; rerunSucceeds && calls < 2 && i < 5000; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      r.cancelled = true;
      r.error = "cancelled";
      return r;
    }
    if (kernel == "broken") {
      r.error = "the kernel does not compile (see the diagnostics)";
      return r;
    }
    StagePasses sp;
    sp.stage = Stage::LlvmIr;
    sp.changes.push_back(PassChange{Stage::LlvmIr, "SROAPass", kernel, 5, 3,
                                    "--- before SROAPass\n+++ after SROAPass\n"});
    r.stages.push_back(sp);
    StagePasses mir;
    mir.stage = Stage::Mir;
    mir.changes.push_back(
        PassChange{Stage::Mir, "GVN", "3-2-016", 9, 7, "--- before GVN\n+++ after GVN\n"});
    r.stages.push_back(mir);
    return r;
  }
};

const std::string kThreeKernels =
    kSaxpy +
    "pub unsafe extern \"ptx-kernel\" fn broken(x: *mut f32) {\n    let y = 1;\n}\n"
    "pub unsafe extern \"ptx-kernel\" fn slow(x: *mut f32) {\n    let y = 1;\n}\n";
/// A server on two workers whose kernelscope/passes runs `passes`, with kThreeKernels open.
struct PassesSession {
  static server::ServerOptions optionsFor(const std::shared_ptr<FakePasses>& passes) {
    auto options = TestClient::options(2, std::chrono::milliseconds(0));
    options.passes = [passes](const CompileInput& i, const CompileOptions& o, const std::string& k,
                              const CancellationToken& c) { return (*passes)(i, o, k, c); };
    return options;
  }
  explicit PassesSession(const std::shared_ptr<FakePasses>& passes) : client(optionsFor(passes)) {
    uri = client.open(kPath, kThreeKernels);
    client.sync();
  }
  TestClient client;
  std::string uri;
};

}  // namespace

TEST_CASE("kernelscope/passes: computed once per revision and kernel, errors named") {
  auto passes = std::make_shared<FakePasses>();
  auto options = TestClient::options();
  options.passes = [passes](const CompileInput& i, const CompileOptions& o, const std::string& k,
                            const CancellationToken& c) { return (*passes)(i, o, k, c); };
  TestClient client(options);
  std::string uri = client.open(kPath, kThreeKernels);
  client.sync();

  json r =
      client.result("kernelscope/passes", {{"textDocument", {{"uri", uri}}}, {"kernel", "saxpy"}});
  CHECK(r["uri"] == "kernelscope:/passes" + kPath + ".passes?kernel=saxpy");
  CHECK(r["revision"] == 1);
  REQUIRE(r["passes"].size() == 2);
  CHECK(r["passes"][0] ==
        json::parse(R"({"stage":"llvm-ir","name":"SROAPass","unit":"saxpy","before":5,"after":3,
                                          "diff":"--- before SROAPass\n+++ after SROAPass\n"})"));
  CHECK(r["text"].get<std::string>().find("### 1. SROAPass on saxpy: 5 → 3 instructions") !=
        std::string::npos);
  // Titled by file and stage; the server's revision numbers are its own.
  CHECK(r["text"].get<std::string>().starts_with(
      "# Passes that changed saxpy — saxpy.rs · LLVM IR, MIR (sm_90, opt-level 3)\n"));
  // The same revision and kernel again, by its pass-by-pass URI and for one stage: no new run.
  // (Parameters after `kernel`, such as a client's revision, are ignored.)
  json mir = client.result("kernelscope/passes",
                           {{"uri", r["uri"].get<std::string>() + "&rev=1"}, {"stage", "mir"}});
  REQUIRE(mir["passes"].size() == 1);
  CHECK(mir["passes"][0]["name"] == "GVN");
  CHECK(mir["text"].get<std::string>().starts_with(
      "# Passes that changed saxpy — saxpy.rs · MIR (sm_90, opt-level 3)\n"));
  CHECK(passes->calls == 1);
  // A new revision is a new run.
  client.change(uri, kThreeKernels + "\n", 2);
  client.sync();
  CHECK(client.result("kernelscope/passes",
                      {{"textDocument", {{"uri", uri}}}, {"kernel", "saxpy"}})["revision"] == 2);
  CHECK(passes->calls == 2);

  json unknown = client.request("kernelscope/passes",
                                {{"textDocument", {{"uri", uri}}}, {"kernel", "nosuch"}});
  CHECK(errorCode(unknown) == int(lsp::ErrorCode::InvalidParams));
  CHECK(unknown["error"]["message"] == "unknown kernel 'nosuch' (kernels: saxpy, broken, slow)");
  json failed = client.request("kernelscope/passes",
                               {{"textDocument", {{"uri", uri}}}, {"kernel", "broken"}});
  CHECK(errorCode(failed) == int(lsp::ErrorCode::RequestFailed));
  CHECK(failed["error"]["message"] == "the kernel does not compile (see the diagnostics)");
  CHECK(errorCode(client.request(
            "kernelscope/passes",
            {{"textDocument", {{"uri", uri}}}, {"kernel", "saxpy"}, {"stage", "ptx"}})) ==
        int(lsp::ErrorCode::InvalidParams));
  CHECK(errorCode(
            client.request("kernelscope/passes",
                           {{"uri", "kernelscope:/passes/elsewhere/k.rs.passes?kernel=saxpy"}})) ==
        int(lsp::ErrorCode::InvalidParams));
}

TEST_CASE("a pass-by-pass document of a crate's file is titled by its path in the crate") {
  auto result = std::make_shared<CompileResult>();
  result->arch = "sm_80";
  result->optLevel = 2;
  result->crateManifest = "/w/kern/Cargo.toml";
  server::Snapshot s;
  s.path = "/w/kern/src/blend.rs";
  s.revision = 7;
  s.result = result;
  PassesResult passes = FakePasses()(CompileInput{}, CompileOptions{}, "blend", {});
  CHECK(server::passesReplyOf(s, passes, Stage::LlvmIr)
            .text.starts_with("# Passes that changed blend — kern/src/blend.rs · LLVM IR (sm_80, "
                              "opt-level 2)\n"));
  // A path dependency's file, outside the crate's folder: by its name.
  s.path = "/w/shared/src/math.rs";
  CHECK(server::passesReplyOf(s, passes, std::nullopt)
            .text.starts_with("# Passes that changed blend — math.rs · LLVM IR, MIR (sm_80"));
}

TEST_CASE("kernelscope/passes runs off the io thread and $/cancelRequest stops it") {
  auto passes = std::make_shared<FakePasses>();
  PassesSession session(passes);
  TestClient& client = session.client;
  const std::string& uri = session.uri;
  client.server().onMessage(lsp::makeRequest("p1", "kernelscope/passes",
                                             {{"textDocument", {{"uri", uri}}}, {"kernel", "slow"}})
                                .dump());
  while (!passes->running) std::this_thread::yield();
  // The server still answers while the run goes on.
  CHECK(
      client.result("kernelscope/kernels", {{"textDocument", {{"uri", uri}}}})["kernels"].size() ==
      3);
  for (const auto& m : client.messages()) CHECK(m.value("id", json()) != "p1");
  client.notify("$/cancelRequest", {{"id", "p1"}});
  bool cancelled = false;
  for (const auto& m : client.messages())
    if (m.value("id", json()) == "p1")
      cancelled = errorCode(m) == int(lsp::ErrorCode::RequestCancelled);
  CHECK(cancelled);
  for (int i = 0; i < 5000 && !passes->sawCancel; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  CHECK(passes->sawCancel);  // nobody waits any more: its rustc is stopped
}

TEST_CASE("kernelscope/passes right after a cancelled one is not itself cancelled") {
  auto passes = std::make_shared<FakePasses>();
  passes->rerunSucceeds = true;
  PassesSession session(passes);
  TestClient& client = session.client;
  const json params = {{"textDocument", {{"uri", session.uri}}}, {"kernel", "slow"}};
  client.server().onMessage(lsp::makeRequest("p1", "kernelscope/passes", params).dump());
  while (!passes->running) std::this_thread::yield();
  client.notify("$/cancelRequest", {{"id", "p1"}});
  client.server().onMessage(lsp::makeRequest("p2", "kernelscope/passes", params).dump());
  json answer;
  client.syncUntil([&] {
    for (const auto& m : client.messages())
      if (m.value("id", json()) == "p2") answer = m;
    return !answer.is_null();
  });
  INFO(answer.dump());
  REQUIRE(answer.contains("result"));
  CHECK(answer["result"]["kernel"] == "slow");
  CHECK(passes->calls == 2);
}

}  // namespace ks::test
