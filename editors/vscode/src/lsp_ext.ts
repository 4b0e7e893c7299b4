// The kernelscope LSP extensions this extension uses, as docs/lsp-extensions.md describes
// them.
//
// Each request and notification it sends or receives is declared here with its params and
// result, spelled exactly as on the wire, so the rest of the extension never writes a
// method name or a JSON shape by hand. tests/server/lsp/MirrorTests.cpp checks every method here
// against the server's table (protocol/Extensions.h): its kind, the top-level fields of
// its params and result interfaces, and the stage names. Change this file together with
// the server's protocol/ and the document.

import * as lc from "vscode-languageclient";

/** A compilation stage, by its wire name. */
export type Stage = "mir" | "llvm-ir" | "ptx" | "sass";

export const ALL_STAGES: readonly Stage[] = ["mir", "llvm-ir", "ptx", "sass"];

export interface TextDocumentIdentifier {
  uri: string;
}

/** An inclusive, zero-based range of artifact lines. */
export interface LineRange {
  start: number;
  end: number;
}

/** A source position; `uri` omitted means the document the artifact was built from. */
export interface SourcePosition {
  uri?: string;
  line: number;
  character: number;
}

/** One frame of an inline chain: code written in `function` at this position. */
export interface InlineFrame {
  uri: string;
  line: number;
  character: number;
  function: string;
}

/** Artifact lines [start, end] that came from `source`. */
export interface Segment extends LineRange {
  source: SourcePosition;
  /** On the wire: the index of the segment's inline chain in `Artifact.chains`. */
  chain?: number;
  /** The inline chain itself, innermost first, once the reply is decoded (SegmentIndex). */
  inlinedFrom?: InlineFrame[];
}

/** Where a kernel's body lies in the artifact text. */
export interface KernelSpan extends LineRange {
  name: string;
}

// ---------------------------------------------------------------------------------------
// kernelscope/artifact (request): one stage's text of a source file, with its segments.

/**
 * What a view leaves out (docs/lsp-extensions.md, Filters); a key left out is off. With
 * filters, every line number of a reply counts lines of the filtered text.
 */
export interface ArtifactFilters {
  directives?: boolean;
  debugLocations?: boolean;
  unusedLabels?: boolean;
  comments?: boolean;
  libraryFunctions?: boolean;
  padding?: boolean;
  compactSass?: boolean;
}

export const FILTERS: readonly (keyof ArtifactFilters)[] = [
  "directives",
  "debugLocations",
  "unusedLabels",
  "comments",
  "libraryFunctions",
  "padding",
  "compactSass",
];

export interface ArtifactParams {
  textDocument: TextDocumentIdentifier;
  stage: Stage;
  revision?: number;
  filters?: ArtifactFilters;
}

export interface Artifact {
  uri: string;
  stage: Stage;
  revision: number;
  languageId: "mir" | "llvm" | "ptx" | "sass";
  text: string;
  segments: Segment[];
  /** Each inline chain once; segments refer to them by index (`Segment.chain`). */
  chains?: InlineFrame[][];
  kernels: KernelSpan[];
}

export const artifact = new lc.RequestType<ArtifactParams, Artifact, void>("kernelscope/artifact");

// ---------------------------------------------------------------------------------------
// kernelscope/lineMap (request): the artifact lines one source line became, per stage.

export interface LineMapParams {
  textDocument: TextDocumentIdentifier;
  line: number;
  filters?: ArtifactFilters;
}

export interface LineMapResult {
  revision: number;
  /** Lines written on this source line, per stage. */
  stages: Partial<Record<Stage, LineRange[]>>;
  /** Lines inlined through a call on this source line, per stage. */
  inlined?: Partial<Record<Stage, LineRange[]>>;
  /** Instructions among `stages`, per stage. */
  counts: Partial<Record<Stage, number>>;
}

export const lineMap = new lc.RequestType<LineMapParams, LineMapResult, void>("kernelscope/lineMap");

// ---------------------------------------------------------------------------------------
// kernelscope/sourceLocation (request): the source line an artifact line came from.

export interface SourceLocationParams {
  uri: string;
  line: number;
  filters?: ArtifactFilters;
}

export interface SourceLocationResult {
  location: lc.Location | null;
  inlineChain: InlineFrame[];
}

export const sourceLocation = new lc.RequestType<SourceLocationParams, SourceLocationResult, void>(
  "kernelscope/sourceLocation",
);

// ---------------------------------------------------------------------------------------
// kernelscope/kernels (request): each kernel of a file with its resource usage.

export interface KernelsParams {
  textDocument: TextDocumentIdentifier;
}

/** Theoretical occupancy at one block size, and what limits it. */
export interface Occupancy {
  blockSize: number;
  activeWarpsPerSM: number;
  maxWarpsPerSM: number;
  percent: number;
  limiter: string;
}

/**
 * A kernel and its resources. The resource fields are present only when ptxas ran
 * (`registers` tells); `occupancy` only for an architecture with known limits.
 */
export interface KernelInfo {
  name: string;
  demangled: string;
  range: lc.Range;
  instructions: { ptx: number; sass: number };
  registers?: number;
  barriers?: number;
  stackFrame?: number;
  spillStores?: number;
  spillLoads?: number;
  sharedMemory?: number;
  constantMemory?: number;
  localMemory?: number;
  occupancy?: Occupancy;
}

export interface KernelsResult {
  revision: number;
  arch: string;
  kernels: KernelInfo[];
}

export const kernels = new lc.RequestType<KernelsParams, KernelsResult, void>("kernelscope/kernels");

// ---------------------------------------------------------------------------------------
// kernelscope/lineCosts (request): what each line costs before it runs, per kernel the
// register peak and occupancy step, and the lines to look at first.

export interface LineCost {
  line: number;
  hint: string;
  text: string;
  instructions: number;
  live?: { gpr: number; predicate: number; uniform: number };
  ldl: number;
  stl: number;
  spill: number;
  array: number;
  issueCycles?: number;
}
export interface KernelCost {
  name: string;
  summary: string;
  registerNote: string;
  allocated: number;
  peakLive?: number;
  peakLines: number[];
  spillLines: number[];
  arrayLines: number[];
}
export interface LineCostsResult {
  revision: number;
  arch: string;
  lines: LineCost[];
  kernels: KernelCost[];
  lookFirst: { line: number; why: string }[];
  /** The static heat by figure: each line's share of the file's largest. */
  heat: Record<StaticHeatFigure, { line: number; share: number }[]>;
}
export type StaticHeatFigure = "issueCycles" | "live" | "local";
export const lineCosts = new lc.RequestType<KernelsParams, LineCostsResult, void>("kernelscope/lineCosts");

// ---------------------------------------------------------------------------------------
// kernelscope/diff (request): a stage of this revision against an earlier one.

export interface DiffParams {
  textDocument: TextDocumentIdentifier;
  stage: Stage;
  base?: number;
}

export interface DiffResult {
  baseRevision: number;
  revision: number;
  baseUri: string;
  uri: string;
  unified: string;
}

export const diff = new lc.RequestType<DiffParams, DiffResult, void>("kernelscope/diff");

// ---------------------------------------------------------------------------------------
// kernelscope/status (notification, server -> client): the compile state of a file.

export type CompileState = "queued" | "compiling" | "ready" | "failed";

/** A stage's instructions added and removed against the base revision. */
export interface StageChange {
  stage: Stage;
  added: number;
  removed: number;
  /** Also true when only declarations or labels changed. */
  changed: boolean;
}

/** A resource's value in the base revision and in this one. */
export type ResourceDelta = [before: number, after: number];

/** A kernel that is new, gone, or whose resources changed (only those are present). */
export interface KernelChange {
  name: string;
  change: "added" | "removed" | "changed";
  registers?: ResourceDelta;
  spills?: ResourceDelta;
  sharedMemory?: ResourceDelta;
  stackFrame?: ResourceDelta;
  occupancy?: ResourceDelta;
}

/** What a ready compile changed against the newest earlier revision that compiled. */
export interface CompileChanges {
  baseRevision: number;
  /** "PTX +3 −1, SASS +2, regs 10→12", or "no change". */
  summary: string;
  stages: StageChange[];
  kernels: KernelChange[];
}

export interface StatusParams {
  uri: string;
  revision: number;
  state: CompileState;
  stages: Stage[];
  /**
   * With `ready`: what this compile will still publish ("resources": the kernels'
   * registers and occupancy, after ptxas; "sass", after nvdisasm). Another `ready` follows.
   */
  pending?: Array<Stage | "resources">;
  durationMs?: number;
  message?: string;
  changes?: CompileChanges;
  /** Whether the user trusts the workspace, and its values not applied because it is not. */
  workspaceTrusted?: boolean;
  withheld?: string[];
}

export const status = new lc.NotificationType<StatusParams>("kernelscope/status");

// ---------------------------------------------------------------------------------------
// kernelscope/sync (request): answers once every scheduled compile has finished.

export const sync = new lc.RequestType0<null, void>("kernelscope/sync");

// ---------------------------------------------------------------------------------------
// kernelscope/run and kernelscope/profile

/** A kernel of an open document; the lenses' argument of kernelscope.run / kernelscope.profile. */
export interface GpuTarget {
  uri: string;
  kernel: string;
}

export interface GpuRunParams {
  textDocument: TextDocumentIdentifier;
  kernel: string;
  spec?: string[];
  runs?: number;
  workDoneToken?: string;
  /** profile: the views' filters, whose lines `editor.views` names. */
  filters?: ArtifactFilters;
  /** profile: compare with the last profile of this file, kernel and spec ("last", the default), or not. */
  baseline?: "last" | "none";
}

export interface GpuDevice {
  name: string;
  arch: string;
  multiprocessors: number;
  peakBandwidth: number;
  peakFlops: number;
  driverVersion: number;
}

export interface GpuLaunch {
  kernel: string;
  grid: number[];
  block: number[];
  sharedBytes: number;
}

export interface RunResult {
  file: string;
  device: GpuDevice;
  launch: GpuLaunch;
  runs: number;
  timesMs: number[];
  timeMs: { min: number; median: number; max: number };
  bytes: number;
  bandwidth: number;
  buffers: { name: string; type: string; length: number; output: boolean; checksum: number; first: number[] }[];
  execMs: number;
  flops?: number;
  throughput?: number;
}

export interface ProfileLine {
  file: string;
  line: number;
  text: string;
  share: number;
  headline: string;
  stallSamples: number;
  stalls: { reason: string; samples: number }[];
  instructions: number;
  executed: number;
  threadsActive: number;
  l2Sectors: number;
  l2SectorsIdeal: number;
  sharedBankConflictWays: number;
}

export interface ProfileResult {
  file: string;
  device: GpuDevice;
  launch: GpuLaunch;
  kernel: {
    name: string;
    stallSamples: number;
    durationNs?: number;
    achievedOccupancyPct?: number;
    dramThroughputPct?: number;
    dramBytes?: number;
  };
  lines: ProfileLine[];
  /** Each line's change since the profile kept before (absent on a first profile). */
  baseline?: ProfileLineDelta[];
  /** For the editor: this document's hot lines (0-based) and the views' lines by heat. */
  editor: {
    uri: string;
    current: boolean;
    kernel: string;
    lines: { line: number; share: number; headline: string }[];
    views: Record<string, (LineRange & { share: number })[]>;
    /** "last profile" when the lines have a change since to show. */
    since?: string;
    /** 0-based lines with their change since (stallChange -0.4: 40% fewer stall samples). */
    deltas: { line: number; hint: string; stallChange?: number }[];
  };
}

export interface ProfileLineCounters {
  stallSamples: number;
  share: number;
  instructions: number;
  l2Sectors: number;
}

export interface ProfileLineDelta {
  /** 1-based in the text profiled; 0: a line the edit removed. */
  line: number;
  beforeLine: number | null;
  before?: ProfileLineCounters;
  after: ProfileLineCounters;
  stallChange?: number;
  hint: string;
}

export const run = new lc.RequestType<GpuRunParams, RunResult, void>("kernelscope/run");
export const profile = new lc.RequestType<GpuRunParams, ProfileResult, void>("kernelscope/profile");

// ---------------------------------------------------------------------------------------
// workspace/executeCommand commands the server provides.

export const SERVER_COMMAND_REBUILD = "kernelscope.rebuild";
export const SERVER_COMMAND_SET_ARCH = "kernelscope.setArch";

// ---------------------------------------------------------------------------------------
// Client commands the server names in its code lenses.

/** `kernelscope.openArtifact`: opens a stage view beside its source. */
export interface OpenArtifactArgs {
  uri: string;
  stage: Stage;
  /** The kernel's symbol, to scroll its body into view. */
  kernel?: string;
}
export const CLIENT_COMMAND_OPEN_ARTIFACT = "kernelscope.openArtifact";
