// Inlay hints on recorded compiles of the examples (Recorded.h): `N ptx · M sass` at the end
// of each line of the asked range that produced code, table by table.
#include <doctest/doctest.h>

#include "Recorded.h"

namespace ks::test {

namespace {

/// One line per hint: `line:character label`.
std::string hintsText(const std::vector<lsp::InlayHint>& hints) {
  std::string out;
  for (const auto& h : hints)
    out += std::to_string(h.position.line) + ":" + std::to_string(h.position.character) + " " +
           h.label + "\n";
  return out;
}

}  // namespace

TEST_CASE("inlay hints of a recorded kernel, over a range of its lines") {
  struct Row {
    const char* kernel;
    const char* from;  // the range's first line, `$0` where it starts
    const char* to;    // its last line, `$0` where it ends
    Expect expect;
  };
  const Row rows[] = {
      {"examples/saxpy.rs", "$0//! SAXPY", "$0fn panic", EXPECT(R"~(
7:85 5 ptx · 1 sass · 1 live
8:83 4 ptx · 4 sass · 3 live
9:23 3 ptx · 3 sass · 2 live
11:46 8 ptx · 11 sass · 6 live
13:1 1 ptx · 1 sass · 1 live
)~")},
      {"examples/saxpy.rs", "$0*y.add(i) = a", "$0*y.add(i) = a",
       EXPECT(R"~(11:46 8 ptx · 11 sass · 6 live)~")},
      // The call's count is the lines inlined through it, marked so; the inlined body's own
      // line keeps its plain count.
      {"examples/elementwise_mul.rs", "$0unsafe fn grid_stride", "$0fn panic", EXPECT(R"~(
10:98 5 ptx · 6 sass · 4 live
16:106 7 ptx · 1 sass · 1 live
20:40 5 ptx · 6 sass (inlined) · 4 live
22:17 7 ptx · 12 sass · 10 live
23:29 7 ptx · 16 sass · 11 live
24:20 1 ptx · 2 sass · 10 live
26:1 1 ptx · 1 sass · 1 live
)~")},
  };
  for (const Row& row : rows) {
    CAPTURE(row.from);
    auto s = recordedSnapshot(row.kernel);
    const lsp::Range range{cursor(s->text, row.from), cursor(s->text, row.to)};
    row.expect.check(hintsText(server::inlayHints(*s, range, server::Settings{}, shownByDefault(*s),
                                                  server::PositionEncoding::Utf16)));
  }
}

}  // namespace ks::test
