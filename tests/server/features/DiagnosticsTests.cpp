// rustc's diagnostics as the editor gets them, on the real compiler: the whole message
// (expected/found), its labels as related information, the error code's explanation, and
// machine-applicable suggestions as quick fixes that apply.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "Diagnostics.h"
#include "Engine.h"
#include "SourceText.h"
#include "TestClient.h"
#include "Toolchain.h"

namespace ks::test {
namespace {

const std::string kHeader =
    "#![no_std]\n#![feature(abi_ptx)]\n"
    "#[panic_handler]\nfn panic(_: &core::panic::PanicInfo) -> ! { loop {} }\n"
    "#[no_mangle]\npub unsafe extern \"ptx-kernel\" fn k(y: *mut u32) {\n";

}  // namespace

TEST_CASE("rustc's summaries are not diagnostics; labels, notes and fixes are kept") {
  const std::string json =
      R"({"$message_type":"diagnostic","message":"cannot assign twice to immutable variable `x`","code":{"code":"E0384","explanation":"..."},"level":"error","spans":[{"file_name":"/k/a.rs","line_start":3,"line_end":3,"column_start":9,"column_end":10,"is_primary":false,"label":"first assignment to `x`","suggested_replacement":null},{"file_name":"/k/a.rs","line_start":4,"line_end":4,"column_start":5,"column_end":10,"is_primary":true,"label":"cannot assign twice to immutable variable","suggested_replacement":null}],"children":[{"message":"consider making this binding mutable","code":null,"level":"help","spans":[{"file_name":"/k/a.rs","line_start":3,"line_end":3,"column_start":9,"column_end":9,"is_primary":true,"label":null,"suggested_replacement":"mut ","suggestion_applicability":"MachineApplicable"}],"children":[]},{"message":"a note without a span","level":"note","spans":[],"children":[]}]}
{"$message_type":"diagnostic","message":"aborting due to 1 previous error","code":null,"level":"error","spans":[],"children":[]}
{"$message_type":"diagnostic","message":"Some errors have detailed explanations: E0308, E0384.","code":null,"level":"failure-note","spans":[],"children":[]}
{"$message_type":"diagnostic","message":"For more information about an error, try `rustc --explain E0308`.","code":null,"level":"failure-note","spans":[],"children":[]})";
  auto ds = parseRustcDiagnostics(json);
  REQUIRE(ds.size() == 1);
  const Diagnostic& d = ds[0];
  CHECK(d.message ==
        "cannot assign twice to immutable variable `x`\ncannot assign twice to immutable "
        "variable\nnote: a note without a span");
  CHECK(d.range->startLine == 4);
  REQUIRE(d.related.size() == 2);
  CHECK(d.related[0].message == "first assignment to `x`");
  CHECK(d.related[0].range.startLine == 3);
  CHECK(d.related[1].message == "help: consider making this binding mutable");
  REQUIRE(d.fixes.size() == 1);
  CHECK(d.fixes[0].title == "consider making this binding mutable: `mut`");
  REQUIRE(d.fixes[0].edits.size() == 1);
  CHECK(d.fixes[0].edits[0].first.startColumn == 9);
  CHECK(d.fixes[0].edits[0].second == "mut ");
}

TEST_CASE("real pipeline: a type error shows expected/found, and a quick fix applies") {
  Toolchain tc = discoverToolchain();
  if (!tc.rustc.found() || !tc.sysroot.found()) {
    MESSAGE("skipped: no usable rustc and nvptx64 sysroot (run scripts/setup.sh)");
    return;
  }
  namespace fs = std::filesystem;
  fs::path dir =
      fs::temp_directory_path() / ("kernelscope-diagnostics-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "k.rs").string();
  const std::string typeError = kHeader + "    let z: u32 = 1.0f32;\n    *y = z;\n}\n";
  std::ofstream(path) << typeError;

  Engine compiler(ToolchainSettings{}, nullptr);
  server::ServerOptions o = TestClient::options(/*workers=*/1, std::chrono::milliseconds(0));
  o.compile = [&compiler](const CompileInput& in, const CompileOptions& opts,
                          const CancellationToken& c) { return compiler.compile(in, opts, c); };
  {
    TestClient client(std::move(o));
    std::string uri = client.open(path, typeError);
    client.sync();
    auto published = client.notifications("textDocument/publishDiagnostics");
    REQUIRE(!published.empty());
    const json& diagnostics = published.back()["diagnostics"];
    REQUIRE(diagnostics.size() == 1);  // no "aborting due to" or "Some errors have" on line 1
    const json& d = diagnostics[0];
    CHECK(d["code"] == "E0308");
    CHECK(d["codeDescription"]["href"] == "https://doc.rust-lang.org/error_codes/E0308.html");
    CHECK(d["message"].get<std::string>().find("expected `u32`, found `f32`") != std::string::npos);
    CHECK(d["range"]["start"]["line"] == 6);
    REQUIRE(d.contains("relatedInformation"));
    CHECK(d["relatedInformation"][0]["message"] == "expected due to this");
    CHECK(d["relatedInformation"][0]["location"]["uri"] == uri);
    CHECK(d["relatedInformation"][0]["location"]["range"]["start"] ==
          json({{"line", 6}, {"character", 11}}));

    // A missing `mut`: rustc's suggestion is a quick fix, and applying it compiles.
    std::string mutError = kHeader + "    let x = 1u32;\n    x = 2;\n    *y = x;\n}\n";
    client.change(uri, mutError, 2);
    client.sync();
    client.messages();
    json actions = client.result(
        "textDocument/codeAction",
        {{"textDocument", {{"uri", uri}}},
         {"range",
          {{"start", {{"line", 7}, {"character", 4}}}, {"end", {{"line", 7}, {"character", 4}}}}},
         {"context", {{"diagnostics", json::array()}}}});
    REQUIRE(actions.size() == 1);
    CHECK(actions[0]["kind"] == "quickfix");
    CHECK(actions[0]["title"].get<std::string>().find("mutable") != std::string::npos);
    CHECK(actions[0]["diagnostics"][0]["code"] == "E0384");
    std::string fixed = mutError;
    for (const json& e : actions[0]["edit"]["changes"][uri])
      server::applyEdit(fixed, e["range"].get<lsp::Range>(), e["newText"].get<std::string>(),
                        server::PositionEncoding::Utf16);
    CHECK(fixed.find("let mut x = 1u32;") != std::string::npos);
    client.change(uri, fixed, 3);
    client.sync();
    auto after = client.notifications("textDocument/publishDiagnostics");
    REQUIRE(!after.empty());
    for (const json& d : after.back()["diagnostics"]) {  // warnings (the unread 1) may stay
      CAPTURE(d.dump());
      CHECK(d["severity"] != 1);
    }
  }
  fs::remove_all(dir);
}

}  // namespace ks::test
