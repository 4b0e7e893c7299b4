// Unit tests of linked highlighting (src/highlight.ts): which artifact lines a source
// line lights up, which source line an artifact line leads back to, and the colour bands.
//
// Fixtures are PTX-like listings where `// <- N` marks a line as coming from source line
// N (zero-based) and `// <- N via M` as inlined from N through a call on source line M.

import { test } from "node:test";
import * as assert from "node:assert/strict";
import { mergeRanges, SegmentIndex } from "../src/highlight";
import type { LineRange, Segment } from "../src/lsp_ext";

const SRC = "file:///k/saxpy.rs";

/** Segments from marked lines; consecutive lines with the same mark form one segment. */
function segmentsOf(fixture: string): Segment[] {
  const segments: Segment[] = [];
  fixture.split("\n").forEach((text, line) => {
    const mark = /\/\/ <- (\d+)(?: via (\d+))?/.exec(text);
    if (!mark) return;
    const source = Number(mark[1]);
    const via = mark[2] === undefined ? undefined : Number(mark[2]);
    const last = segments[segments.length - 1];
    const sameAsLast =
      last && last.end === line - 1 && last.source.line === source && last.inlinedFrom?.[1]?.line === via;
    if (sameAsLast) {
      last.end = line;
      return;
    }
    const seg: Segment = { start: line, end: line, source: { line: source, character: 0 } };
    if (via !== undefined) {
      seg.inlinedFrom = [
        { uri: SRC, line: source, character: 0, function: "lerp" },
        { uri: SRC, line: via, character: 4, function: "saxpy" },
      ];
    }
    segments.push(seg);
  });
  return segments;
}

function check(fixture: string, sourceLine: number, direct: LineRange[], inlined: LineRange[] = []): void {
  const index = new SegmentIndex({ segments: segmentsOf(fixture) }, SRC);
  assert.deepEqual(index.linesFor(SRC, sourceLine), { direct, inlined });
}

const SAXPY = `.visible .entry saxpy(
{
  mov.u32 %r1, %ctaid.x;        // <- 8
  mov.u32 %r2, %ntid.x;         // <- 8
  mad.lo.s32 %r3, %r1, %r2, %r4; // <- 8
  setp.ge.u32 %p1, %r3, %r5;    // <- 9
  @%p1 bra $L__BB0_2;           // <- 9
  ld.global.f32 %f1, [%rd4];    // <- 11
  ld.global.f32 %f2, [%rd5];    // <- 11
  fma.rn.f32 %f3, %f2, %f4, %f1; // <- 11
  st.global.f32 [%rd5], %f3;    // <- 11
$L__BB0_2:
  ret;                          // <- 13
}`;

test("a source line lights up its own instructions, merged into runs", () => {
  check(SAXPY, 8, [{ start: 2, end: 4 }]);
  check(SAXPY, 11, [{ start: 7, end: 10 }]);
  check(SAXPY, 13, [{ start: 12, end: 12 }]);
});

test("a line that became nothing lights up nothing", () => {
  check(SAXPY, 10, []);
  check(SAXPY, 400, []);
});

test("instructions split across the listing stay separate runs", () => {
  const fixture = `a // <- 3
b // <- 4
c // <- 3
d // <- 3`;
  check(fixture, 3, [
    { start: 0, end: 0 },
    { start: 2, end: 3 },
  ]);
});

test("inlined code lights up its call site as inlined", () => {
  const fixture = `a // <- 20 via 5
b // <- 20 via 5
c // <- 6`;
  check(fixture, 20, [{ start: 0, end: 1 }]);
  check(fixture, 5, [], [{ start: 0, end: 1 }]);
});

test("segments refer to the reply's chains by index, each chain sent once", () => {
  const chain = [
    { uri: SRC, line: 20, character: 0, function: "lerp" },
    { uri: SRC, line: 5, character: 4, function: "saxpy" },
  ];
  const index = new SegmentIndex(
    {
      segments: [
        { start: 0, end: 1, source: { line: 20, character: 0 }, chain: 0 },
        { start: 2, end: 2, source: { line: 6, character: 0 } },
        { start: 3, end: 3, source: { line: 20, character: 0 }, chain: 0 },
      ],
      chains: [chain],
    },
    SRC,
  );
  assert.deepEqual(index.linesFor(SRC, 5), {
    direct: [],
    inlined: [
      { start: 0, end: 1 },
      { start: 3, end: 3 },
    ],
  });
  assert.deepEqual(index.sourceOf(3)?.inlinedFrom, chain);
  assert.deepEqual(index.sourceOf(2)?.inlinedFrom, []);
});

test("an artifact line leads back to its source line and its group", () => {
  const index = new SegmentIndex({ segments: segmentsOf(SAXPY) }, SRC);
  assert.equal(index.sourceOf(9)?.line, 11);
  assert.equal(index.sourceOf(9)?.uri, SRC);
  assert.deepEqual(index.siblingsOf(9), [{ start: 7, end: 10 }]);
  assert.equal(index.sourceOf(11), undefined, "labels have no source");
  assert.deepEqual(index.siblingsOf(0), []);
});

test("segments naming another file are kept apart from this one", () => {
  const other = "file:///k/math.rs";
  const index = new SegmentIndex(
    {
      segments: [
        { start: 0, end: 1, source: { uri: other, line: 3, character: 0 } },
        { start: 2, end: 2, source: { line: 3, character: 0 } },
      ],
    },
    SRC,
  );
  assert.deepEqual(index.linesFor(SRC, 3).direct, [{ start: 2, end: 2 }]);
  assert.deepEqual(index.linesFor(other, 3).direct, [{ start: 0, end: 1 }]);
  assert.equal(index.sourceOf(0)?.uri, other);
});

test("URIs match whatever side percent-encoded", () => {
  const index = new SegmentIndex(
    { segments: [{ start: 0, end: 0, source: { uri: "file:///k/my kernel.rs", line: 1, character: 0 } }] },
    SRC,
  );
  assert.deepEqual(index.linesFor("file:///k/my%20kernel.rs", 1).direct, [{ start: 0, end: 0 }]);
});

test("colour bands: one colour per source line, in source order, wrapping the palette", () => {
  const index = new SegmentIndex({ segments: segmentsOf(SAXPY) }, SRC);
  const bands = index.colourBands(2);
  assert.deepEqual(bands[0].artifactLines, [
    { start: 2, end: 4 },
    { start: 7, end: 10 },
  ]);
  assert.deepEqual(bands[0].sourceLines.get(SRC), [8, 11]);
  assert.deepEqual(bands[1].sourceLines.get(SRC), [9, 13]);
  assert.deepEqual(index.colourBands(0), []);
});

test("mergeRanges sorts, joins adjacent and overlapping ranges, drops empty ones", () => {
  assert.deepEqual(
    mergeRanges([
      { start: 5, end: 6 },
      { start: 0, end: 1 },
      { start: 2, end: 2 },
      { start: 6, end: 9 },
      { start: 4, end: 3 },
    ]),
    [
      { start: 0, end: 2 },
      { start: 5, end: 9 },
    ],
  );
});
