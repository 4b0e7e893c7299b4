// kernelscope/lineMap and kernelscope/sourceLocation on recorded compiles of the examples
// (Recorded.h): what a source line became in every stage, and where a generated line came
// from with its inline chain, table by table.
#include <doctest/doctest.h>

#include "Recorded.h"

namespace ks::test {

namespace {

std::string fileName(const std::string& uriOrPath) {
  return uriOrPath.substr(uriOrPath.rfind('/') + 1);
}

/// Per stage, the count and the trimmed text of each line the source line became (`inlined:`
/// before the lines inlined through a call on it).
std::string lineMapText(const server::Snapshot& s, const lsp::LineMapResult& map) {
  std::string out;
  for (Stage stage : kAllStages) {
    const std::string name(stageName(stage));
    auto direct = map.stages.find(name), inlined = map.inlined.find(name);
    if (direct == map.stages.end() && inlined == map.inlined.end()) continue;
    auto count = map.counts.find(name);
    out += name + " (" + std::to_string(count == map.counts.end() ? 0 : count->second) + ")\n";
    const Artifact& artifact = *s.result->stage(stage)->artifact;
    auto lines = [&](const std::vector<lsp::LineRange>& ranges, const char* mark) {
      for (const lsp::LineRange& r : ranges)
        for (int l = r.start; l <= r.end; ++l)
          out += std::string("  ") + mark + std::string(text::trim(artifact.lineText(l))) + "\n";
    };
    if (direct != map.stages.end()) lines(direct->second, "");
    if (inlined != map.inlined.end()) lines(inlined->second, "inlined: ");
  }
  return out.empty() ? "(nothing)" : out;
}

/// `file:line:character`, then the inline chain a frame a line.
std::string sourceLocationText(const lsp::SourceLocationResult& r) {
  if (!r.location) return "(none)";
  std::string out = fileName(r.location->uri) + ":" + std::to_string(r.location->range.start.line) +
                    ":" + std::to_string(r.location->range.start.character) + "\n";
  for (const lsp::InlineFrame& f : r.inlineChain)
    out += "  " + f.function + " at " + fileName(f.uri) + ":" + std::to_string(f.line) + ":" +
           std::to_string(f.character) + "\n";
  return out;
}

}  // namespace

TEST_CASE("the line map of a source line of a recorded kernel, stage by stage") {
  struct Row {
    const char* kernel;
    const char* fixture;  // the source line, `$0` anywhere on it
    Expect expect;
  };
  const Row rows[] = {
      {"examples/saxpy.rs", "$0*y.add(i) = a * *x.add(i) + *y.add(i);", EXPECT(R"~()~")},
      {"examples/saxpy.rs", "$0use core::arch::nvptx;", EXPECT(R"~()~")},
      {"examples/elementwise_mul.rs", "$0let (start, stride) = grid_stride();", EXPECT(R"~()~")},
  };
  for (const Row& row : rows) {
    CAPTURE(row.fixture);
    auto s = recordedSnapshot(row.kernel);
    row.expect.check(lineMapText(*s, server::lineMapOf(*s, cursor(s->text, row.fixture).line)));
  }
}

TEST_CASE("where a line of a recorded kernel's PTX or SASS came from, with its inline chain") {
  struct Row {
    const char* kernel;
    Stage stage;
    const char* fixture;  // a line of the stage's text, `$0` anywhere on it
    Expect expect;
  };
  const Row rows[] = {
      {"examples/saxpy.rs", Stage::Ptx, "$0fma.rn.f32", EXPECT(R"~()~")},
      {"examples/saxpy.rs", Stage::Sass, "$0STG.E", EXPECT(R"~()~")},
      {"examples/saxpy.rs", Stage::Ptx, "$0.target", EXPECT(R"~()~")},
  };
  const server::UriOf uriOf = [](const std::string& path) { return pathToFileUri(path); };
  for (const Row& row : rows) {
    CAPTURE(row.fixture);
    auto s = recordedSnapshot(row.kernel);
    const int line = cursor(s->result->stage(row.stage)->artifact->text(), row.fixture).line;
    row.expect.check(sourceLocationText(server::sourceLocationOf(*s, row.stage, line, uriOf)));
  }
}

}  // namespace ks::test
