// In-process tests of the language server (a fake client over an in-memory transport, a
// fake compile function): kernelscope/diff against an earlier revision.
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

TEST_CASE("kernelscope/diff against the previous revision that compiled") {
  TestClient client(TestClient::options());
  std::string uri = client.open(kPath, kSaxpy);
  client.sync();
  CHECK(errorCode(client.request("kernelscope/diff",
                                 {{"textDocument", {{"uri", uri}}}, {"stage", "ptx"}})) ==
        int(lsp::ErrorCode::RequestFailed));
  std::string more = kSaxpy;
  more.insert(more.find("}\n"), "    let j = i;\n");
  client.change(uri, more, 2);
  client.sync();
  client.change(uri, "pub fn k() {\n ERROR\n}\n", 3);  // does not compile: not a diff base
  client.sync();
  json diff =
      client.result("kernelscope/diff", {{"textDocument", {{"uri", uri}}}, {"stage", "ptx"}});
  CHECK(diff["baseRevision"] == 1);
  CHECK(diff["revision"] == 2);
  CHECK(diff["baseUri"] == "kernelscope:/ptx" + kPath + ".ptx?rev=1");
  // One instruction more; the pipeline's diff compares lines with register numbers
  // normalized, so it is one added line.
  std::string unified = diff["unified"];
  CHECK(unified.rfind("--- previous save\n+++ this save\n@@ ", 0) == 0);
  int added = 0, removed = 0;
  for (std::string_view l : splitLines(unified)) {
    added += l.starts_with("+") && !l.starts_with("+++");
    removed += l.starts_with("-") && !l.starts_with("---");
  }
  CHECK(added == 1);
  CHECK(removed == 0);
  // The base's versioned virtual document stays readable while it is kept.
  CHECK(client.result(
            "kernelscope/sourceLocation",
            {{"uri", diff["baseUri"]}, {"line", 2}})["location"]["range"]["start"]["line"] == 2);
}

TEST_CASE("kernelscope/diff: the previous save is one for the same arch, not an arch switch") {
  TestClient client(TestClient::options());
  std::string uri = client.open(kPath, kSaxpy);
  client.sync();
  auto setArch = [&](const std::string& arch) {
    client.result("workspace/executeCommand",
                  {{"command", "kernelscope.setArch"}, {"arguments", {arch}}});
    client.sync();
  };
  setArch("sm_80");
  // Revision 2 is revision 1 for another arch: nothing to diff against yet.
  json none =
      client.request("kernelscope/diff", {{"textDocument", {{"uri", uri}}}, {"stage", "ptx"}});
  CHECK(errorCode(none) == int(lsp::ErrorCode::RequestFailed));
  CHECK(none["error"]["message"] == "no earlier save has compiled for sm_80 at opt-level 3");
  std::string more = kSaxpy;
  more.insert(more.find("}\n"), "    let j = i;\n");
  client.change(uri, more, 2);
  client.sync();
  json diff =
      client.result("kernelscope/diff", {{"textDocument", {{"uri", uri}}}, {"stage", "ptx"}});
  CHECK(diff["baseRevision"] == 2);  // the sm_80 save, not revision 1 (sm_90)
  setArch("sm_90");
  diff = client.result("kernelscope/diff", {{"textDocument", {{"uri", uri}}}, {"stage", "ptx"}});
  CHECK(diff["baseRevision"] == 1);  // back on sm_90: the sm_90 save before the switch
}

}  // namespace ks::test
