// Linked highlighting from an artifact's segments, in both directions.
//
// The server sends each artifact with `segments`: runs of artifact lines and the source
// line they came from, with the inline chain. This module answers the two questions the
// editor asks on every cursor move — which artifact lines belong to this source line, and
// which source line this artifact line belongs to — and assigns the Compiler Explorer
// style colours. It is plain data in, plain data out, so it is tested without VS Code.

import type { Artifact, InlineFrame, LineRange, Segment } from "./lsp_ext";
import { sameUri } from "./uri";

/** The source line an artifact line came from. */
export interface SourceLineRef {
  uri: string;
  line: number;
  character: number;
  /** Inline chain, innermost first, when the code was inlined. */
  inlinedFrom: InlineFrame[];
}

/** What one source line became in one artifact. */
export interface LinkedLines {
  /** Lines written on the source line (possibly through inlined library code). */
  direct: LineRange[];
  /** Lines inlined through a call on the source line. */
  inlined: LineRange[];
}

/** Sorts and merges overlapping or adjacent inclusive ranges. */
export function mergeRanges(ranges: readonly LineRange[]): LineRange[] {
  const sorted = ranges
    .filter((r) => r.end >= r.start)
    .map((r) => ({ start: r.start, end: r.end }))
    .sort((a, b) => a.start - b.start || a.end - b.end);
  const merged: LineRange[] = [];
  for (const r of sorted) {
    const last = merged[merged.length - 1];
    if (last && r.start <= last.end + 1) {
      last.end = Math.max(last.end, r.end);
    } else {
      merged.push(r);
    }
  }
  return merged;
}

/** The key of a source line, used to group segments. */
function lineKey(uri: string, line: number): string {
  let decoded = uri;
  try {
    decoded = decodeURIComponent(uri);
  } catch {
    // Keep the raw URI: it still identifies the line consistently.
  }
  return `${decoded}#${line}`;
}

/**
 * An index over one artifact's segments. `sourceUri` is the document the artifact was
 * built from, which segments without a `uri` refer to.
 */
export class SegmentIndex {
  private readonly segments: readonly Segment[];
  private readonly sourceUri: string;
  private readonly byLine = new Map<string, LinkedLines>();
  private readonly colours = new Map<string, number>();

  constructor(artifact: Pick<Artifact, "segments" | "chains">, sourceUri: string) {
    this.sourceUri = sourceUri;
    // A segment names its inline chain by index into the reply's `chains` (sent once).
    const chains = artifact.chains ?? [];
    this.segments = (artifact.segments ?? [])
      .map((seg) => (seg.chain === undefined ? seg : { ...seg, inlinedFrom: chains[seg.chain] ?? [] }))
      .sort((a, b) => a.start - b.start);
    for (const seg of this.segments) {
      const range = { start: seg.start, end: seg.end };
      this.entry(seg.source.uri ?? sourceUri, seg.source.line).direct.push(range);
      for (const frame of this.outerFrames(seg)) {
        this.entry(frame.uri ?? sourceUri, frame.line).inlined.push(range);
      }
    }
    for (const entry of this.byLine.values()) {
      entry.direct = mergeRanges(entry.direct);
      entry.inlined = mergeRanges(entry.inlined);
    }
    this.assignColours();
  }

  /**
   * The call sites further out than the segment's source line: the lines that inlined
   * this code. The chain is innermost first; when it holds the source line itself, only
   * the frames after it are call sites.
   */
  private outerFrames(seg: Segment): InlineFrame[] {
    const chain = seg.inlinedFrom ?? [];
    const self = chain.findIndex((frame) => this.isSameLine(seg, frame));
    return chain.slice(self + 1).filter((frame) => !this.isSameLine(seg, frame));
  }

  private isSameLine(seg: Segment, frame: InlineFrame): boolean {
    return seg.source.line === frame.line && sameUri(seg.source.uri ?? this.sourceUri, frame.uri ?? this.sourceUri);
  }

  private entry(uri: string, line: number): LinkedLines {
    const key = lineKey(uri, line);
    let entry = this.byLine.get(key);
    if (!entry) {
      entry = { direct: [], inlined: [] };
      this.byLine.set(key, entry);
    }
    return entry;
  }

  /** Colours go to source lines in source order, so neighbours differ and stay stable. */
  private assignColours(): void {
    const lines = new Map<string, { uri: string; line: number }>();
    for (const seg of this.segments) {
      const uri = seg.source.uri ?? this.sourceUri;
      lines.set(lineKey(uri, seg.source.line), { uri, line: seg.source.line });
    }
    const ordered = [...lines.entries()].sort(
      ([, a], [, b]) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : a.line - b.line),
    );
    ordered.forEach(([key], i) => this.colours.set(key, i));
  }

  /** The artifact lines that a source line became; empty when none. */
  linesFor(uri: string, line: number): LinkedLines {
    const entry = this.byLine.get(lineKey(uri, line));
    return entry ? { direct: [...entry.direct], inlined: [...entry.inlined] } : { direct: [], inlined: [] };
  }

  /** The source line that an artifact line came from, if any. */
  sourceOf(artifactLine: number): SourceLineRef | undefined {
    const seg = this.segmentAt(artifactLine);
    if (!seg) return undefined;
    return {
      uri: seg.source.uri ?? this.sourceUri,
      line: seg.source.line,
      character: seg.source.character,
      inlinedFrom: seg.inlinedFrom ?? [],
    };
  }

  /** The whole group of artifact lines that share the source line of `artifactLine`. */
  siblingsOf(artifactLine: number): LineRange[] {
    const src = this.sourceOf(artifactLine);
    return src ? this.linesFor(src.uri, src.line).direct : [];
  }

  /** The segment covering an artifact line (binary search over sorted segments). */
  segmentAt(artifactLine: number): Segment | undefined {
    let lo = 0;
    let hi = this.segments.length - 1;
    let found: Segment | undefined;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const seg = this.segments[mid];
      if (seg.start <= artifactLine) {
        if (artifactLine <= seg.end) found = seg;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    if (found) return found;
    // Overlapping segments are not expected, but stay correct if the server sends them.
    return this.segments.find((s) => s.start <= artifactLine && artifactLine <= s.end);
  }

  /**
   * Colour bands for the whole artifact: for each palette slot, the source lines and the
   * artifact lines painted with it.
   */
  colourBands(paletteSize: number): { sourceLines: Map<string, number[]>; artifactLines: LineRange[] }[] {
    const bands = Array.from({ length: paletteSize }, () => ({
      sourceLines: new Map<string, number[]>(),
      artifactLines: [] as LineRange[],
    }));
    if (paletteSize <= 0) return [];
    for (const seg of this.segments) {
      const uri = seg.source.uri ?? this.sourceUri;
      const slot = (this.colours.get(lineKey(uri, seg.source.line)) ?? 0) % paletteSize;
      const band = bands[slot];
      band.artifactLines.push({ start: seg.start, end: seg.end });
      const lines = band.sourceLines.get(uri) ?? [];
      if (!lines.includes(seg.source.line)) lines.push(seg.source.line);
      band.sourceLines.set(uri, lines);
    }
    for (const band of bands) band.artifactLines = mergeRanges(band.artifactLines);
    return bands;
  }
}
