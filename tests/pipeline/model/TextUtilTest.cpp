// The text helpers every layer shares (TextUtil.h): the one line splitter, trimming and
// offsets, at the edges where hand-written copies used to differ.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "TextUtil.h"

namespace ks {
namespace {

std::vector<std::string> linesOf(std::string_view text) {
  std::vector<std::string> out;
  forEachLine(text, [&](std::string_view line) { out.emplace_back(line); });
  return out;
}

TEST_CASE("forEachLine and splitLines give the same lines: no newline, no CR before one") {
  const std::vector<std::string> expected{"a", "", "b", "c"};
  for (std::string_view text : {"a\n\nb\nc", "a\n\nb\nc\n", "a\r\n\r\nb\r\nc\r\n"}) {
    CAPTURE(text);
    CHECK(linesOf(text) == expected);
    const std::vector<std::string_view> split = splitLines(text);
    CHECK(std::vector<std::string>(split.begin(), split.end()) == expected);
  }
  CHECK(linesOf("").empty());
  CHECK(linesOf("\n") == std::vector<std::string>{""});
  CHECK(linesOf("x\n\n") == std::vector<std::string>{"x", ""});
  CHECK(linesOf("a\rb\n") == std::vector<std::string>{"a\rb"});  // a CR inside a line stays
}

TEST_CASE("trimming takes spaces, tabs and CRs at one end or both, nothing else") {
  CHECK(text::trimLeft(" \t\r x y \t") == "x y \t");
  CHECK(text::trimRight(" \t x y \t\r") == " \t x y");
  CHECK(text::trim("\t x y \r") == "x y");
  CHECK(text::trim("   ").empty());
  CHECK(text::trim("\nx\n") == "\nx\n");
}

TEST_CASE("offsetOf: a 1-based line and column to a byte offset, never past the end") {
  const std::string_view text = "ab\ncde\n\nf";
  CHECK(text::offsetOf(text, 1, 0) == 0);
  CHECK(text::offsetOf(text, 1, 2) == 1);
  CHECK(text::offsetOf(text, 2, 1) == 3);
  CHECK(text::offsetOf(text, 2, 3) == 5);
  CHECK(text::offsetOf(text, 3, 0) == 7);
  CHECK(text::offsetOf(text, 4, 1) == 8);
  CHECK(text::offsetOf(text, 4, 9) == text.size());
  CHECK(text::offsetOf(text, 9, 1) == text.size());
}

}  // namespace
}  // namespace ks
