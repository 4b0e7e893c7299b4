// In-process tests of the language server (a fake client over an in-memory transport, a
// fake compile function): hover, on a source line and on a virtual document's line.
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

}  // namespace ks::test
