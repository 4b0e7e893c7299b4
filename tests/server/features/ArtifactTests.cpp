// The virtual documents of the stages: kernelscope/artifact of recorded compiles of the
// examples (Recorded.h), table by table: each stage's document, its kernels and where each
// segment of it came from; and through the protocol (a fake client over an in-memory
// transport, a fake compile function): their revisions, and kernelscope/sourceLocation back to
// the source (on recorded compiles: SourceMapTests.cpp).
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <atomic>
#include <fstream>
#include <set>
#include <sstream>

#include "Features.h"
#include "Recorded.h"
#include "ServerTestSupport.h"
#include "TestClient.h"
#include "Uri.h"

namespace ks::test {

TEST_CASE("kernelscope/artifact of a recorded kernel: its kernels and each segment's source") {
  struct Row {
    const char* kernel;
    Stage stage;
    Expect expect;
  };
  const Row rows[] = {
      {"examples/saxpy.rs", Stage::Ptx, EXPECT(R"~(
saxpy.rs.ptx?rev=1 (ptx, revision 1, 95 lines)
kernel saxpy: 26-89
20-20 <- 17:4 | bra.uni 	$L__BB0_1;
39-43 <- 7:0 | ld.param.b32 	%r3, [saxpy_param_0];
46-55 <- 8:12 < core::core_arch::nvptx::_block_idx_x < saxpy | mov.u32 	%r4, %ctaid.x;
58-60 <- 9:7 | setp.lt.u32 	%p1, %r1, %r3;
66-81 <- 11:27 < <*const f32>::add < saxpy | mul.wide.u32 	%rd5, %r1, 4;
85-85 <- 13:1 | ret;
)~")},
      {"examples/saxpy.rs", Stage::Sass, EXPECT(R"~(
saxpy.rs.sass?rev=1 (sass, revision 1, 61 lines)
kernel saxpy: 4-60
14-14 <- 7:0 | /*0000*/                   LDC R1, c[0x0][0x28] ;
16-22 <- 8:12 < core::core_arch::nvptx::_block_idx_x < saxpy | /*0010*/                   S2UR UR4, SR_CTAID.X ;
24-26 <- 9:7 | /*0050*/                   ULDC UR4, c[0x0][0x210] ;
28-44 <- 11:27 < <*const f32>::add < saxpy | /*0080*/                   LDC.64 R2, c[0x0][0x218] ;
46-46 <- 13:1 | /*0130*/                   EXIT ;
)~")},
      {"examples/elementwise_mul.rs", Stage::Ptx, EXPECT(R"~(
elementwise_mul.rs.ptx?rev=1 (ptx, revision 1, 100 lines)
kernel elementwise_mul: 26-96
20-20 <- 30:4 | bra.uni 	$L__BB0_1;
39-45 <- 16:0 | ld.param.b64 	%rd6, [elementwise_mul_param_3];
48-58 <- 10:17 < core::core_arch::nvptx::_block_idx_x < elementwise_mul::grid_stride < elementwise_mul | mov.u32 	%r1, %ctaid.x;
61-62 <- 22:10 | setp.le.u64 	%p1, %rd6, %rd14;
70-71 <- 22:10 | shl.b64 	%rd13, %rd14, 2;
74-82 <- 23:17 | add.s64 	%rd10, %rd1, %rd13;
84-84 <- 24:8 | add.s64 	%rd14, %rd14, %rd4;
86-88 <- 22:10 | add.s64 	%rd13, %rd13, %rd5;
92-92 <- 26:1 | ret;
)~")},
  };
  const server::UriOf uriOf = [](const std::string& path) { return lsp::pathToFileUri(path); };
  for (const Row& row : rows) {
    CAPTURE(row.kernel);
    CAPTURE(stageName(row.stage));
    auto s = recordedSnapshot(row.kernel);
    auto r = server::artifactOf(*s, row.stage, true, uriOf);
    REQUIRE(r);
    const lsp::ArtifactResult& a = *r;
    const auto lines = splitLines(a.text);
    std::ostringstream out;
    out << a.uri.substr(a.uri.rfind('/') + 1) << " (" << a.languageId << ", revision " << a.revision
        << ", " << lines.size() << " lines)\n";
    for (const lsp::ArtifactKernel& k : a.kernels)
      out << "kernel " << k.name << ": " << k.start << "-" << k.end << "\n";
    // A segment: its lines, the source line and character (another file's by name), the
    // inline chain's functions, innermost first, and the segment's first line.
    for (const lsp::ArtifactSegment& seg : a.segments) {
      out << seg.start << "-" << seg.end << " <- "
          << (seg.source.uri ? seg.source.uri->substr(seg.source.uri->rfind('/') + 1) + ":" : "")
          << seg.source.line << ":" << seg.source.character;
      if (seg.chain)
        for (const lsp::InlineFrame& f : a.chains.at(static_cast<size_t>(*seg.chain)))
          out << " < " << f.function;
      out << " | " << text::trim(lines.at(static_cast<size_t>(seg.start))) << "\n";
    }
    row.expect.check(portable(out.str()));
  }
}

TEST_CASE(
    "kernelscope/sourceLocation maps a virtual line back, and virtual URIs name only our "
    "documents") {
  TestClient client(TestClient::options());
  std::string uri = client.open(kPath, kSaxpy);
  client.sync();
  json loc = client.result("kernelscope/sourceLocation",
                           {{"uri", "kernelscope:/sass" + kPath + ".sass"}, {"line", 5}});
  CHECK(loc["location"]["uri"] == uri);
  CHECK(loc["location"]["range"]["start"] == json::parse(R"({"line":3,"character":4})"));
  CHECK(loc["inlineChain"].size() == 2);
  json header = client.result("kernelscope/sourceLocation",
                              {{"uri", "kernelscope:/ptx" + kPath + ".ptx"}, {"line", 0}});
  CHECK(header["location"].is_null());

  // Paths that the server did not compile, unknown stages and malformed URIs are refused.
  for (const std::string& bad : std::vector<std::string>{
           "kernelscope:/ptx/etc/passwd.ptx", "kernelscope:/ptx/etc/passwd",
           "kernelscope:/bin" + kPath + ".bin", "kernelscope:/ptx" + kPath + ".sass",
           "kernelscope:ptx", "kernelscope:/ptx/..%2F..%2Fetc%2Fpasswd.ptx",
           "kernelscope:/ptx" + kPath + ".ptx?rev=abc"}) {
    CAPTURE(bad);
    CHECK(errorCode(client.request("kernelscope/sourceLocation", {{"uri", bad}, {"line", 0}})) ==
          int(lsp::ErrorCode::InvalidParams));
  }
  // didOpen of a virtual document is accepted and does not compile anything.
  int calls = client.compiler().calls;
  client.notify("textDocument/didOpen", {{"textDocument",
                                          {{"uri", "kernelscope:/ptx/etc/passwd.ptx"},
                                           {"languageId", "ptx"},
                                           {"version", 1},
                                           {"text", ""}}}});
  client.sync();
  CHECK(client.compiler().calls == calls);
}

TEST_CASE("artifact revisions: versioned URIs, ContentModified once gone") {
  TestClient client(TestClient::options());
  std::string uri = client.open(kPath, kSaxpy);
  client.sync();
  for (int v = 2; v <= 6; ++v) {
    client.change(uri, kSaxpy + std::string(v, '\n'), v);
    client.sync();
  }
  json r6 = client.result("kernelscope/artifact",
                          {{"textDocument", {{"uri", uri}}}, {"stage", "ptx"}, {"revision", 6}});
  CHECK(r6["uri"] == "kernelscope:/ptx" + kPath + ".ptx?rev=6");
  CHECK(errorCode(client.request(
            "kernelscope/artifact",
            {{"textDocument", {{"uri", uri}}}, {"stage", "ptx"}, {"revision", 1}})) ==
        int(lsp::ErrorCode::ContentModified));
  CHECK(errorCode(client.request(
            "kernelscope/artifact",
            {{"textDocument", {{"uri", uri}}}, {"stage", "ptx"}, {"revision", 9}})) ==
        int(lsp::ErrorCode::InvalidParams));
  CHECK(errorCode(client.request("kernelscope/artifact",
                                 {{"textDocument", {{"uri", uri}}}, {"stage", "asm"}})) ==
        int(lsp::ErrorCode::InvalidParams));
  json mir =
      client.request("kernelscope/artifact", {{"textDocument", {{"uri", uri}}}, {"stage", "mir"}});
  CHECK(errorCode(mir) == int(lsp::ErrorCode::RequestFailed));
  CHECK(mir["error"]["message"].get<std::string>().find("mir unavailable: the test compiler") == 0);
}

}  // namespace ks::test
