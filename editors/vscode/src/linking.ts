// Linked highlighting between a source file and its stage views, both ways.
//
// The cursor on a source line lights up the lines it became in every visible view of
// that file and scrolls them into view; the cursor in a view lights up the source line
// it came from and the other lines of the same group. With `kernelscope.highlight.colorize`
// every source line and its instructions share a background colour, as in Compiler
// Explorer. The line lookups are SegmentIndex's; this file only paints.

import * as vscode from "vscode";
import type { LineRange } from "./lsp_ext";
import { ArtifactViews, ViewState } from "./views";
import { SCHEME } from "./uri";

const PALETTE = [
  "rgba(255, 179, 71, 0.18)",
  "rgba(119, 221, 119, 0.18)",
  "rgba(100, 181, 246, 0.18)",
  "rgba(240, 98, 146, 0.18)",
  "rgba(186, 104, 200, 0.18)",
  "rgba(77, 208, 225, 0.18)",
  "rgba(255, 241, 118, 0.18)",
  "rgba(161, 136, 127, 0.18)",
];

function toRanges(lines: readonly LineRange[], doc: vscode.TextDocument): vscode.Range[] {
  const last = doc.lineCount - 1;
  return lines
    .filter((r) => r.start <= last)
    .map((r) => new vscode.Range(r.start, 0, Math.min(r.end, last), 0));
}

export class LinkedHighlighter implements vscode.Disposable {
  private readonly linked = vscode.window.createTextEditorDecorationType({
    backgroundColor: new vscode.ThemeColor("kernelscope.linkedLineBackground"),
    overviewRulerColor: new vscode.ThemeColor("kernelscope.linkedLineBackground"),
    overviewRulerLane: vscode.OverviewRulerLane.Center,
    isWholeLine: true,
  });
  // Inlined through a call on the line: a lighter background of the same hue and a solid
  // bar, both visible in light and dark themes (a thin dashed margin was not).
  private readonly inlined = vscode.window.createTextEditorDecorationType({
    backgroundColor: new vscode.ThemeColor("kernelscope.inlinedLineBackground"),
    borderColor: new vscode.ThemeColor("kernelscope.inlinedLineBorder"),
    borderStyle: "solid",
    borderWidth: "0 0 0 4px",
    overviewRulerColor: new vscode.ThemeColor("kernelscope.inlinedLineBorder"),
    overviewRulerLane: vscode.OverviewRulerLane.Center,
    isWholeLine: true,
  });
  private readonly bands = PALETTE.map((colour) =>
    vscode.window.createTextEditorDecorationType({ backgroundColor: colour, isWholeLine: true }),
  );
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly views: ArtifactViews) {
    this.disposables.push(
      vscode.window.onDidChangeTextEditorSelection((e) => this.onCursor(e.textEditor)),
      vscode.window.onDidChangeVisibleTextEditors(() => this.repaint()),
      views.onDidUpdate(() => this.repaint()),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document.uri.scheme === SCHEME) this.repaint();
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration("kernelscope.highlight")) this.repaint();
      }),
    );
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
    [this.linked, this.inlined, ...this.bands].forEach((d) => d.dispose());
  }

  private get enabled(): boolean {
    return vscode.workspace.getConfiguration("kernelscope.highlight").get("linked", true);
  }

  private get colorize(): boolean {
    return vscode.workspace.getConfiguration("kernelscope.highlight").get("colorize", false);
  }

  /** Paints again from the active editor's cursor, for example after a view refreshed. */
  repaint(): void {
    this.paintColourBands();
    const editor = vscode.window.activeTextEditor;
    if (editor) this.onCursor(editor);
  }

  private onCursor(editor: vscode.TextEditor): void {
    if (!this.enabled) return;
    if (editor.document.uri.scheme === SCHEME) {
      this.fromView(editor);
    } else if (editor.document.uri.scheme === "file") {
      this.fromSource(editor);
    }
  }

  /** Visible editors showing views of a source file, with their state. */
  private visibleViews(sourceUri: vscode.Uri): { editor: vscode.TextEditor; state: ViewState }[] {
    const out: { editor: vscode.TextEditor; state: ViewState }[] = [];
    for (const editor of vscode.window.visibleTextEditors) {
      if (editor.document.uri.scheme !== SCHEME) continue;
      const state = this.views.state(editor.document.uri);
      if (state && state.address.sourcePath === sourceUri.fsPath) out.push({ editor, state });
    }
    return out;
  }

  private fromSource(source: vscode.TextEditor): void {
    const line = source.selection.active.line;
    const sourceUri = source.document.uri;
    const views = this.visibleViews(sourceUri);
    if (views.length === 0) return;
    const linked = this.lightViews(views, sourceUri.toString(), line);
    // The source line shares the colour of what it became, so the pair reads as one.
    source.setDecorations(this.linked, linked ? [new vscode.Range(line, 0, line, 0)] : []);
  }

  /**
   * Lights in each of `views` the lines that source line `line` of `uri` became, scrolled
   * into view; returns whether any view has such lines.
   */
  private lightViews(views: { editor: vscode.TextEditor; state: ViewState }[], uri: string, line: number): boolean {
    let linked = false;
    for (const { editor, state } of views) {
      const lines = state.index.linesFor(uri, line);
      const direct = toRanges(lines.direct, editor.document);
      const inlined = toRanges(lines.inlined, editor.document);
      editor.setDecorations(this.linked, direct);
      editor.setDecorations(this.inlined, inlined);
      const first = direct[0] ?? inlined[0];
      if (first) editor.revealRange(first, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
      linked ||= first !== undefined;
    }
    return linked;
  }

  private fromView(view: vscode.TextEditor): void {
    const state = this.views.state(view.document.uri);
    if (!state) return;
    const line = view.selection.active.line;
    const origin = state.index.sourceOf(line);
    view.setDecorations(this.linked, origin ? toRanges(state.index.siblingsOf(line), view.document) : []);
    view.setDecorations(this.inlined, []);
    // The other views of the same file answer for the same source line: three panes, one
    // answer (or none, when the line under the cursor came from no source line).
    const others = this.visibleViews(vscode.Uri.file(state.address.sourcePath)).filter((v) => v.editor !== view);
    if (origin) {
      this.lightViews(others, origin.uri, origin.line);
    } else {
      for (const { editor } of others) {
        editor.setDecorations(this.linked, []);
        editor.setDecorations(this.inlined, []);
      }
    }
    for (const editor of vscode.window.visibleTextEditors) {
      if (editor.document.uri.scheme !== "file") continue;
      if (editor.document.uri.fsPath !== state.address.sourcePath) continue;
      if (!origin || vscode.Uri.parse(origin.uri).fsPath !== editor.document.uri.fsPath) {
        editor.setDecorations(this.linked, []);
        continue;
      }
      const range = new vscode.Range(origin.line, 0, origin.line, 0);
      editor.setDecorations(this.linked, [range]);
      editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    }
  }

  /** Compiler Explorer colouring: each source line and its instructions share a colour. */
  private paintColourBands(): void {
    const on = this.colorize;
    const painted = new Set<vscode.TextEditor>();
    for (const view of vscode.window.visibleTextEditors) {
      if (view.document.uri.scheme !== SCHEME) continue;
      const state = this.views.state(view.document.uri);
      if (!state || !on) continue;
      const bands = state.index.colourBands(this.bands.length);
      bands.forEach((band, i) => view.setDecorations(this.bands[i], toRanges(band.artifactLines, view.document)));
      painted.add(view);
      for (const source of vscode.window.visibleTextEditors) {
        if (source.document.uri.scheme !== "file" || source.document.uri.fsPath !== state.address.sourcePath) {
          continue;
        }
        bands.forEach((band, i) => {
          const lines: number[] = [];
          for (const [uri, ls] of band.sourceLines) {
            if (vscode.Uri.parse(uri).fsPath === source.document.uri.fsPath) lines.push(...ls);
          }
          source.setDecorations(this.bands[i], lines.map((l) => new vscode.Range(l, 0, l, 0)));
        });
        painted.add(source);
      }
    }
    for (const editor of vscode.window.visibleTextEditors) {
      if (!painted.has(editor)) this.bands.forEach((band) => editor.setDecorations(band, []));
    }
  }
}
