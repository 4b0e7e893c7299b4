// Hover, on a source line and on a virtual document's line: through the protocol (a fake
// client over an in-memory transport, a fake compile function), and table by table on
// recorded compiles of the examples (Recorded.h).
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

TEST_CASE("hover on a source line and on a virtual document line") {
  TestClient client(TestClient::options());
  std::string uri = client.open(kPath, kSaxpy);
  client.sync();
  json hover = client.result("textDocument/hover", {{"textDocument", {{"uri", uri}}},
                                                    {"position", {{"line", 3}, {"character", 5}}}});
  std::string md = hover["contents"]["value"];
  CHECK(md.find("**ptx** · 1 line") != std::string::npos);
  CHECK(md.find("add.s32 \t%r4, %r4, 1;") != std::string::npos);
  CHECK(md.find("**sass** · 2 lines") != std::string::npos);
  CHECK(md.find("inlined from `core::ptr::mut_ptr::add` at mut_ptr.rs:1040:18") !=
        std::string::npos);
  CHECK(client
            .result("textDocument/hover", {{"textDocument", {{"uri", uri}}},
                                           {"position", {{"line", 0}, {"character", 0}}}})
            .is_null());

  std::string ptxUri = "kernelscope:/ptx" + kPath + ".ptx";
  json vhover = client.result(
      "textDocument/hover",
      {{"textDocument", {{"uri", ptxUri}}}, {"position", {{"line", 3}, {"character", 0}}}});
  std::string vmd = vhover["contents"]["value"];
  CHECK(vmd.find("from saxpy.rs:4:5") != std::string::npos);
  CHECK(vmd.find("inline chain") != std::string::npos);
}

TEST_CASE("hover on a source line of a recorded kernel: what it became in PTX and SASS") {
  struct Row {
    const char* kernel;
    const char* fixture;  // the line, `$0` at the cursor
    Expect expect;
  };
  const Row rows[] = {
      {"examples/saxpy.rs", "*y.add(i) = a * $0*x.add(i) + *y.add(i);", EXPECT(R"~()~")},
      {"examples/saxpy.rs", "$0#![no_std]", EXPECT(R"~()~")},
      // A line whose code is an inlined call of the user's own function counts the lines
      // inlined through it, marked so; the inlined body's line keeps its own count.
      {"examples/elementwise_mul.rs", "let (start, stride) = $0grid_stride();", EXPECT(R"~()~")},
      {"examples/elementwise_mul.rs", "let start = $0(nvptx::_block_idx_x()", EXPECT(R"~()~")},
  };
  for (const Row& row : rows) {
    CAPTURE(row.fixture);
    auto s = recordedSnapshot(row.kernel);
    const int line = cursor(s->text, row.fixture).line;
    row.expect.check(hoverText(server::sourceHover(*s, line, server::Settings{}, true)));
  }
}

TEST_CASE("hover on a line of a recorded kernel's PTX or SASS: the source line it came from") {
  struct Row {
    const char* kernel;
    Stage stage;
    const char* fixture;  // a line of the stage's text, `$0` at the cursor
    Expect expect;
  };
  const Row rows[] = {
      {"examples/saxpy.rs", Stage::Ptx, "$0fma.rn.f32", EXPECT(R"~()~")},
      {"examples/saxpy.rs", Stage::Sass, "$0FFMA", EXPECT(R"~()~")},
      {"examples/saxpy.rs", Stage::Ptx, "$0.version", EXPECT(R"~()~")},
      {"examples/elementwise_mul.rs", Stage::Ptx, "$0mov.u32", EXPECT(R"~()~")},
  };
  for (const Row& row : rows) {
    CAPTURE(row.fixture);
    auto s = recordedSnapshot(row.kernel);
    const int line = cursor(s->result->stage(row.stage)->artifact->text(), row.fixture).line;
    row.expect.check(hoverText(server::artifactHover(*s, row.stage, line, true)));
  }
}

}  // namespace ks::test
