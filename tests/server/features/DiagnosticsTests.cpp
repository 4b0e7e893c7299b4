// rustc's diagnostics as the editor gets them: the whole message (expected/found), its labels
// as related information, the error code's explanation, and machine-applicable suggestions as
// quick fixes that apply; table by table on the recorded compile of a kernel that does not
// compile (tests/golden/tools/broken: no toolchain needed), and on the real compiler for a
// fix's edit, which compiles anew.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>

#include "Diagnostics.h"
#include "Engine.h"
#include "RealPipeline.h"
#include "Recorded.h"
#include "SourceText.h"
#include "TestClient.h"

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

namespace {

/// A published diagnostic in a line or two: range, severity, code and its explanation, the
/// message, then each related location (`here`: in the document itself) with its label.
std::string diagnosticText(const json& d, const std::string& uri) {
  std::ostringstream out;
  out << rangeText(d["range"].get<lsp::Range>()) << " " << d["source"].get<std::string>() << " "
      << (d["severity"] == 1   ? "error"
          : d["severity"] == 2 ? "warning"
                               : "hint");
  if (d.contains("code")) out << " " << d["code"].get<std::string>();
  if (d.contains("codeDescription"))
    out << " <" << d["codeDescription"]["href"].get<std::string>() << ">";
  out << ": " << d["message"].get<std::string>() << "\n";
  for (const json& r : d.value("relatedInformation", json::array()))
    out << "  related "
        << (r["location"]["uri"] == uri ? "here" : r["location"]["uri"].get<std::string>()) << " "
        << rangeText(r["location"]["range"].get<lsp::Range>()) << ": "
        << r["message"].get<std::string>() << "\n";
  return out.str();
}

/// `text` with an action's edits applied as a client applies them: each range is one of the
/// text before any of them, so the last is applied first.
std::string applied(std::string text, const json& action, const std::string& uri) {
  std::vector<std::pair<lsp::Range, std::string>> edits;
  for (const json& e : action["edit"]["changes"][uri])
    edits.emplace_back(e["range"].get<lsp::Range>(), e["newText"].get<std::string>());
  std::sort(edits.begin(), edits.end(), [](const auto& a, const auto& b) {
    return std::tie(b.first.start.line, b.first.start.character) <
           std::tie(a.first.start.line, a.first.start.character);
  });
  for (const auto& [range, newText] : edits)
    REQUIRE(server::applyEdit(text, range, newText, server::PositionEncoding::Utf16));
  return text;
}

/// The code actions at a place: each one's kind, title and the codes it fixes, and the
/// document's line there once its edits are applied.
std::string actionsText(const json& actions, const std::string& uri, const std::string& text,
                        int line) {
  if (actions.empty()) return "(none)";
  std::ostringstream out;
  for (const json& a : actions) {
    out << a["kind"].get<std::string>() << ": " << a["title"].get<std::string>() << " [";
    for (const json& d : a["diagnostics"]) out << d.value("code", "");
    const std::string fixed = applied(text, a, uri);
    out << "]\n  " << splitLines(fixed)[static_cast<size_t>(line)] << "\n";
  }
  return out.str();
}

}  // namespace

TEST_CASE("rustc's diagnostics of a recorded compile as published, and their quick fixes") {
  Engine* compiler = nullptr;
  TestClient client(replayedOptions(compiler, "tests/fixtures/broken.rs"));
  const std::string path = KS_SOURCE_DIR "/tests/fixtures/broken.rs";
  const std::string text = readWholeFile(path);
  const std::string uri = client.open(path, text);
  client.sync();
  auto published = client.notifications("textDocument/publishDiagnostics");
  REQUIRE(!published.empty());
  // Each of rustc's diagnostics once, and none of its summaries ("aborting due to", "Some
  // errors have detailed explanations").
  std::string diagnostics;
  for (const json& d : published.back()["diagnostics"]) diagnostics += diagnosticText(d, uri);
  EXPECT(R"~(
7:17-7:18 rustc warning unused_parens: unnecessary parentheses around assigned value
note: `#[warn(unused_parens)]` (part of `#[warn(unused)]`) on by default
  related here 7:17-7:18: help: remove these parentheses
7:21-7:22 rustc warning unused_parens: unnecessary parentheses around assigned value
note: `#[warn(unused_parens)]` (part of `#[warn(unused)]`) on by default
  related here 7:17-7:18: help: remove these parentheses
8:17-8:21 rustc error E0308 <https://doc.rust-lang.org/error_codes/E0308.html>: mismatched types
expected `f32`, found `u32`
  related here 8:11-8:14: expected due to this
  related here 8:18-8:21: help: change the type of the numeric literal from `u32` to `f32`
)~")
      .check(diagnostics);

  struct Row {
    const char* fixture;  // the cursor, `$0`, on a line of broken.rs
    Expect actions;
  };
  const Row rows[] = {
      {"let z: f32 = $01u32;", EXPECT(R"~(
quickfix: change the type of the numeric literal from `u32` to `f32`: `f32` [E0308]
      let z: f32 = 1f32; // <- type_error
)~")},
      {"let y: f32 = ($01.0);", EXPECT(R"~(
quickfix: remove these parentheses [unused_parens]
      let y: f32 = 1.0; // <- warning
)~")},
      // The closing parenthesis is rustc's second primary span: a diagnostic of its own.
      {"let y: f32 = (1.0$0);", EXPECT(R"~(
quickfix: remove these parentheses [unused_parens]
      let y: f32 = 1.0; // <- warning
)~")},
      {"$0*x = y + z;", EXPECT(R"~((none))~")},
  };
  for (const Row& row : rows) {
    CAPTURE(row.fixture);
    const lsp::Position at = cursor(text, row.fixture);
    const json position = {{"line", at.line}, {"character", at.character}};
    const json actions = client.result("textDocument/codeAction",
                                       {{"textDocument", {{"uri", uri}}},
                                        {"range", {{"start", position}, {"end", position}}},
                                        {"context", {{"diagnostics", json::array()}}}});
    row.actions.check(actionsText(actions, uri, text, at.line));
  }
}

TEST_CASE("real pipeline: a quick fix of rustc's applies, and the fixed text compiles") {
  requireToolchain();  // the edits: compiles no recording holds
  namespace fs = std::filesystem;
  TempDir dir("kernelscope-diagnostics");
  const std::string path = (dir.path() / "k.rs").string();
  // A missing `mut`: rustc's suggestion is a quick fix, and applying it compiles.
  const std::string mutError = kHeader + "    let x = 1u32;\n    x = 2;\n    *y = x;\n}\n";
  std::ofstream(path) << mutError;
  Engine* compiler = nullptr;
  TestClient client(realOptions(compiler));
  std::string uri = client.open(path, mutError);
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
  const std::string fixed = applied(mutError, actions[0], uri);
  CHECK(fixed.find("let mut x = 1u32;") != std::string::npos);
  client.change(uri, fixed, 2);
  client.sync();
  auto after = client.notifications("textDocument/publishDiagnostics");
  REQUIRE(!after.empty());
  for (const json& d : after.back()["diagnostics"]) {  // warnings (the unread 1) may stay
    CAPTURE(d.dump());
    CHECK(d["severity"] != 1);
  }
}

}  // namespace ks::test
