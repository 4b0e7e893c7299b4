// "kernelscope: Open Stages Side by Side": the source and its stages tiled in editor groups.
//
// The command lays the window out in columns — the source, then one group per stage of
// `kernelscope.sideBySide.stages` (PTX and SASS unless chosen) — instead of stacking the
// views as tabs of one group. Like Compiler Explorer's panes, a stage group belongs to the
// layout, not to a file: when another Rust file becomes the active editor, each pane shows
// that file's view of its stage in place of the previous one (closed, so tabs never pile
// up). The views are the ordinary stage views of views.ts, titled `kern/src/lib.rs · PTX`.

import * as vscode from "vscode";
import * as ext from "./lsp_ext";
import { settings } from "./config";
import { ArtifactViews } from "./views";
import { parseArtifactUri, SCHEME } from "./uri";

/** A stage's column in the layout. */
interface Pane {
  stage: ext.Stage;
  column: vscode.ViewColumn;
}

/** The stage view shown by a tab, if it is one that follows the latest compile. */
function viewOf(tab: vscode.Tab): { uri: vscode.Uri; stage: ext.Stage } | undefined {
  if (!(tab.input instanceof vscode.TabInputText) || tab.input.uri.scheme !== SCHEME) return undefined;
  const address = parseArtifactUri(tab.input.uri.toString());
  if (!address || address.revision !== undefined) return undefined;
  return { uri: tab.input.uri, stage: address.stage };
}

export class StagePanes implements vscode.Disposable {
  private panes: Pane[] = [];
  /** The source file the panes show. */
  private source: string | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  /** Retargets run one after another, so quick switches end on the last file. */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly revealLinked: () => void,
    private readonly log: (line: string) => void,
  ) {
    this.disposables.push(
      vscode.window.onDidChangeActiveTextEditor((editor) => {
        const doc = editor?.document;
        if (!doc || doc.uri.scheme !== "file" || doc.languageId !== "rust" || this.panes.length === 0) return;
        // Back in the file the panes show: leave them as the user arranged them.
        if (doc.uri.toString() === this.source) return;
        this.queue = this.queue
          .then(() => this.follow(doc.uri))
          .catch((error) => this.log(`kernelscope: the stage panes did not follow ${doc.uri.fsPath}: ${error}`));
      }),
    );
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
  }

  /** Tiles `source` and its stages in columns; the focus stays in the source. */
  async open(source: vscode.Uri, stages?: ext.Stage[]): Promise<void> {
    const chosen = stages ?? settings().get<ext.Stage[]>("sideBySide.stages", ["ptx", "sass"]);
    const wanted = chosen.filter((s, i) => ext.ALL_STAGES.includes(s) && chosen.indexOf(s) === i);
    if (wanted.length === 0) {
      void vscode.window.showWarningMessage("kernelscope: `kernelscope.sideBySide.stages` names no stage.");
      return;
    }
    await vscode.commands.executeCommand("vscode.setEditorLayout", {
      orientation: 0,
      groups: Array.from({ length: wanted.length + 1 }, () => ({})),
    });
    const doc = await vscode.workspace.openTextDocument(source);
    await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One, preview: false });
    this.panes = wanted.map((stage, i) => ({ stage, column: (i + 2) as vscode.ViewColumn }));
    await this.show(source);
  }

  /** Retargets the panes still open to `source`. */
  private async follow(source: vscode.Uri): Promise<void> {
    this.panes = this.panes.filter((pane) => this.isAlive(pane));
    await this.show(source);
  }

  /** Shows `source`'s view of each pane's stage in that pane, closing what it showed before. */
  private async show(source: vscode.Uri): Promise<void> {
    this.source = source.toString();
    for (const pane of this.panes) {
      const uri = ArtifactViews.uriFor(source, pane.stage);
      const doc = await vscode.workspace.openTextDocument(uri);
      await vscode.window.showTextDocument(doc, { viewColumn: pane.column, preserveFocus: true, preview: false });
      // Read after the new tab opened: tab objects from before it are stale.
      const group = vscode.window.tabGroups.all.find((g) => g.viewColumn === pane.column);
      const stale = (group?.tabs ?? []).filter((tab) => {
        const view = viewOf(tab);
        return view && view.stage === pane.stage && view.uri.toString() !== uri.toString();
      });
      if (stale.length > 0) await vscode.window.tabGroups.close(stale, true);
    }
    // The lines the source cursor is on, highlighted and scrolled into view at once.
    this.revealLinked();
  }

  /** A pane lives while its group exists and still shows a view of its stage. */
  private isAlive(pane: Pane): boolean {
    const group = vscode.window.tabGroups.all.find((g) => g.viewColumn === pane.column);
    return group?.tabs.some((tab) => viewOf(tab)?.stage === pane.stage) ?? false;
  }
}
