// In-process tests of the language server (a fake client over an in-memory transport, a
// fake compile function): the protocol around the features: initialize, shutdown and exit, position
// encodings, malformed or hostile input, the --port token.
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

TEST_CASE("lifecycle: requests before initialize, shutdown and exit") {
  TestClient client(TestClient::options(), /*initialize=*/false);
  CHECK(errorCode(client.request("textDocument/hover", {})) ==
        int(lsp::ErrorCode::ServerNotInitialized));
  json init = client.result("initialize", {{"capabilities", json::object()}});
  CHECK(init["capabilities"]["positionEncoding"] == "utf-16");
  CHECK(init["capabilities"]["hoverProvider"] == true);
  CHECK(init["capabilities"]["experimental"]["kernelscope"]["methods"].size() ==
        lsp::extensionMethods().size());
  CHECK(errorCode(client.request("initialize", {{"capabilities", json::object()}})) ==
        int(lsp::ErrorCode::InvalidRequest));
  CHECK(errorCode(client.request("no/suchMethod", {})) == int(lsp::ErrorCode::MethodNotFound));
  CHECK(client.result("shutdown", nullptr).is_null());
  CHECK(errorCode(client.request("kernelscope/sync", nullptr)) ==
        int(lsp::ErrorCode::InvalidRequest));
  CHECK_FALSE(client.server().finished());
  client.notify("exit", nullptr);
  CHECK(client.server().finished());
  CHECK(client.server().exitCode() == 0);
}

TEST_CASE("exit without shutdown exits with status 1") {
  TestClient client(TestClient::options());
  client.notify("exit", nullptr);
  CHECK(client.server().finished());
  CHECK(client.server().exitCode() == 1);
}

TEST_CASE("utf-8 positions when the client prefers them") {
  TestClient client(TestClient::options(), false);
  json init = client.result(
      "initialize",
      {{"capabilities", {{"general", {{"positionEncodings", {"utf-8", "utf-16"}}}}}}});
  CHECK(init["capabilities"]["positionEncoding"] == "utf-8");
}

TEST_CASE("robustness: malformed input never stops the server") {
  TestClient client(TestClient::options());
  auto lastError = [&]() -> int {
    int code = 0;
    for (const auto& m : client.messages())
      if (m.contains("error")) code = m["error"]["code"];
    return code;
  };
  auto answersHover = [&] {
    return client
        .request("textDocument/hover", {{"textDocument", {{"uri", "file:///nope.rs"}}},
                                        {"position", {{"line", 0}, {"character", 0}}}})
        .contains("error");
  };

  SUBCASE("garbage bytes") {
    client.sendBytes(std::string("\x00\xff\xfe garbage\r\n\r\n", 15));
    CHECK(client.messages().size() == 1);  // one logMessage about the skipped bytes
    CHECK(answersHover());
  }
  SUBCASE("a Content-Length that is too short") {
    std::string body = lsp::makeRequest(7, "kernelscope/sync", nullptr).dump();
    client.sendBytes("Content-Length: 10\r\n\r\n" + body);
    CHECK(lastError() == int(lsp::ErrorCode::ParseError));
    CHECK(answersHover());
  }
  SUBCASE("a Content-Length that is too long swallows the next message, then the stream recovers") {
    std::string body = lsp::makeRequest(7, "kernelscope/sync", nullptr).dump();
    client.sendBytes("Content-Length: " + std::to_string(body.size() + 30) + "\r\n\r\n" + body);
    client.sendBytes(lsp::frame(body));
    client.sendBytes(lsp::frame(body));
    bool answered = false;
    for (const auto& m : client.messages()) answered |= m.contains("result") && m["id"] == 7;
    CHECK(answered);
  }
  SUBCASE("a header without Content-Length and a non-numeric one") {
    client.sendBytes("Content-Type: x\r\n\r\n{}");
    client.sendBytes("Content-Length: abc\r\n\r\n{}");
    CHECK(answersHover());
  }
  SUBCASE("invalid JSON and JSON that is not a request") {
    client.sendBytes(lsp::frame("{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": "));
    CHECK(lastError() == int(lsp::ErrorCode::ParseError));
    client.sendBytes(lsp::frame("[1, 2, 3]"));
    CHECK(lastError() == int(lsp::ErrorCode::InvalidRequest));
    client.sendBytes(lsp::frame(R"({"jsonrpc":"2.0","id":{"a":1},"method":"shutdown"})"));
    CHECK(lastError() == int(lsp::ErrorCode::InvalidRequest));
    client.sendBytes(lsp::frame(R"({"jsonrpc":"2.0","id":3,"method":42})"));
    CHECK(lastError() == int(lsp::ErrorCode::InvalidRequest));
    client.sendBytes(lsp::frame(
        R"({"jsonrpc":"2.0","id":4,"method":"textDocument/hover","params":{"textDocument":7}})"));
    CHECK(lastError() == int(lsp::ErrorCode::InvalidParams));
    CHECK(answersHover());
  }
  SUBCASE("a 50 MB message") {
    std::string big(50u << 20, 'x');
    json note = lsp::makeNotification("textDocument/didOpen", {{"textDocument",
                                                                {{"uri", "file:///tmp/big.txt"},
                                                                 {"languageId", "plaintext"},
                                                                 {"version", 1},
                                                                 {"text", big}}}});
    client.sendBytes(lsp::frame(note.dump()));
    client.sync();
    CHECK(client.compiler().calls == 0);  // plain text is not compiled
    CHECK(answersHover());
  }
  SUBCASE("notifications for unknown documents and unknown notifications") {
    client.notify("textDocument/didChange",
                  {{"textDocument", {{"uri", "file:///nope.rs"}, {"version", 2}}},
                   {"contentChanges", {{{"text", "x"}}}}});
    client.notify("textDocument/didSave", textDocument("file:///nope.rs"));
    client.notify("textDocument/didClose", textDocument("file:///nope.rs"));
    client.notify("textDocument/didOpen", {{"textDocument", 5}});
    client.notify("no/such/notification", json::object());
    client.notify("$/setTrace", {{"value", "off"}});
    auto logs = client.notifications("window/logMessage");
    CHECK(logs.size() == 5);
    CHECK(client.compiler().calls == 0);
    CHECK(answersHover());
  }
}

TEST_CASE("--port's token: initialize without it is refused and the server stops") {
  auto options = TestClient::options();
  options.requiredToken = "0123456789abcdef-token";
  TestClient stranger(options, false);
  json refused = stranger.request("initialize", {{"capabilities", json::object()}});
  CHECK(errorCode(refused) == int(lsp::ErrorCode::InvalidRequest));
  CHECK(refused["error"]["message"].get<std::string>().find("token") != std::string::npos);
  CHECK(stranger.server().finished());

  TestClient wrong(options, false);
  CHECK(errorCode(wrong.request(
            "initialize", {{"capabilities", json::object()},
                           {"initializationOptions", {{"token", "0123456789abcdef-wrong"}}}})) ==
        int(lsp::ErrorCode::InvalidRequest));

  TestClient editor(options, false);
  json ok = editor.request(
      "initialize",
      {{"capabilities", json::object()},
       {"initializationOptions", {{"token", "0123456789abcdef-token"}, {"arch", "sm_80"}}}});
  CHECK(ok.contains("result"));
  CHECK_FALSE(editor.server().finished());
  CHECK(editor.server().settings().compile.arch == "sm_80");
}

TEST_CASE("deeply nested JSON is refused unparsed, before initialize and after") {
  TestClient client(TestClient::options(), false);
  const std::string deep = std::string(300000, '[') + std::string(300000, ']');
  for (int round = 0; round < 2; ++round) {
    client.server().onMessage(deep);
    client.server().onMessage(R"({"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":)" +
                              std::string(100000, '[') + std::string(100000, ']') + "}}");
    auto msgs = client.messages();
    REQUIRE(msgs.size() == 2);
    for (const auto& m : msgs) {
      CHECK(errorCode(m) == int(lsp::ErrorCode::InvalidRequest));
      CHECK(m["error"]["message"] == "the message nests deeper than 256 levels");
    }
    if (round == 0) client.result("initialize", {{"capabilities", json::object()}});
  }
  // Nesting inside a string is text, not depth.
  CHECK(lsp::nestsDeeperThan("[\"" + std::string(1000, '[') + "\"]") == false);
  CHECK(lsp::nestsDeeperThan(std::string(257, '{')));
  CHECK_FALSE(lsp::nestsDeeperThan(std::string(256, '[')));
}

}  // namespace ks::test
