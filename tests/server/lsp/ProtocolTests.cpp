// Tests of the protocol layer and the server's pure functions: framing, URIs, positions,
// and the agreement between docs/lsp-extensions.md and the protocol code.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "Contract.h"
#include "Extensions.h"
#include "Features.h"
#include "JsonRpc.h"
#include "SourceText.h"
#include "Uri.h"

namespace ks::test {
namespace {

using nlohmann::json;
using server::PositionEncoding;

std::vector<lsp::MessageReader::Item> readAll(lsp::MessageReader& r) {
  std::vector<lsp::MessageReader::Item> out;
  while (auto item = r.next()) out.push_back(*item);
  return out;
}

}  // namespace

TEST_CASE("framing: whole messages, split reads, several per read") {
  lsp::MessageReader r;
  std::string stream = lsp::frame("{\"a\":1}") + lsp::frame("{\"b\":2}");
  for (char c : stream) r.feed(std::string_view(&c, 1));  // one byte at a time
  auto items = readAll(r);
  REQUIRE(items.size() == 2);
  CHECK(items[0].ok);
  CHECK(items[0].body == "{\"a\":1}");
  CHECK(items[1].body == "{\"b\":2}");
  CHECK(r.buffered() == 0);

  r.feed("Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length: 2\r\n\r\n{}");
  items = readAll(r);
  REQUIRE(items.size() == 1);
  CHECK(items[0].body == "{}");
}

TEST_CASE(
    "framing: garbage, bad headers and oversized messages become errors, then it resynchronizes") {
  lsp::MessageReader r(/*maxMessageBytes=*/100);
  r.feed("hello world " + lsp::frame("{}"));
  auto items = readAll(r);
  REQUIRE(items.size() == 2);
  CHECK_FALSE(items[0].ok);
  CHECK(items[0].error == "skipped 12 bytes that are not a message header");
  CHECK(items[1].body == "{}");

  r.feed("Content-Length: -5\r\n\r\n" + lsp::frame("[1]"));
  items = readAll(r);
  REQUIRE(items.size() == 3);  // the bad header, the leftover bytes, the message
  CHECK(items[0].error == "invalid Content-Length '-5'");
  CHECK(items[2].body == "[1]");

  r.feed("Content-Length: 1000\r\n\r\n" + std::string(1000, 'x') + lsp::frame("[2]"));
  items = readAll(r);
  REQUIRE(items.size() == 2);
  CHECK(items[0].error == "message of 1000 bytes exceeds the limit of 100 bytes");
  CHECK(items[1].body == "[2]");

  // A header that never ends is dropped once it is longer than any real one.
  r.feed("Content-Length: 5" + std::string(5000, ' '));
  items = readAll(r);
  REQUIRE(!items.empty());
  CHECK(items[0].error == "message header is not terminated");
  r.feed(lsp::frame("[3]"));
  items = readAll(r);
  REQUIRE(!items.empty());
  CHECK(items.back().body == "[3]");
}

TEST_CASE("framing: random bytes never crash the reader and a message after them is read") {
  std::mt19937 rng(42);
  for (int round = 0; round < 200; ++round) {
    lsp::MessageReader r(1 << 16);
    std::string junk(rng() % 300, '\0');
    for (auto& c : junk) c = static_cast<char>(rng() % 256);
    if (round % 3 == 0) junk += "Content-Length: 4\r\n\r\n";
    r.feed(junk);
    readAll(r);
    r.feed(std::string(8, '\n') + lsp::frame("{\"ok\":true}"));
    auto items = readAll(r);
    // The message may have been eaten as the body of a header in the junk, but the
    // reader must make progress and never hold more than it was given.
    CHECK(r.buffered() <= 64);
  }
}

TEST_CASE("file URIs") {
  CHECK(lsp::fileUriToPath("file:///home/me/k%20one/lib.rs") == "/home/me/k one/lib.rs");
  CHECK(lsp::fileUriToPath("file://localhost/a.rs") == "/a.rs");
  CHECK_FALSE(lsp::fileUriToPath("file://server/share/a.rs"));
  CHECK_FALSE(lsp::fileUriToPath("untitled:Untitled-1"));
  CHECK_FALSE(lsp::fileUriToPath("file:///a%00b.rs"));
  CHECK_FALSE(lsp::fileUriToPath("file:///a%2"));
  CHECK(lsp::pathToFileUri("/home/me/k one/lib.rs") == "file:///home/me/k%20one/lib.rs");
}

TEST_CASE("virtual URIs round-trip and refuse what is not ours") {
  std::string uri = server::virtualUri(Stage::LlvmIr, "/home/me/k one/lib.rs", 4);
  CHECK(uri == "kernelscope:/llvm-ir/home/me/k%20one/lib.rs.ll?rev=4");
  auto v = lsp::parseVirtualUri(uri, &server::extensionOfStageName);
  REQUIRE(v);
  CHECK(v->stage == "llvm-ir");
  CHECK(v->path == "/home/me/k one/lib.rs");
  CHECK(v->revision == 4);
  CHECK(lsp::parseVirtualUri("kernelscope:///ptx/a.rs.ptx", &server::extensionOfStageName)->path ==
        "/a.rs");
  for (const char* bad :
       {"kernelscope:/ptx/a.rs.sass", "kernelscope:/asm/a.rs.asm", "kernelscope:/ptx/.ptx",
        "kernelscope:/ptx/a.rs.ptx?rev=-1", "kernelscope:/ptx/a.rs.ptx?x=1", "file:///a.rs",
        "kernelscope:/ptx", "kernelscope:/ptx/a%ZZ.ptx"}) {
    CAPTURE(bad);
    CHECK_FALSE(lsp::parseVirtualUri(bad, &server::extensionOfStageName));
  }
}

TEST_CASE("positions in UTF-16 and UTF-8") {
  const std::string text = "a\xC3\xA9\xF0\x9F\x98\x80z\nsecond\r\nthird";  // a é 😀 z
  CHECK(server::offsetOf(text, {0, 2}, PositionEncoding::Utf16) == 3);
  CHECK(server::offsetOf(text, {0, 4}, PositionEncoding::Utf16) == 7);
  CHECK(server::offsetOf(text, {0, 7}, PositionEncoding::Utf8) == 7);
  CHECK(server::offsetOf(text, {0, 99}, PositionEncoding::Utf16) == 8);   // clamped to the line
  CHECK(server::offsetOf(text, {1, 99}, PositionEncoding::Utf16) == 15);  // before the \r
  CHECK(server::offsetOf(text, {9, 0}, PositionEncoding::Utf16) == text.size());
  CHECK(server::positionOf(text, 7, PositionEncoding::Utf16) == lsp::Position{0, 4});
  CHECK(server::positionOf(text, 11, PositionEncoding::Utf16) == lsp::Position{1, 2});
  // rustc's columns count characters: column 4 (1-based) is `z`.
  CHECK(server::positionOfCharColumn(text, 1, 4, PositionEncoding::Utf16) == lsp::Position{0, 4});
  CHECK(server::positionOfCharColumn(text, 1, 4, PositionEncoding::Utf8) == lsp::Position{0, 7});
  CHECK(server::endOfLine(text, 1, PositionEncoding::Utf16) == lsp::Position{1, 6});

  std::string edit = text;
  CHECK(server::applyEdit(edit, {{0, 1}, {0, 4}}, "-", PositionEncoding::Utf16));
  CHECK(edit == "a-z\nsecond\r\nthird");
  CHECK_FALSE(server::applyEdit(edit, {{1, 0}, {0, 0}}, "x", PositionEncoding::Utf16));
}

// ---------------------------------------------------------------------------------------
// docs/lsp-extensions.md against extensionMethods().

TEST_CASE("docs/lsp-extensions.md and the protocol code agree") {
  auto doc = readContract(KS_SOURCE_DIR "/docs/lsp-extensions.md");
  std::set<std::string> inCode;
  for (const auto& m : lsp::extensionMethods()) {
    std::string name(m.method);
    inCode.insert(name);
    CAPTURE(name);
    REQUIRE_MESSAGE(doc.count(name), name << " is not documented");
    const DocSection& s = doc[name];
    CHECK(s.kind == std::string(m.kind) + " (" + std::string(m.direction) + ")");
    if (!m.exampleParams.is_null()) {
      REQUIRE_MESSAGE(s.request, name << ": no **Request:** / **Params:** example");
      CHECK(shapeDifference(*s.request, m.exampleParams, "params") == "");
    }
    if (!m.exampleResult.is_null()) {
      REQUIRE_MESSAGE(s.response, name << ": no **Response:** example");
      CHECK(shapeDifference(*s.response, m.exampleResult, "result") == "");
    }
  }
  for (const auto& entry : doc)
    CHECK_MESSAGE(inCode.count(entry.first),
                  entry.first << " is documented but not in extensionMethods()");
}

TEST_CASE("the examples of the extension table decode with the protocol types") {
  const auto& t = lsp::extensionMethods();
  auto find = [&](std::string_view name) -> const lsp::ExtensionMethod& {
    return *std::find_if(t.begin(), t.end(), [&](const auto& m) { return m.method == name; });
  };
  CHECK(find("kernelscope/artifact").exampleParams.get<lsp::ArtifactParams>().revision == 3);
  CHECK(find("kernelscope/lineMap").exampleParams.get<lsp::LineMapParams>().line == 11);
  CHECK(find("kernelscope/sourceLocation").exampleParams.get<lsp::SourceLocationParams>().line ==
        31);
  CHECK(
      find("kernelscope/kernels").exampleParams.get<lsp::KernelsParams>().textDocument.uri.size() >
      0);
  CHECK(find("kernelscope/diff").exampleParams.get<lsp::DiffParams>().base == 2);
}

}  // namespace ks::test
