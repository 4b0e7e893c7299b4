// Stage panes: where the stage views show, one per stage, following the active Rust file.
//
// Like Compiler Explorer's panes, a stage view belongs to the layout, not to a file: when
// another Rust file becomes the active editor, each pane shows that file's view of its
// stage in place of the previous one (closed, so tabs never pile up). A pane is made by
// *Show PTX* and the other single-stage commands (beside the source), or by
// "kernelscope: Open Stages Side by Side", which lays the window out in columns — the
// source, then one group per stage of `kernelscope.sideBySide.stages` (PTX and SASS unless
// chosen). The views are the ordinary stage views of views.ts; each tab is titled
// `kern/src/lib.rs · PTX` through the editor's label (VS Code names a tab after the last
// segment of its URI, which would make every crate's view `lib.rs.ptx`).
//
// The layout favours the source: half the width for it, the rest shared by the stages,
// the sidebar closed (Ctrl+B brings it back). A stage group is locked to its view, so a
// file opened with the focus in it lands in the source's group; closing the source closes
// its views and their groups.

import * as vscode from "vscode";
import * as ext from "./lsp_ext";
import { settings } from "./config";
import { ArtifactViews } from "./views";
import { parseArtifactUri, SCHEME, viewTitle } from "./uri";

/** What a window keeps of a tiled layout: its source and the stages beside it. */
interface Tiled {
  source: string;
  stages: ext.Stage[];
}
const TILED_KEY = "kernelscope.tiled";

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
  /** The stages whose pane's group is locked to its view. */
  private readonly locked = new Set<ext.Stage>();
  /** The source file the panes show. */
  private source: string | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  /** Changes of the panes run one after another, so quick switches end on the last file. */
  private queue: Promise<unknown> = Promise.resolve();

  /** Whether the panes are a layout made by Open Stages Side by Side (kept across reloads). */
  private tiled = false;

  constructor(
    private readonly revealLinked: () => void,
    private readonly log: (line: string) => void,
    private readonly memento: vscode.Memento,
  ) {
    this.disposables.push(
      vscode.window.tabGroups.onDidChangeTabs((e) => {
        const closed = this.source;
        if (!closed || !e.closed.some((tab) => tab.input instanceof vscode.TabInputText && tab.input.uri.toString() === closed)) {
          return;
        }
        // A preview tab replaced by the next file closes too, and the panes follow that file
        // once the active editor has changed: they close only if still on this one then.
        setTimeout(() => {
          void this.serialize(async () => {
            if (this.source === closed && !this.shownInATab(closed)) await this.close(closed);
          }, false).catch((error) => this.log(`kernelscope: the stage panes did not close: ${error}`));
        }, 300);
      }),
      vscode.window.onDidChangeActiveTextEditor((editor) => {
        const doc = editor?.document;
        if (!doc || doc.uri.scheme !== "file" || doc.languageId !== "rust" || this.panes.length === 0) return;
        // Back in the file the panes show: leave them as the user arranged them.
        if (doc.uri.toString() === this.source) return;
        void this.serialize(() => this.follow(doc.uri))
          .then(() => this.revealLinked())
          .catch((error) => this.log(`kernelscope: the stage panes did not follow ${doc.uri.fsPath}: ${error}`));
      }),
    );
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
  }

  /**
   * After a window reload: VS Code brings back the groups but not the stage views in them
   * (nor this object's record of them), so a tiled layout whose source came back is tiled
   * again from what `remember` kept; otherwise the groups left empty are closed.
   */
  async restore(): Promise<void> {
    const kept = this.memento.get<Tiled>(TILED_KEY);
    if (kept && kept.stages.length > 0 && this.shownInATab(kept.source)) {
      await this.open(vscode.Uri.parse(kept.source), kept.stages);
      return;
    }
    await this.serialize(async () => {
      const empty = vscode.window.tabGroups.all.filter((g) => g.tabs.length === 0);
      if (empty.length > 0 && empty.length < vscode.window.tabGroups.all.length) {
        await vscode.window.tabGroups.close(empty, true);
      }
    }, false);
  }

  /** Keeps the tiled layout's source and stages for the next window (restore). */
  private remember(): void {
    const tiled: Tiled | undefined =
      this.tiled && this.source ? { source: this.source, stages: this.panes.map((p) => p.stage) } : undefined;
    void this.memento.update(TILED_KEY, tiled);
  }

  /** Tiles `source` and its stages in columns; the focus stays in the source. */
  async open(source: vscode.Uri, stages?: ext.Stage[]): Promise<void> {
    const chosen = stages ?? settings().get<ext.Stage[]>("sideBySide.stages", ["ptx", "sass"]);
    const wanted = chosen.filter((s, i) => ext.ALL_STAGES.includes(s) && chosen.indexOf(s) === i);
    if (wanted.length === 0) {
      void vscode.window.showWarningMessage("kernelscope: `kernelscope.sideBySide.stages` names no stage.");
      return;
    }
    await this.serialize(async () => {
      // Half the width for the source, the rest shared: three equal columns beside the
      // explorer truncate every line on a laptop's screen.
      await vscode.commands.executeCommand("vscode.setEditorLayout", {
        orientation: 0,
        groups: [{ size: 0.5 }, ...wanted.map(() => ({ size: 0.5 / wanted.length }))],
      });
      await vscode.commands.executeCommand("workbench.action.closeSidebar");
      const doc = await vscode.workspace.openTextDocument(source);
      await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One, preview: false });
      this.panes = wanted.map((stage, i) => ({ stage, column: (i + 2) as vscode.ViewColumn }));
      this.source = source.toString();
      this.tiled = true;
      this.locked.clear();
      this.remember();
      for (const pane of this.panes) await this.showIn(pane, source);
      // `vscode.open` activates the group it opens in, even asked to preserve the focus.
      await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One, preview: false });
    }, false);
    // The lines the source cursor is on, highlighted and scrolled into view at once.
    this.revealLinked();
  }

  /**
   * Shows `source`'s view of `stage` in the pane of that stage, made beside the source
   * when there is none; the focus stays where it is. Returns the view's editor.
   */
  async show(source: vscode.Uri, stage: ext.Stage): Promise<vscode.TextEditor> {
    return this.serialize(async () => {
      this.panes = this.panes.filter((pane) => this.isAlive(pane));
      let pane = this.panes.find((p) => p.stage === stage);
      if (!pane) {
        pane = { stage, column: vscode.ViewColumn.Beside };
        this.panes.push(pane);
      }
      if (this.source !== source.toString()) {
        // The other panes follow the file too: a pane shows the file the others show.
        this.source = source.toString();
        for (const other of this.panes) if (other !== pane) await this.showIn(other, source);
      }
      return this.showIn(pane, source);
    });
  }

  /**
   * Runs `job` after the changes queued before it. With `keepFocus` the focus goes back to
   * the source file the panes show, unless the user went to another file meanwhile: VS
   * Code's `vscode.open` activates the group it opens in, even asked to preserve the focus.
   */
  private serialize<T>(job: () => Promise<T>, keepFocus = true): Promise<T> {
    const run = async () => {
      const result = await job();
      const now = vscode.window.activeTextEditor;
      const source = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === this.source);
      const elsewhere = now && now.document.uri.scheme !== SCHEME && now.document !== source?.document;
      if (keepFocus && source?.viewColumn && !elsewhere) {
        await vscode.window.showTextDocument(source.document, { viewColumn: source.viewColumn, preserveFocus: false });
      }
      return result;
    };
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Retargets the panes still open to `source`. */
  private async follow(source: vscode.Uri): Promise<void> {
    this.panes = this.panes.filter((pane) => this.isAlive(pane));
    this.source = source.toString();
    this.remember();
    for (const pane of this.panes) await this.showIn(pane, source);
  }

  /** Shows `source`'s view of the pane's stage in the pane, closing what it showed before. */
  private async showIn(pane: Pane, source: vscode.Uri): Promise<vscode.TextEditor> {
    const uri = ArtifactViews.uriFor(source, pane.stage);
    const title = viewTitle(vscode.workspace.asRelativePath(source, false), pane.stage);
    // `vscode.open` takes the tab's label; showTextDocument would name it after the URI.
    await vscode.commands.executeCommand(
      "vscode.open",
      uri,
      { viewColumn: pane.column, preserveFocus: true, preview: false },
      title,
    );
    const editor = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri.toString());
    if (!editor?.viewColumn) throw new Error(`the ${title} view did not open`);
    if (pane.column !== editor.viewColumn || !this.locked.has(pane.stage)) await this.lock(uri, editor.viewColumn, title);
    this.locked.add(pane.stage);
    pane.column = editor.viewColumn;
    // One view per stage, wherever the others are. Read after the new tab opened: tab
    // objects from before it are stale.
    const stale = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((tab) => {
      const view = viewOf(tab);
      return view && view.stage === pane.stage && view.uri.toString() !== uri.toString();
    });
    if (stale.length > 0) await vscode.window.tabGroups.close(stale, true);
    return editor;
  }

  /**
   * Locks the group of a stage view to it: VS Code then opens other files elsewhere (in
   * the source's group), even with the focus in the view. Locking acts on the active group,
   * so the view is focused for it (opened again with its title: showTextDocument would
   * rename the tab); the callers give the focus back.
   */
  private async lock(uri: vscode.Uri, column: vscode.ViewColumn, title: string): Promise<void> {
    await vscode.commands.executeCommand("vscode.open", uri, { viewColumn: column, preserveFocus: false, preview: false }, title);
    await vscode.commands.executeCommand("workbench.action.lockEditorGroup");
  }

  /** Whether a tab of any group shows `uri`. */
  private shownInATab(uri: string): boolean {
    return vscode.window.tabGroups.all.some((g) =>
      g.tabs.some((tab) => tab.input instanceof vscode.TabInputText && tab.input.uri.toString() === uri));
  }

  /** Closes the views of `source` (and so their groups) once it is closed. */
  private async close(source: string): Promise<void> {
    const path = vscode.Uri.parse(source).fsPath;
    const views = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((tab) => {
      const view = viewOf(tab);
      return view && parseArtifactUri(view.uri.toString())?.sourcePath === path;
    });
    this.panes = [];
    this.source = undefined;
    this.tiled = false;
    this.locked.clear();
    this.remember();
    if (views.length > 0) await vscode.window.tabGroups.close(views, true);
  }

  /**
   * A pane lives while a group still shows a view of its stage; a group opened beside the
   * source moves the others' columns, so the pane follows its view to its column now.
   */
  private isAlive(pane: Pane): boolean {
    const showing = vscode.window.tabGroups.all.filter((g) => g.tabs.some((tab) => viewOf(tab)?.stage === pane.stage));
    const group = showing.find((g) => g.viewColumn === pane.column) ?? showing[0];
    if (!group) return false;
    pane.column = group.viewColumn;
    return true;
  }
}
