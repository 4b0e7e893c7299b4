// The status bar item: compile state of the active file, its time, and the resources
// (registers, spills, occupancy) of the kernel under the cursor; and what each save
// changed ("PTX +3 −1, SASS +2, regs 10→12"), told once as a transient status bar message
// and kept in the item's tooltip.
//
// States and changes come from `kernelscope/status`; kernel resources from
// `kernelscope/kernels`, fetched once per ready revision and kept until the next one.

import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import { describeChanges } from "./changes";
import * as ext from "./lsp_ext";
import { parseArtifactUri, SCHEME, sameUri } from "./uri";

interface FileStatus {
  status: ext.StatusParams;
  kernels?: ext.KernelsResult;
  /** What the newest ready compile changed, and whether the user was told. */
  changes?: { revision: number; changes: ext.CompileChanges; told: boolean };
}

const ICONS: Record<ext.CompileState, string> = {
  queued: "$(clock)",
  compiling: "$(sync~spin)",
  ready: "$(check)",
  failed: "$(error)",
};

export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem("kernelscope.status", vscode.StatusBarAlignment.Left, 10);
  private readonly files = new Map<string, FileStatus>();
  private readonly disposables: vscode.Disposable[] = [];
  private serverMessage: string | undefined;
  private changesMessage: vscode.Disposable | undefined;

  constructor(private readonly client: () => LanguageClient | undefined) {
    this.item.name = "kernelscope";
    this.item.command = "kernelscope.showPtx";
    this.disposables.push(
      this.item,
      vscode.window.onDidChangeActiveTextEditor(() => this.render()),
      vscode.window.onDidChangeTextEditorSelection((e) => {
        if (e.textEditor === vscode.window.activeTextEditor) this.render();
      }),
      // A closed file's last state is dropped: a compile it left "coming" never reports
      // again, and the file opened again starts from its own new status.
      vscode.workspace.onDidCloseTextDocument((document) => {
        if (this.files.delete(document.uri.toString())) this.render();
      }),
      // A save whose text compiled already (while it was typed) tells that compile's changes.
      vscode.workspace.onDidSaveTextDocument((document) => {
        const key = document.uri.toString();
        const entry = this.entryOf(key);
        if (entry?.status.state === "ready" && entry.changes?.revision === entry.status.revision) {
          this.tellChanges(key, entry);
        }
      }),
    );
  }

  dispose(): void {
    this.changesMessage?.dispose();
    this.disposables.forEach((d) => d.dispose());
  }

  /** Shows that the server could not start or stopped. */
  setServerProblem(message: string | undefined): void {
    this.serverMessage = message;
    this.render();
  }

  /** Latest state of a file, from `kernelscope/status`. */
  update(status: ext.StatusParams): void {
    const key = vscode.Uri.parse(status.uri).toString();
    const previous = this.files.get(key);
    const entry: FileStatus = { status, kernels: previous?.kernels, changes: previous?.changes };
    if (status.state === "ready" && status.changes) {
      entry.changes = { revision: status.revision, changes: status.changes, told: false };
    }
    this.files.set(key, entry);
    this.render();
    if (status.state === "ready") {
      void this.fetchKernels(key, entry);
      // Text still being typed is told on its save; saved text (or a settings change) now.
      const document = vscode.workspace.textDocuments.find((d) => sameUri(d.uri.toString(), key));
      if (entry.changes && !document?.isDirty) this.tellChanges(key, entry);
    }
  }

  private entryOf(uri: string): FileStatus | undefined {
    return [...this.files.entries()].find(([key]) => sameUri(key, uri))?.[1];
  }

  /** Shows what the newest compile of a file changed, once, for a while. */
  private tellChanges(key: string, entry: FileStatus): void {
    if (!entry.changes || entry.changes.told) return;
    entry.changes.told = true;
    const name = vscode.Uri.parse(key).path.split("/").pop();
    this.changesMessage?.dispose();
    this.changesMessage = vscode.window.setStatusBarMessage(
      `$(diff) kernelscope ${name}: ${entry.changes.changes.summary}`,
      15000,
    );
  }

  /** The resources of a file's kernels at its latest ready revision. */
  kernelsOf(uri: vscode.Uri): ext.KernelsResult | undefined {
    return this.files.get(uri.toString())?.kernels;
  }

  private async fetchKernels(key: string, entry: FileStatus): Promise<void> {
    const client = this.client();
    if (!client) return;
    try {
      entry.kernels = await client.sendRequest(ext.kernels, { textDocument: { uri: key } });
      this.render();
    } catch {
      // Kernel resources are an extra: the state alone still shows.
    }
  }

  /** The source file the active editor belongs to (its own, or the one a view shows). */
  private activeSource(): { uri: vscode.Uri; line?: number } | undefined {
    const editor = vscode.window.activeTextEditor;
    if (!editor) return undefined;
    const uri = editor.document.uri;
    if (uri.scheme === SCHEME) {
      const address = parseArtifactUri(uri.toString());
      return address ? { uri: vscode.Uri.file(address.sourcePath) } : undefined;
    }
    if (uri.scheme === "file" && editor.document.languageId === "rust") {
      return { uri, line: editor.selection.active.line };
    }
    return undefined;
  }

  private render(): void {
    if (this.serverMessage) {
      this.item.text = "$(error) kernelscope";
      this.item.tooltip = this.serverMessage;
      this.item.command = "kernelscope.showOutput";
      this.item.show();
      return;
    }
    this.item.command = "kernelscope.showPtx";
    const source = this.activeSource();
    if (!source) {
      this.item.hide();
      return;
    }
    const entry = this.entryOf(source.uri.toString());
    if (!entry) {
      this.item.text = "$(circle-outline) kernelscope";
      this.item.tooltip = "kernelscope: not compiled yet";
      this.item.show();
      return;
    }
    const { status, kernels } = entry;
    const parts: string[] = [];
    if (status.state === "ready" && status.pending?.length) parts.push(`${status.pending.join(", ")} coming`);
    else if (status.state === "ready" && status.durationMs !== undefined) parts.push(`${status.durationMs} ms`);
    if (status.state === "failed") parts.push("failed");
    if (status.withheld?.length) parts.push("$(shield) restricted");
    const kernel = this.kernelAt(kernels, source.line);
    if (kernel && kernel.registers !== undefined) {
      parts.push(`${kernel.name}: ${kernel.registers} regs`);
      const spills = (kernel.spillStores ?? 0) + (kernel.spillLoads ?? 0);
      parts.push(spills > 0 ? `$(warning) ${spills} B spill` : "0 B spill");
    } else if (kernel) {
      parts.push(kernel.name);
    }
    this.item.text = `${ICONS[status.state]} kernelscope ${parts.join(" · ")}`.trimEnd();
    const tooltip = new vscode.MarkdownString();
    tooltip.appendMarkdown(`**kernelscope** — ${status.state}`);
    if (kernels?.arch) tooltip.appendMarkdown(` for \`${kernels.arch}\``);
    if (status.message) tooltip.appendMarkdown(`\n\n${status.message}`);
    if (status.withheld?.length) {
      tooltip.appendMarkdown("\n\nNot applied until you trust this workspace:");
      for (const w of status.withheld) tooltip.appendMarkdown(`\n- ${w}`);
    }
    if (entry.changes) tooltip.appendMarkdown(`\n\n${describeChanges(entry.changes.changes).join("\n")}`);
    if (kernel) {
      const name = `\`${kernel.demangled || kernel.name}\``;
      const counts = `${kernel.instructions.ptx} PTX, ${kernel.instructions.sass} SASS instructions`;
      tooltip.appendMarkdown(
        kernel.registers === undefined
          ? `\n\n${name}: ${counts}; ` +
              (status.pending?.includes("resources") ? "resources coming" : "resources unavailable (no ptxas)")
          : `\n\n${name}: ${kernel.registers} registers, ${kernel.spillStores ?? 0} B spill stores, ` +
              `${kernel.spillLoads ?? 0} B spill loads, ${kernel.sharedMemory ?? 0} B shared, ` +
              `${kernel.localMemory ?? 0} B local; ${counts}` +
              (kernel.occupancy
                ? `; ${kernel.occupancy.percent}% occupancy at ${kernel.occupancy.blockSize} threads ` +
                  `(${kernel.occupancy.activeWarpsPerSM}/${kernel.occupancy.maxWarpsPerSM} warps, ` +
                  `limited by ${kernel.occupancy.limiter})`
                : ""),
      );
    }
    this.item.tooltip = tooltip;
    this.item.show();
  }

  /**
   * The kernel under the cursor: the one whose range holds the line, else the nearest one
   * starting above it (servers may give only the signature's range), else the only one.
   */
  private kernelAt(kernels: ext.KernelsResult | undefined, line: number | undefined): ext.KernelInfo | undefined {
    if (!kernels || kernels.kernels.length === 0) return undefined;
    if (line !== undefined) {
      const inside = kernels.kernels.find((k) => k.range.start.line <= line && line <= k.range.end.line);
      if (inside) return inside;
      const above = kernels.kernels
        .filter((k) => k.range.start.line <= line)
        .sort((a, b) => b.range.start.line - a.range.start.line)[0];
      if (above) return above;
    }
    return kernels.kernels.length === 1 ? kernels.kernels[0] : undefined;
  }
}
