// Filtered views of artifacts: goldens of the filtered PTX, SASS and MIR of an example,
// the mapping between view and artifact lines, and linked highlighting through the server
// that stays exact with filters on and off.
#include <doctest/doctest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "ArtifactView.h"
#include "Engine.h"
#include "Parsers.h"
#include "RealPipeline.h"
#include "TestClient.h"
#include "Toolchain.h"

namespace ks::test {
namespace {

namespace fs = std::filesystem;

lsp::ArtifactFilters allFilters() { return {true, true, true, true, true, true, true}; }

Artifact goldenArtifact(const std::string& example, Stage stage) {
  const fs::path dir = fs::path(KS_SOURCE_DIR) / "tests/golden" / example;
  switch (stage) {
    case Stage::Mir:
      return parseMir(readWholeFile(dir / "k.mir"));
    case Stage::Ptx:
      return parsePtx(readWholeFile(dir / "k.ptx"));
    case Stage::Sass:
      return parseSass(readWholeFile(dir / "k.sass"));
    case Stage::LlvmIr:
      break;
  }
  return parseLlvmIr(readWholeFile(dir / "k.ll"));
}

std::string_view trimView(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

/// Every view line shows the artifact line it says it shows, and back.
void checkMapping(const Artifact& a, const ArtifactView& view, bool compacted) {
  auto lines = splitLines(view.text());
  REQUIRE(lines.size() == view.size());
  for (size_t v = 0; v < lines.size(); ++v) {
    int l = view.artifactLine(static_cast<int>(v));
    REQUIRE(l >= 0);
    CHECK(view.viewLine(l) == static_cast<int>(v));
    // A compacted line (SASS without padding, MIR without its scope span) begins the same.
    if (!compacted)
      CHECK(lines[v] == a.lineText(l));
    else
      CHECK(a.lineText(l).find(trimView(lines[v]).substr(0, 8)) != std::string_view::npos);
  }
}

}  // namespace

TEST_CASE("filters: goldens of the filtered PTX, SASS and MIR of elementwise_mul") {
  const fs::path dir = fs::path(KS_SOURCE_DIR) / "tests/golden/elementwise_mul";
  for (Stage stage : {Stage::Ptx, Stage::Sass, Stage::Mir, Stage::LlvmIr}) {
    CAPTURE(stageName(stage));
    Artifact a = goldenArtifact("elementwise_mul", stage);
    // Filters off: the artifact as it is.
    ArtifactView whole(a, lsp::ArtifactFilters{});
    CHECK(whole.text() == a.text());
    CHECK(whole.size() == a.lines().size());

    ArtifactView view(a, allFilters());
    checkMapping(a, view, stage == Stage::Sass || stage == Stage::Mir);
    checkGolden(dir / (std::string(stageName(stage)) + ".filtered.expected"), view.text());
    CHECK(view.size() < a.lines().size());
    // Every instruction of the kernels survives.
    size_t kernelInstructions = 0, shownInstructions = 0;
    for (const ArtifactFunction& f : a.functions)
      if (f.isKernel)
        for (uint32_t l = f.firstLine; l <= f.lastLine; ++l) {
          if (a.lines()[l].kind != LineKind::Instruction) continue;
          std::string_view t = a.lineText(l);
          if (t.find("NOP") != t.npos || t.find("BRA `(.L_x_1)") != t.npos) continue;  // padding
          ++kernelInstructions;
          shownInstructions += view.viewLine(l) >= 0;
        }
    CHECK(shownInstructions == kernelInstructions);
  }
}

TEST_CASE("filters: each one hides what it names, and nothing else") {
  Artifact ptx = goldenArtifact("elementwise_mul", Stage::Ptx);
  auto only = [](auto member) {
    lsp::ArtifactFilters f;
    f.*member = true;
    return f;
  };
  std::string loc = ArtifactView(ptx, only(&lsp::ArtifactFilters::debugLocations)).text();
  CHECK(loc.find(".loc") == std::string::npos);
  CHECK(loc.find("$L__tmp") != std::string::npos);
  CHECK(loc.find(".version") != std::string::npos);

  std::string labels = ArtifactView(ptx, only(&lsp::ArtifactFilters::unusedLabels)).text();
  CHECK(labels.find("$L__tmp") == std::string::npos);
  CHECK(labels.find("$L__func_begin") == std::string::npos);
  CHECK(labels.find("$L__BB1_2:") != std::string::npos);  // a loop's head: a branch takes it

  std::string directives = ArtifactView(ptx, only(&lsp::ArtifactFilters::directives)).text();
  CHECK(directives.find(".version") == std::string::npos);
  CHECK(directives.find(".reg") == std::string::npos);
  CHECK(directives.find(".loc") != std::string::npos);
  CHECK(directives.find(".visible .entry elementwise_mul(") != std::string::npos);

  std::string library = ArtifactView(ptx, only(&lsp::ArtifactFilters::libraryFunctions)).text();
  CHECK(library.find("rust_begin_unwind(") == std::string::npos);
  CHECK(library.find(".entry elementwise_mul") != std::string::npos);

  Artifact sass = goldenArtifact("elementwise_mul", Stage::Sass);
  std::string padding = ArtifactView(sass, only(&lsp::ArtifactFilters::padding)).text();
  CHECK(padding.find("NOP") == std::string::npos);
  CHECK(padding.find("BRA `(.L_x_1)") == std::string::npos);
  CHECK(padding.find("@!P0 BRA `(.L_x_0)") != std::string::npos);  // the loop's branch stays
  CHECK(padding.find("EXIT") != std::string::npos);
  std::string compact = ArtifactView(sass, only(&lsp::ArtifactFilters::compactSass)).text();
  CHECK(compact.find("\n/*0090*/ @P0 EXIT ;\n") != std::string::npos);
  CHECK(splitLines(compact).size() == sass.lines().size());

  // MIR: rustc's banner goes with the comments, derived impls with the library functions.
  Artifact mir = parseMir(
      "// WARNING: This output format is intended for human consumers only\n"
      "fn <impl at d.rs:1:10: 1:15>::clone(_1: &P) -> P {\n"
      "    let mut _0: P;\n"
      "    bb0: {\n"
      "        _0 = copy (*_1);\n"
      "        return;\n"
      "    }\n"
      "}\n"
      "\n"
      "fn k(_1: P) -> f32 {\n"
      "    let mut _0: f32;\n"
      "    bb0: {\n"
      "        _0 = copy (_1.0: f32);\n"
      "        return;\n"
      "    }\n"
      "}\n");
  std::string mirText = ArtifactView(mir, allFilters()).text();
  CHECK(mirText.find("WARNING") == std::string::npos);
  CHECK(mirText.find("clone") == std::string::npos);
  CHECK(mirText.find("fn k(_1: P) -> f32 {") != std::string::npos);

  // MIR's scope spans end most lines with an absolute path: debugLocations cuts those
  // tails, keeping the lines (and so every line's mapping) and any other comment.
  Artifact scoped = goldenArtifact("elementwise_mul", Stage::Mir);
  ArtifactView spans(scoped, only(&lsp::ArtifactFilters::debugLocations));
  CHECK(spans.size() == scoped.lines().size());
  CHECK(spans.text().find(" at /") == std::string::npos);
  CHECK(spans.text().find("scope 0 at") == std::string::npos);
  CHECK(spans.text().find("    let mut _0: ();\n") != std::string::npos);
  CHECK(scoped.text().find("in scope 0 at") != std::string::npos);
  Artifact other = parseMir("fn k() -> () {\n    let mut _0: (); // a note of mine\n}\n");
  CHECK(ArtifactView(other, only(&lsp::ArtifactFilters::debugLocations)).text() == other.text());
}

TEST_CASE("filters: a view's segments and kernels count the view's lines") {
  lsp::ArtifactResult r;
  r.text = "a\n.loc 1 2 3\nb\n.loc 1 3 3\nc\n";
  r.segments = {{0, 2, {}, {}}, {3, 3, {}, {}}, {4, 4, {}, {}}};
  r.kernels = {{"k", 0, 4}};
  Artifact a = parsePtx(r.text);
  ArtifactView view(a, lsp::ArtifactFilters{false, true});
  lsp::ArtifactResult f = filterArtifact(r, view);
  CHECK(f.text == "a\nb\nc\n");
  REQUIRE(f.segments.size() == 2);  // the segment of the `.loc` alone is gone
  CHECK(f.segments[0].start == 0);
  CHECK(f.segments[0].end == 1);
  CHECK(f.segments[1].start == 2);
  CHECK(f.segments[1].end == 2);
  CHECK(f.kernels[0].start == 0);
  CHECK(f.kernels[0].end == 2);
}

TEST_CASE("filters: the editors' views start with defaultViewFilters(), as the report's panes do") {
  const fs::path root(KS_SOURCE_DIR);
  const json package = json::parse(readWholeFile(root / "editors/vscode/package.json"));
  json vscode = json::object();
  for (const auto& [key, setting] : package["contributes"]["configuration"]["properties"].items())
    if (key.starts_with("kernelscope.filters."))
      vscode[key.substr(std::string_view("kernelscope.filters.").size())] = setting["default"];
  // Neovim's config.lua: `filters = {` then one `name = true,` a line up to `},`.
  std::istringstream config(readWholeFile(root / "editors/nvim/lua/kernelscope/config.lua"));
  json nvim = json::object();
  bool inFilters = false;
  for (std::string line; std::getline(config, line);) {
    std::string_view t = trimView(line);
    if (t.starts_with("filters = {")) {
      inFilters = true;
    } else if (inFilters && t.starts_with("}")) {
      break;
    } else if (inFilters && t.find(" = ") != t.npos) {
      const std::string_view name = t.substr(0, t.find(" = "));
      nvim[std::string(name)] = t.find("true") != t.npos;
    }
  }
  CHECK(vscode.size() == 7);
  CHECK(nvim == vscode);
  CHECK(vscode.get<lsp::ArtifactFilters>() == defaultViewFilters());
}

TEST_CASE("filters: bad filters are refused, naming the key") {
  TestClient client(TestClient::options());
  std::string uri = client.open("/tmp/kernelscope-test/src/saxpy.rs", kFakeSaxpy);
  client.sync();
  json r = client.request(
      "kernelscope/artifact",
      {{"textDocument", {{"uri", uri}}}, {"stage", "ptx"}, {"filters", {{"comments", "yes"}}}});
  CHECK(r["error"]["code"] == int(lsp::ErrorCode::InvalidParams));
  CHECK(r["error"]["message"].get<std::string>().find("filters.comments") != std::string::npos);
}

TEST_CASE("real pipeline: linked highlighting is exact with filters on and off") {
  Toolchain tc = discoverToolchain();
  if (!tc.rustc.found() || !tc.sysroot.found()) {
    MESSAGE("skipped: no usable rustc and nvptx64 sysroot (run scripts/setup.sh)");
    return;
  }
  Engine compiler(ToolchainSettings{}, nullptr);
  server::ServerOptions o = TestClient::options(/*workers=*/1, std::chrono::milliseconds(0));
  o.compile = [&compiler](const CompileInput& in, const CompileOptions& opts,
                          const CancellationToken& c) { return compiler.compile(in, opts, c); };
  TestClient client(std::move(o));
  const std::string path = KS_SOURCE_DIR "/examples/elementwise_mul.rs";
  const std::string source = readWholeFile(path);
  std::string uri = client.open(path, source);
  client.sync();
  const json filters = {{"directives", true},  {"debugLocations", true},   {"unusedLabels", true},
                        {"comments", true},    {"libraryFunctions", true}, {"padding", true},
                        {"compactSass", false}};
  for (const char* stage : {"ptx", "sass"}) {
    CAPTURE(stage);
    json whole =
        client.result("kernelscope/artifact", {{"textDocument", {{"uri", uri}}}, {"stage", stage}});
    json view =
        client.result("kernelscope/artifact",
                      {{"textDocument", {{"uri", uri}}}, {"stage", stage}, {"filters", filters}});
    const std::string wholeText = whole["text"], viewText = view["text"];
    auto wholeLines = splitLines(wholeText);
    auto viewLines = splitLines(viewText);
    CHECK(viewLines.size() < wholeLines.size());
    int lines = static_cast<int>(splitLines(source).size());
    int highlighted = 0;
    for (int line = 0; line < lines; ++line) {
      json a =
          client.result("kernelscope/lineMap", {{"textDocument", {{"uri", uri}}}, {"line", line}});
      json b =
          client.result("kernelscope/lineMap",
                        {{"textDocument", {{"uri", uri}}}, {"line", line}, {"filters", filters}});
      // The same instructions of the kernels light up, in either view (the panic handler,
      // which no kernel calls, is a library function the view leaves out).
      auto inKernel = [&](int l) {
        for (const json& k : whole["kernels"])
          if (k["start"] <= l && l <= k["end"]) return true;
        return false;
      };
      std::vector<std::string> inWhole, inView;
      for (const json& r : a["stages"][stage])
        for (int l = r["start"]; l <= r["end"]; ++l) {
          std::string_view t = wholeLines[l];
          if (inKernel(l) && t.find(".loc") == t.npos && t.find("//## File") == t.npos)
            inWhole.emplace_back(t);
        }
      for (const json& r : b["stages"][stage])
        for (int l = r["start"]; l <= r["end"]; ++l) inView.emplace_back(viewLines[l]);
      CHECK(inWhole == inView);
      highlighted += !inView.empty();
      // Back from the view's lines: the same source line and chain as the whole text's.
      for (const json& r : b["stages"][stage]) {
        json fromView =
            client.result("kernelscope/sourceLocation",
                          {{"uri", view["uri"]}, {"line", r["start"]}, {"filters", filters}});
        REQUIRE(!fromView["location"].is_null());
        CHECK(fromView["location"]["range"]["start"]["line"] == line);
      }
    }
    CHECK(highlighted > 3);
    // Segments of the view point at the view's lines: each names the source line that
    // lineMap (with the same filters) maps to it.
    for (const json& seg : view["segments"]) {
      json loc =
          client.result("kernelscope/sourceLocation",
                        {{"uri", view["uri"]}, {"line", seg["start"]}, {"filters", filters}});
      if (loc["location"].is_null()) continue;
      CHECK(loc["location"]["range"]["start"]["line"] == seg["source"]["line"]);
    }
    // Hover on the view (the server remembers its filters) explains the view's line.
    json seg = view["segments"][0];
    json hover = client.result("textDocument/hover",
                               {{"textDocument", {{"uri", view["uri"]}}},
                                {"position", {{"line", seg["start"]}, {"character", 0}}}});
    std::string shown(trimView(viewLines[seg["start"].get<int>()]));
    // A hover shows SASS compact, whatever the view's compactSass.
    if (std::string_view(stage) == "sass") shown = compactSassLine(shown);
    CAPTURE(shown);
    CAPTURE(hover.dump());
    CHECK(hover["contents"]["value"].get<std::string>().find(shown) != std::string::npos);
  }
}

TEST_CASE("real pipeline: a view's filters are forgotten when the view closes, or its source") {
  requireToolchain();
  Engine* compiler = nullptr;
  TestClient client(realOptions(compiler));
  const std::string path = KS_SOURCE_DIR "/examples/elementwise_mul.rs";
  const std::string source = readWholeFile(path);
  std::string uri = client.open(path, source);
  client.sync();
  const json params = {{"textDocument", {{"uri", uri}}}, {"stage", "ptx"}};
  json filtered = params;
  filtered["filters"] = {{"directives", true}, {"debugLocations", true}};
  const std::string wholeText = client.result("kernelscope/artifact", params)["text"];
  const json view = client.result("kernelscope/artifact", filtered);
  const std::string viewText = view["text"];
  auto wholeLines = splitLines(wholeText), viewLines = splitLines(viewText);
  // A view line that shows another instruction than the same line of the whole text.
  int line = -1;
  for (const json& seg : view["segments"]) {
    const int l = seg["start"];
    std::string_view w = trimView(wholeLines[l]);
    if (!w.empty() && std::isalpha(static_cast<unsigned char>(w[0])) &&
        w != trimView(viewLines[l])) {
      line = l;
      break;
    }
  }
  REQUIRE(line >= 0);
  const std::string inView(trimView(viewLines[line])), inWhole(trimView(wholeLines[line]));
  CAPTURE(inView);
  CAPTURE(inWhole);
  auto hoverOnView = [&] {
    json r =
        client.result("textDocument/hover", {{"textDocument", {{"uri", view["uri"]}}},
                                             {"position", {{"line", line}, {"character", 0}}}});
    return r.is_null() ? std::string() : r["contents"]["value"].get<std::string>();
  };
  CHECK(hoverOnView().find(inView) != std::string::npos);

  // The view's document closes (its URI spelt with an escape): the hover reads the whole text.
  std::string spelt = view["uri"];
  spelt.replace(spelt.find("elementwise_mul"), 15, "elementwise%5Fmul");
  client.notify("textDocument/didClose", {{"textDocument", {{"uri", spelt}}}});
  CHECK(hoverOnView().find(inWhole) != std::string::npos);

  // The source closes (a client that never opens its views as documents): reopened, the
  // view's filters are gone too.
  client.result("kernelscope/artifact", filtered);
  CHECK(hoverOnView().find(inView) != std::string::npos);
  client.notify("textDocument/didClose", {{"textDocument", {{"uri", uri}}}});
  client.open(path, source, 2);
  client.sync();
  CHECK(hoverOnView().find(inWhole) != std::string::npos);
}

TEST_CASE(
    "real pipeline: hovers and inlay hints count what the views show, under the views' filters") {
  requireToolchain();
  Engine* compiler = nullptr;
  TestClient client(realOptions(compiler), /*initialize=*/false);
  client.result("initialize",
                {{"capabilities", {{"workspace", {{"inlayHint", {{"refreshSupport", true}}}}}}}});
  client.notify("initialized", json::object());
  const std::string path = KS_SOURCE_DIR "/examples/saxpy.rs";
  const std::string source = readWholeFile(path);
  const std::string uri = client.open(path, source);
  client.sync();
  const int lines = static_cast<int>(splitLines(source).size());
  // The panic handler's `loop {}`: it made PTX, in a function no kernel calls.
  int loop = 0;
  while (loop < lines && trimView(splitLines(source)[loop]) != "loop {}") ++loop;
  REQUIRE(loop < lines);
  auto hints = [&] {
    json range = {{"start", {{"line", 0}, {"character", 0}}},
                  {"end", {{"line", lines}, {"character", 0}}}};
    std::map<int, std::string> byLine;
    for (const json& h : client.result("textDocument/inlayHint",
                                       {{"textDocument", {{"uri", uri}}}, {"range", range}}))
      byLine[h["position"]["line"]] = h["label"];
    return byLine;
  };
  auto hover = [&](int line) {
    json h = client.result(
        "textDocument/hover",
        {{"textDocument", {{"uri", uri}}}, {"position", {{"line", line}, {"character", 4}}}});
    return h.is_null() ? std::string() : h["contents"]["value"].get<std::string>();
  };
  // Each line's hint and hover say the PTX and SASS lines that kernelscope/lineMap with the
  // same filters counts (nothing where it counts none).
  auto agreeWithLineMap = [&](const json& filters) {
    const auto byLine = hints();
    for (int line = 0; line < lines; ++line) {
      CAPTURE(line);
      json params = {{"textDocument", {{"uri", uri}}}, {"line", line}};
      if (!filters.is_null()) params["filters"] = filters;
      const json map = client.result("kernelscope/lineMap", params);
      std::string want;
      for (const char* stage : {"ptx", "sass"})
        if (map["counts"].value(stage, 0) > 0)
          want += (want.empty() ? "" : " · ") + std::to_string(map["counts"][stage].get<int>()) +
                  " " + stage;
      auto hint = byLine.find(line);
      const std::string label = hint == byLine.end() ? "" : hint->second;
      CAPTURE(label);
      if (want.empty()) {
        // Nothing of its own: no hint, or one counting inlined code, which lineMap does not.
        CHECK((label.empty() || label.find("(inlined)") != std::string::npos));
        continue;
      }
      CHECK(label.starts_with(want));
      const std::string h = hover(line);
      CAPTURE(h);
      for (const char* stage : {"ptx", "sass"})
        if (map["counts"].value(stage, 0) > 0)
          CHECK(h.find("**" + std::string(stage) + "** · " +
                       std::to_string(map["counts"][stage].get<int>()) + " line") !=
                std::string::npos);
    }
    return byLine;
  };
  json defaults = json::object();
  for (const ViewFilter& f : viewFilters()) defaults[f.name] = defaultViewFilters().*f.field;
  // Before any view is asked for: the filters the editors' views start with.
  auto byLine = agreeWithLineMap(defaults);
  CHECK(byLine.count(loop) == 0);
  CHECK(hover(loop).empty());
  // A view asked without filters shows every line: now the loop counts its PTX.
  client.messages();
  client.result("kernelscope/artifact", {{"textDocument", {{"uri", uri}}}, {"stage", "ptx"}});
  bool refreshed = false;
  for (const json& m : client.messages())
    refreshed |= m.value("method", "") == "workspace/inlayHint/refresh";
  CHECK(refreshed);
  byLine = agreeWithLineMap(nullptr);
  REQUIRE(byLine.count(loop) == 1);
  CHECK(byLine[loop].starts_with("1 ptx"));
  CHECK(hover(loop).find("**ptx** · 1 line") != std::string::npos);
  // And with the views' filters again, as the editors ask after a toggle.
  client.result("kernelscope/artifact",
                {{"textDocument", {{"uri", uri}}}, {"stage", "sass"}, {"filters", defaults}});
  byLine = agreeWithLineMap(defaults);
  CHECK(byLine.count(loop) == 0);
}

}  // namespace ks::test
