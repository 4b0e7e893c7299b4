// In-process tests of the language server (a fake client over an in-memory transport, a
// fake compile function): the virtual documents of the stages: their revisions, and
// kernelscope/sourceLocation back to the source.
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
