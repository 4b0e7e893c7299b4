// Launch specs checked after each compile: a spec that does not parse or does not resolve
// against the kernel's real parameters is an error diagnostic at its part of the spec line
// (source kernelscope, a code per kind of problem), with the obvious quick fix: table by table
// on the recorded compile of saxpy (Recorded.h: its spec line edited, which changes no code);
// and, on the real compiler, applying the fix gives a spec that resolves (no diagnostic after
// the edit, which compiles anew).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "GpuFeatures.h"
#include "Process.h"
#include "RealPipeline.h"
#include "Recorded.h"
#include "SourceText.h"
#include "TestClient.h"

namespace ks::test {
namespace {

const std::string kSaxpyFile = KS_SOURCE_DIR "/examples/saxpy.rs";
const std::string kSpec =
    "n = 1 << 24; a = 2.0; x = f32[n] uniform(-1, 1, seed = 1); y = f32[n] uniform(-1, 1, seed = "
    "2); grid = ceil(n / block); block = 256; bytes = 12 * n; flops = 2 * n";

/// saxpy.rs with its spec's text `from` replaced by `to`.
std::string saxpyWith(const std::string& from, const std::string& to) {
  std::string text = readWholeFile(kSaxpyFile);
  size_t at = text.find(from);
  REQUIRE(text.find(kSpec) != std::string::npos);  // the example's spec, as this test knows it
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

/// The server on the real pipeline with one document, and its launch spec diagnostics.
struct SpecSession {
  Engine* compiler = nullptr;
  TestClient client;
  std::string uri;
  std::string text;
  int version = 1;

  explicit SpecSession(const std::string& source, const std::string& path = kSaxpyFile)
      : client(realOptions(compiler)), text(source) {
    open(path);
  }
  /// With `options`' compiles (replayedOptions: saxpy.rs as it is on disk, without tools).
  SpecSession(server::ServerOptions options, const std::string& source, const std::string& path)
      : client(std::move(options)), text(source) {
    open(path);
  }
  void open(const std::string& path) {
    uri = client.open(path, text);
    client.sync();
  }
  /// The kernelscope diagnostics of the newest publication for the document.
  json specDiagnostics() {
    auto published = client.notifications("textDocument/publishDiagnostics");
    auto own = std::find_if(published.rbegin(), published.rend(),
                            [&](const json& p) { return p["uri"] == uri; });
    REQUIRE(own != published.rend());
    json out = json::array();
    for (const json& d : (*own)["diagnostics"])
      if (d["source"] == "kernelscope" && d.value("code", "").starts_with("spec-"))
        out.push_back(d);
    return out;
  }
  json actionsAt(const json& range) {
    return client.result("textDocument/codeAction",
                         {{"textDocument", {{"uri", uri}}},
                          {"range", range},
                          {"context", {{"diagnostics", json::array()}}}});
  }
  /// Applies `action`'s edits to the document and compiles it again.
  void apply(const json& action) {
    for (const json& e : action["edit"]["changes"][uri])
      REQUIRE(server::applyEdit(text, e["range"].get<lsp::Range>(), e["newText"].get<std::string>(),
                                server::PositionEncoding::Utf16));
    client.change(uri, text, ++version);
    client.sync();
  }
};

json rangeOn(int line, int start, int end) {
  return {{"start", {{"line", line}, {"character", start}}},
          {"end", {{"line", line}, {"character", end}}}};
}

/// The 0-based character of `needle` on `line` of `text`.
int columnOf(const std::string& text, int line, std::string_view needle) {
  std::string_view l = splitLines(text)[static_cast<size_t>(line)];
  REQUIRE(l.find(needle) != std::string_view::npos);
  return static_cast<int>(l.find(needle));
}

}  // namespace

TEST_CASE("launch spec problems of the recorded saxpy, its spec line edited, and their fixes") {
  struct Row {
    const char* from;  // in saxpy.rs's spec, replaced by `to`
    const char* to;
    Expect expect;
  };
  const Row rows[] = {
      // The example's spec resolves, so it has no diagnostic.
      {"", "", EXPECT(R"~((none))~")},
      {"grid = ceil(n / block)", "grid = 1 << 20 / 256", EXPECT(R"~(
6:132-6:145 spec-shift-precedence: launch spec of saxpy: the shift amount is 0.078125, not a whole number: / binds tighter than << and >> (as in Rust) and divides exactly: to shift first, write it in parentheses: (1 << 20) / 256
quickfix: Shift first: (1 << 20) / 256 [spec-shift-precedence]
  6:132-6:145 "(1 << 20) / 256"
)~")},
      // The range counts UTF-16 code units, and the fix applies after non-ASCII text.
      {"y = f32[n] uniform(-1, 1, seed = 2); grid = ceil(n / block)",
       "y = f32[n] file(\"d\u00e4t\u00e4.npy\"); grid = 1 << 20 / 256", EXPECT(R"~(
6:124-6:137 spec-shift-precedence: launch spec of saxpy: the shift amount is 0.078125, not a whole number: / binds tighter than << and >> (as in Rust) and divides exactly: to shift first, write it in parentheses: (1 << 20) / 256
quickfix: Shift first: (1 << 20) / 256 [spec-shift-precedence]
  6:124-6:137 "(1 << 20) / 256"
)~")},
      // A name the kernel lacks is renamed to the parameter left without a value.
      {"a = 2.0", "alpha = 2.0", EXPECT(R"~(
6:42-6:47 spec-unknown-name: launch spec of saxpy: no parameter named 'alpha': saxpy takes (n: u32, a: f32, x: *const f32, y: *mut f32); other keys are grid, block, shared, bytes, flops
6:0-6:195 spec-missing-parameter: launch spec of saxpy: no value for parameter 'a: f32' of saxpy
quickfix: Rename 'alpha' to 'a' [spec-unknown-name]
  6:42-6:47 "a"
quickfix: Add 'a = 1.0' to the launch spec [spec-missing-parameter]
  6:0-6:0 "// kernelscope: a = 1.0\n"
)~")},
      // A parameter missing from the spec gets the skeleton's line for it.
      {"y = f32[n] uniform(-1, 1, seed = 2); ", "", EXPECT(R"~(
6:0-6:154 spec-missing-parameter: launch spec of saxpy: no value for parameter 'y: *mut f32' of saxpy
quickfix: Add 'y = f32[n] zeros' to the launch spec [spec-missing-parameter]
  6:0-6:0 "// kernelscope: y = f32[n] zeros\n"
)~")},
      // An item that is no KEY = VALUE is a syntax error at the item; without a block the spec
      // lacks one: the skeleton's block, on a line of its own.
      {"block = 256", "block 256", EXPECT(R"~(
6:149-6:158 spec-syntax: launch spec of saxpy: expected KEY = VALUE, found 'block 256'
6:141-6:146 spec-expression: launch spec of saxpy: 'block' has no value in the spec
6:0-6:189 spec-missing-launch: launch spec of saxpy: the spec needs 'block' (e.g. block = 256)
quickfix: Add 'block = 256' to the launch spec [spec-missing-launch]
  6:0-6:0 "// kernelscope: block = 256\n"
)~")},
  };
  const server::UriOf uriOf = [](const std::string& path) { return lsp::pathToFileUri(path); };
  const server::CrateLaunchSpecs noCrateSpecs;
  for (const Row& row : rows) {
    CAPTURE(row.to);
    server::Snapshot s = *recordedSnapshot("examples/saxpy.rs");
    if (*row.from) s.text = saxpyWith(row.from, row.to);
    const int line = lineOf(s.text, "// kernelscope:");
    const std::string_view specLine = splitLines(s.text)[static_cast<size_t>(line)];
    std::ostringstream out;
    for (const server::SpecDiagnostic& d :
         server::specDiagnostics(s, server::PositionEncoding::Utf16, noCrateSpecs))
      out << rangeText(d.diagnostic.range) << " " << d.diagnostic.code << ": "
          << d.diagnostic.message << "\n";
    // The fixes on the spec line, each edit as its range and its new text.
    const lsp::Range whole{{line, 0}, {line, static_cast<int>(specLine.size())}};
    for (const lsp::CodeAction& a :
         server::codeActions(s, whole, server::PositionEncoding::Utf16, uriOf, noCrateSpecs)) {
      out << a.kind << ": " << a.title << " [";
      for (const lsp::Diagnostic& d : a.diagnostics) out << d.code;
      out << "]\n";
      for (const auto& [uri, edits] : a.changes)
        for (const lsp::TextEdit& e : edits) {
          CHECK(uri == s.uri);
          out << "  " << rangeText(e.range) << " " << json(e.newText).dump() << "\n";
        }
    }
    row.expect.check(out.str().empty() ? "(none)" : out.str());
    // Nothing to fix at the spec line's `#[no_mangle]`.
    CHECK(server::codeActions(s, {{line, 0}, {line, 1}}, server::PositionEncoding::Utf16, uriOf,
                              noCrateSpecs)
              .empty() == (out.str().find("spec-missing") == std::string::npos));
  }
}

TEST_CASE("recorded pipeline: the example's launch spec resolves, so it publishes no diagnostic") {
  Engine* compiler = nullptr;
  SpecSession s(replayedOptions(compiler, "examples/saxpy.rs"), readWholeFile(kSaxpyFile),
                kSaxpyFile);
  CHECK(s.specDiagnostics().empty());
}

TEST_CASE("launch spec: a shift by a fraction is an error at the shift, fixed by parentheses") {
  requireToolchain();  // the edits: compiles no recording holds
  SpecSession s(saxpyWith("grid = ceil(n / block)", "grid = 1 << 20 / 256"));
  json ds = s.specDiagnostics();
  REQUIRE_MESSAGE(ds.size() == 1, ds.dump());
  const json& d = ds[0];
  const int line = lineOf(s.text, "// kernelscope:");
  const int at = columnOf(s.text, line, "1 << 20 / 256");
  CHECK(d["code"] == "spec-shift-precedence");
  CHECK(d["severity"] == 1);
  CHECK(d["range"] == rangeOn(line, at, at + 13));
  CHECK(d["message"].get<std::string>().find(
            "launch spec of saxpy: the shift amount is 0.078125, not a whole number: / binds "
            "tighter than << and >>") == 0);

  json actions = s.actionsAt(rangeOn(line, at + 2, at + 2));
  REQUIRE(actions.size() == 1);
  CHECK(actions[0]["kind"] == "quickfix");
  CHECK(actions[0]["title"] == "Shift first: (1 << 20) / 256");
  CHECK(actions[0]["diagnostics"][0]["code"] == "spec-shift-precedence");
  CHECK(s.actionsAt(rangeOn(line, 0, 1)).empty());  // not on the spec's `#[no_mangle]`
  s.apply(actions[0]);
  CHECK(s.text.find("grid = (1 << 20) / 256; block") != std::string::npos);
  CHECK(s.specDiagnostics().empty());
}

TEST_CASE("launch spec: the range counts UTF-16 code units, the fix applies after non-ASCII text") {
  requireToolchain();  // the edits: compiles no recording holds
  std::string text =
      saxpyWith("y = f32[n] uniform(-1, 1, seed = 2)", "y = f32[n] file(\"d\u00e4t\u00e4.npy\")");
  SpecSession s(text.replace(text.find("grid = ceil(n / block)"), 22, "grid = 1 << 20 / 256"));
  json ds = s.specDiagnostics();
  REQUIRE_MESSAGE(ds.size() == 1, ds.dump());
  const int line = lineOf(s.text, "// kernelscope:");
  const int at = columnOf(s.text, line, "1 << 20 / 256") - 2;  // each \u00e4: 2 bytes, 1 unit
  CHECK(ds[0]["range"] == rangeOn(line, at, at + 13));
  json actions = s.actionsAt(rangeOn(line, at, at));
  REQUIRE(actions.size() == 1);
  s.apply(actions[0]);
  CHECK(s.text.find("file(\"d\u00e4t\u00e4.npy\"); grid = (1 << 20) / 256; block") !=
        std::string::npos);
  CHECK(s.specDiagnostics().empty());
}

TEST_CASE("launch spec: a name the kernel lacks is renamed to the parameter left without a value") {
  requireToolchain();  // the edits: compiles no recording holds
  SpecSession s(saxpyWith("a = 2.0", "alpha = 2.0"));
  json ds = s.specDiagnostics();
  REQUIRE_MESSAGE(ds.size() == 2, ds.dump());
  const int line = lineOf(s.text, "// kernelscope:");
  const int at = columnOf(s.text, line, "alpha");
  json unknown, missing;
  for (const json& d : ds) (d["code"] == "spec-unknown-name" ? unknown : missing) = d;
  CHECK(unknown["range"] == rangeOn(line, at, at + 5));
  CHECK(unknown["message"].get<std::string>().find(
            "no parameter named 'alpha': saxpy takes (n: u32, a: f32, x: *const f32, y: *mut "
            "f32)") != std::string::npos);
  CHECK(missing["code"] == "spec-missing-parameter");
  CHECK(missing["message"] == "launch spec of saxpy: no value for parameter 'a: f32' of saxpy");
  CHECK(missing["range"]["start"] == json({{"line", line}, {"character", 0}}));  // the whole line
  CHECK(missing["range"]["end"]["character"] ==
        static_cast<int>(splitLines(s.text)[static_cast<size_t>(line)].size()));

  json actions = s.actionsAt(rangeOn(line, at, at));
  json rename, insert;
  for (const json& a : actions)
    (a["diagnostics"][0]["code"] == "spec-unknown-name" ? rename : insert) = a;
  REQUIRE_MESSAGE(!rename.is_null(), actions.dump());
  CHECK(rename["title"] == "Rename 'alpha' to 'a'");
  // The missing parameter's fix is the `Add launch spec` skeleton's item for it.
  REQUIRE_MESSAGE(!insert.is_null(), actions.dump());
  CHECK(insert["title"] == "Add 'a = 1.0' to the launch spec");
  CHECK(insert["edit"]["changes"][s.uri][0]["newText"] == "// kernelscope: a = 1.0\n");
  s.apply(rename);
  CHECK(s.text.find("; a = 2.0; x =") != std::string::npos);
  CHECK(s.specDiagnostics().empty());
}

TEST_CASE("launch spec: a parameter missing from the spec gets the skeleton's line for it") {
  requireToolchain();  // the edits: compiles no recording holds
  SpecSession s(saxpyWith("y = f32[n] uniform(-1, 1, seed = 2); ", ""));
  json ds = s.specDiagnostics();
  REQUIRE_MESSAGE(ds.size() == 1, ds.dump());
  const int line = lineOf(s.text, "// kernelscope:");
  CHECK(ds[0]["code"] == "spec-missing-parameter");
  CHECK(ds[0]["message"] == "launch spec of saxpy: no value for parameter 'y: *mut f32' of saxpy");
  json actions = s.actionsAt(rangeOn(line, 0, 0));
  REQUIRE(actions.size() == 1);
  const json& e = actions[0]["edit"]["changes"][s.uri][0];
  CHECK(e["newText"] == "// kernelscope: y = f32[n] zeros\n");
  CHECK(e["range"] == rangeOn(line, 0, 0));  // its own line, above the spec's
  s.apply(actions[0]);
  CHECK(lineOf(s.text, "// kernelscope: y = f32[n] zeros") == line);
  CHECK(s.specDiagnostics().empty());
}

TEST_CASE("launch spec: an item that is no KEY = VALUE is a syntax error at the item") {
  requireToolchain();  // the edits: compiles no recording holds
  SpecSession s(saxpyWith("block = 256", "block 256"));
  json ds = s.specDiagnostics();
  const int line = lineOf(s.text, "// kernelscope:");
  const int at = columnOf(s.text, line, "block 256");
  json syntax;
  for (const json& d : ds)
    if (d["code"] == "spec-syntax") syntax = d;
  REQUIRE_MESSAGE(!syntax.is_null(), ds.dump());
  CHECK(syntax["range"] == rangeOn(line, at, at + 9));
  CHECK(syntax["message"] == "launch spec of saxpy: expected KEY = VALUE, found 'block 256'");
  // Without a block the spec lacks one: the skeleton's block, on a line of its own.
  json actions = s.actionsAt(rangeOn(line, 0, 0));
  bool addsBlock = false;
  for (const json& a : actions)
    addsBlock =
        addsBlock || a["edit"]["changes"][s.uri][0]["newText"] == "// kernelscope: block = 256\n";
  CHECK_MESSAGE(addsBlock, actions.dump());
}

TEST_CASE("launch spec: with a spec in the crate's Cargo.toml too, only the items' own problems") {
  requireToolchain();  // a crate made for the test: compiles no recording holds
  namespace fs = std::filesystem;
  // saxpy whose comment gives only a grid, shifted by a fraction; the crate gives the rest.
  const std::string kernel = saxpyWith(kSpec, "grid = 1 << 20 / 256");
  auto codes = [&](const std::string& launch) {
    TempDir dir("kernelscope-spec-diagnostics");
    fs::create_directories(dir.path() / "src");
    std::ofstream(dir.path() / "Cargo.toml")
        << "[package]\nname = \"spec-crate\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n"
           "[lib]\npath = \"src/lib.rs\"\n\n"
        << launch;
    std::ofstream(dir.path() / "src/lib.rs") << kernel;
    SpecSession s(kernel, (dir.path() / "src/lib.rs").string());
    std::multiset<std::string> out;
    for (const json& d : s.specDiagnostics()) out.insert(d["code"].get<std::string>());
    return out;
  };
  CHECK(codes("[package.metadata.kernelscope.launch.saxpy]\nn = \"1 << 20\"\na = \"2.0\"\n"
              "x = \"f32[n] zeros\"\ny = \"f32[n] zeros\"\nblock = \"256\"\n") ==
        std::multiset<std::string>{"spec-shift-precedence"});
  // Without it, what the written spec lacks too.
  CHECK(codes("[package.metadata.kernelscope]\narch = \"sm_90\"\n") ==
        std::multiset<std::string>{"spec-shift-precedence", "spec-missing-parameter",
                                   "spec-missing-parameter", "spec-missing-parameter",
                                   "spec-missing-parameter", "spec-missing-launch"});
}

TEST_CASE(
    "launch spec: a kernel in a module file of a crate gets its spec's problem at the spec line") {
  requireToolchain();  // a crate made for the test: compiles no recording holds
  namespace fs = std::filesystem;
  // saxpy moved into src/kernels.rs; the crate root holds only the module and the handler.
  std::string kernel = saxpyWith("grid = ceil(n / block)", "grid = 1 << 20 / 256");
  const size_t from = kernel.find("use core::arch::nvptx;");
  const size_t to = kernel.find("#[panic_handler]");
  REQUIRE((from != std::string::npos && to != std::string::npos));
  kernel = kernel.substr(from, to - from);
  TempDir dir("kernelscope-spec-module");
  fs::create_directories(dir.path() / "src");
  std::ofstream(dir.path() / "Cargo.toml")
      << "[package]\nname = \"spec-module\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n"
         "[lib]\npath = \"src/lib.rs\"\n";
  std::ofstream(dir.path() / "src/lib.rs")
      << "#![no_std]\n#![feature(abi_ptx, stdarch_nvptx)]\n\nmod kernels;\n\n"
         "#[panic_handler]\nfn panic(_: &core::panic::PanicInfo) -> ! {\n    loop {}\n}\n";
  const std::string modulePath = (dir.path() / "src/kernels.rs").string();
  std::ofstream(modulePath) << kernel;

  SpecSession s(kernel, modulePath);
  json ds = s.specDiagnostics();
  REQUIRE_MESSAGE(ds.size() == 1, ds.dump());
  const int line = lineOf(s.text, "// kernelscope:");
  const int at = columnOf(s.text, line, "1 << 20 / 256");
  CHECK(ds[0]["code"] == "spec-shift-precedence");
  CHECK(ds[0]["range"] == rangeOn(line, at, at + 13));
  json actions = s.actionsAt(rangeOn(line, at, at));
  REQUIRE(actions.size() == 1);
  s.apply(actions[0]);
  CHECK(s.text.find("grid = (1 << 20) / 256; block") != std::string::npos);
  CHECK(s.specDiagnostics().empty());
}

}  // namespace ks::test
