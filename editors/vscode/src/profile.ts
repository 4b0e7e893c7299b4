// Run and profile a kernel on a GPU (`kernelscope/run`, `kernelscope/profile`), and show a
// profile where the user looks.
//
// The commands take the lens's `{ uri, kernel }` (or ask for a kernel of the active file),
// show the server's `$/progress` in a cancellable notification (cancel sends
// `$/cancelRequest`, which kills the runner and ncu), and report errors in the server's
// words. A profile paints each hot source line with a heat colour, and each line of the
// file's PTX/SASS views with the heat of the source line its segment maps to, so the views
// follow their own text; the inlay hints and hovers are the server's. All of it is cleared
// at the first edit of the file, as the server drops its hints then. Without a GPU, "Colour
// Lines by Static Cost" paints the same heat from the server's static figures
// (`kernelscope/lineCosts`' `heat`: issue cycles, live registers or local memory) and names
// the lines to look at first; a profile shown on the file takes its place. A file profiled
// before (the server keeps each profile) also gets each line's change since the last profile:
// the hint is the server's (`−75% stalls since last profile`), and "Toggle Profile Delta
// Heat" paints the source lines that got better (green) or worse (amber) instead of the heat.

import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import { WorkDoneProgress } from "vscode-languageclient/node";
import * as ext from "./lsp_ext";
import { showErrorNamingSetting } from "./config";
import type { ArtifactViews } from "./views";
import { parseArtifactUri, SCHEME } from "./uri";

/** Whole-line colours `rgb` at each of `alphas`, with a mark in the overview ruler. */
function lineColours(rgb: string, alphas: number[]): vscode.TextEditorDecorationType[] {
  return alphas.map((alpha) =>
    vscode.window.createTextEditorDecorationType({
      backgroundColor: `rgba(${rgb}, ${alpha})`,
      overviewRulerColor: `rgba(${rgb}, ${alpha + 0.3})`,
      overviewRulerLane: vscode.OverviewRulerLane.Right,
      isWholeLine: true,
    }),
  );
}

/** Heat levels, coolest first: a line's share of the stall samples against the hottest's. */
const HEAT = lineColours("255, 69, 58", [0.1, 0.2, 0.32, 0.45]);

/** The delta heat: fewer stall samples than the last profile (BETTER), or more (WORSE); a
 * change of at least 5%, then of at least 50%. */
const BETTER = lineColours("48, 209, 88", [0.18, 0.36]);
const WORSE = lineColours("255, 159, 10", [0.18, 0.36]);

function deltaLevel(change: number | undefined): number {
  if (change === undefined || Math.abs(change) < 0.05) return -1;
  return Math.abs(change) >= 0.5 ? 1 : 0;
}

function heatLevel(share: number, hottest: number): number {
  if (hottest <= 0 || share <= 0) return -1;
  return Math.min(HEAT.length - 1, Math.floor((share / hottest) * HEAT.length - 1e-9));
}

interface Shown {
  /** Share of the stall samples per 0-based source line. */
  shares: Map<number, number>;
  hottest: number;
  /** The change in stall samples since the last profile per 0-based source line. */
  deltas?: Map<number, number>;
}

let nextToken = 0;

export class Profiles implements vscode.Disposable {
  /** By source path. */
  private readonly shown = new Map<string, Shown>();
  /** The static heat by source path, where no profile is shown. */
  private readonly staticShown = new Map<string, Shown>();
  /** Source lines coloured by their change since the last profile instead of the heat. */
  private deltaHeat = false;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly client: () => LanguageClient | undefined,
    private readonly views: ArtifactViews,
    private readonly output: vscode.OutputChannel,
  ) {
    this.disposables.push(
      vscode.commands.registerCommand("kernelscope.run", (arg?: unknown) => this.launch(false, arg)),
      vscode.commands.registerCommand("kernelscope.profile", (arg?: unknown) => this.launch(true, arg)),
      vscode.commands.registerCommand("kernelscope.clearProfile", () => this.clearAll()),
      vscode.commands.registerCommand("kernelscope.toggleProfileDelta", () => this.toggleDeltaHeat()),
      vscode.commands.registerCommand("kernelscope.staticHeat", (figure?: unknown) => this.staticHeat(figure)),
      vscode.window.onDidChangeVisibleTextEditors(() => this.paintAll()),
      views.onDidUpdate(() => this.paintAll()),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document.uri.scheme === "file" && e.contentChanges.length > 0) this.clear(e.document.uri.fsPath);
      }),
    );
  }

  dispose(): void {
    this.clearAll();
    this.disposables.forEach((d) => d.dispose());
  }

  /** `kernelscope.run` / `kernelscope.profile`: with `{ uri, kernel }`, or the active file. */
  private async launch(profile: boolean, arg?: unknown): Promise<void> {
    const client = this.client();
    if (!client) {
      void vscode.window.showErrorMessage("kernelscope: the language server is not running.");
      return;
    }
    const target = await this.target(client, arg);
    if (!target) return;
    const method = profile ? ext.profile.method : ext.run.method;
    const token = `kernelscope-${profile ? "profile" : "run"}-${++nextToken}`;
    const what = `${profile ? "Profiling" : "Running"} ${target.kernel}`;
    try {
      const result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `kernelscope: ${what}`, cancellable: true },
        async (progress, cancel) => {
          const listener = client.onProgress(WorkDoneProgress.type, token, (value) => {
            if (value.kind !== "end" && value.message) progress.report({ message: value.message });
          });
          try {
            return await client.sendRequest<ext.RunResult | ext.ProfileResult>(
              method,
              { textDocument: { uri: target.uri }, kernel: target.kernel, workDoneToken: token },
              cancel,
            );
          } finally {
            listener.dispose();
          }
        },
      );
      if (profile) this.show(target.uri, result as ext.ProfileResult);
      else this.report(result as ext.RunResult);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (/cancel/i.test(message)) return;
      this.output.appendLine(`kernelscope: ${what}: ${message}`);
      void showErrorNamingSetting(`kernelscope: ${message}`);
    }
  }

  /** The lens's argument, else a kernel of the active Rust file (asked when several). */
  private async target(client: LanguageClient, arg?: unknown): Promise<ext.GpuTarget | undefined> {
    if (arg && typeof arg === "object" && "uri" in arg && "kernel" in arg) return arg as ext.GpuTarget;
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.document.uri.scheme !== "file" || editor.document.languageId !== "rust") {
      void vscode.window.showWarningMessage("kernelscope: open a Rust kernel file first.");
      return undefined;
    }
    const uri = editor.document.uri.toString();
    const { kernels } = await client.sendRequest(ext.kernels, { textDocument: { uri } });
    if (kernels.length === 0) {
      void vscode.window.showWarningMessage("kernelscope: this file has no kernels (or has not compiled yet).");
      return undefined;
    }
    const kernel =
      kernels.length === 1
        ? kernels[0].name
        : await vscode.window.showQuickPick(
            kernels.map((k) => k.name),
            { placeHolder: "Kernel" },
          );
    return kernel ? { uri, kernel } : undefined;
  }

  private report(r: ext.RunResult): void {
    const peak = r.device.peakBandwidth > 0 ? ` (${((100 * r.bandwidth) / r.device.peakBandwidth).toFixed(1)}% of peak)` : "";
    const summary =
      `${r.launch.kernel} on ${r.device.name}: ${(r.timeMs.median * 1000).toFixed(1)} us median ` +
      `over ${r.runs} runs, ${(r.bandwidth / 1e9).toFixed(1)} GB/s${peak}`;
    this.output.appendLine(`kernelscope: ${summary}`);
    for (const b of r.buffers)
      this.output.appendLine(`  ${b.name} ${b.type}[${b.length}]${b.output ? " output" : ""} sum ${b.checksum} [${b.first.join(", ")}]`);
    void vscode.window.showInformationMessage(`kernelscope: ${summary}`);
  }

  private show(uri: string, r: ext.ProfileResult): void {
    const path = vscode.Uri.parse(uri).fsPath;
    if (!r.editor.current) {
      void vscode.window.showWarningMessage("kernelscope: the file changed while it was profiled; profile it again.");
      return;
    }
    const shares = new Map<number, number>();
    for (const l of r.editor.lines) shares.set(l.line, l.share);
    const deltas = new Map<number, number>();
    for (const d of r.editor.deltas ?? []) if (d.stallChange !== undefined) deltas.set(d.line, d.stallChange);
    this.shown.set(path, { shares, hottest: Math.max(0, ...shares.values()), deltas: r.editor.since ? deltas : undefined });
    this.paintAll();
    const top = r.editor.lines[0];
    if (!top) return;
    const change = (r.editor.deltas ?? []).find((d) => d.line === top.line && d.hint);
    this.output.appendLine(`kernelscope: ${r.kernel.name}: line ${top.line + 1} ${top.headline}${change ? `, ${change.hint}` : ""}`);
  }

  /**
   * `kernelscope.toggleProfileDelta`: source lines coloured by their change since the last
   * profile (better: green, worse: amber), or by the profile's heat again. Returns whether
   * the delta heat is on, for tests.
   */
  private toggleDeltaHeat(): boolean {
    const anyDeltas = [...this.shown.values()].some((s) => s.deltas);
    if (!this.deltaHeat && !anyDeltas) {
      void vscode.window.showInformationMessage(
        "kernelscope: no earlier profile of this kernel with this spec to compare with: profile it again after an edit.",
      );
      return false;
    }
    this.deltaHeat = !this.deltaHeat;
    this.paintAll();
    return this.deltaHeat;
  }

  /**
   * `kernelscope.staticHeat`: colours the active file's lines (and its PTX/SASS views) by a
   * static figure, picked (or given: "issueCycles", "live", "local", "off"), and tells the
   * lines to look at first. Returns the lines painted, for tests.
   */
  private async staticHeat(given?: unknown): Promise<number[] | undefined> {
    const editor = vscode.window.activeTextEditor;
    const client = this.client();
    const source = editor?.document.uri;
    if (!client || !source || source.scheme !== "file") {
      void vscode.window.showErrorMessage("kernelscope: open a kernel's Rust file first.");
      return undefined;
    }
    const figures: { label: string; figure: ext.StaticHeatFigure | "off" }[] = [
      { label: "Issue cycles (stall counts: a lower bound)", figure: "issueCycles" },
      { label: "Live registers", figure: "live" },
      { label: "Local memory instructions", figure: "local" },
      { label: "Off", figure: "off" },
    ];
    const figure =
      typeof given === "string"
        ? figures.find((f) => f.figure === given)?.figure
        : (await vscode.window.showQuickPick(figures, { title: "kernelscope: colour lines by" }))?.figure;
    if (!figure) return undefined;
    if (figure === "off") {
      this.staticShown.delete(source.fsPath);
      this.paintAll();
      return [];
    }
    try {
      const result = await client.sendRequest(ext.lineCosts, { textDocument: { uri: source.toString() } });
      const shares = new Map<number, number>();
      for (const l of result.heat[figure]) shares.set(l.line, l.share);
      this.staticShown.set(source.fsPath, { shares, hottest: Math.max(0, ...shares.values()) });
      this.paintAll();
      const first = result.lookFirst.map((l) => `line ${l.line + 1}: ${l.why}`);
      if (first.length > 0) void vscode.window.showInformationMessage(`kernelscope: look first at ${first.join("; ")}`);
      return [...shares.keys()].sort((a, b) => a - b);
    } catch (error) {
      void vscode.window.showWarningMessage(`kernelscope: no costs: ${error instanceof Error ? error.message : error}`);
      return undefined;
    }
  }

  private clear(path: string): void {
    const a = this.shown.delete(path);
    const b = this.staticShown.delete(path);
    if (a || b) this.paintAll();
  }

  private clearAll(): void {
    this.shown.clear();
    this.paintAll();
  }

  /** The heat shown for a source path: its profile's, else the static one. */
  private heatOf(path: string): Shown | undefined {
    return this.shown.get(path) ?? this.staticShown.get(path);
  }

  private paintAll(): void {
    for (const editor of vscode.window.visibleTextEditors) this.paint(editor);
    // Clear Profile is offered only while a profile is shown.
    void vscode.commands.executeCommand("setContext", "kernelscope.hasProfile", this.shown.size > 0);
    void vscode.commands.executeCommand(
      "setContext",
      "kernelscope.hasProfileDelta",
      [...this.shown.values()].some((s) => s.deltas),
    );
  }

  /** A source editor by its lines' shares; a view by the share of each segment's source line. */
  private paint(editor: vscode.TextEditor): void {
    const ranges: vscode.Range[][] = HEAT.map(() => []);
    const better: vscode.Range[][] = BETTER.map(() => []);
    const worse: vscode.Range[][] = WORSE.map(() => []);
    const uri = editor.document.uri;
    const add = (start: number, end: number, share: number, shown: Shown) => {
      const level = heatLevel(share, shown.hottest);
      if (level >= 0) ranges[level].push(new vscode.Range(start, 0, end, 0));
    };
    const profiled = uri.scheme === "file" ? this.shown.get(uri.fsPath) : undefined;
    if (this.deltaHeat && profiled?.deltas) {
      for (const [line, change] of profiled.deltas) {
        const level = deltaLevel(change);
        if (level >= 0) (change < 0 ? better : worse)[level].push(new vscode.Range(line, 0, line, 0));
      }
    } else if (uri.scheme === "file") {
      const shown = this.heatOf(uri.fsPath);
      if (shown) for (const [line, share] of shown.shares) add(line, line, share, shown);
    } else if (uri.scheme === SCHEME) {
      const address = parseArtifactUri(uri.toString());
      const shown = address && this.heatOf(address.sourcePath);
      const state = this.views.state(uri);
      if (shown && state && (address.stage === "ptx" || address.stage === "sass")) {
        for (const segment of state.artifact.segments) {
          const sourceUri = segment.source.uri ? vscode.Uri.parse(segment.source.uri).fsPath : address.sourcePath;
          if (sourceUri !== address.sourcePath) continue;
          add(segment.start, segment.end, shown.shares.get(segment.source.line) ?? 0, shown);
        }
      }
    }
    HEAT.forEach((type, level) => editor.setDecorations(type, ranges[level]));
    BETTER.forEach((type, level) => editor.setDecorations(type, better[level]));
    WORSE.forEach((type, level) => editor.setDecorations(type, worse[level]));
  }

}
