// Stage views: read-only `kernelscope:` documents holding a stage of a source file.
//
// VS Code asks this provider for the text of a virtual URI; the provider asks the server
// (`kernelscope/artifact`) and keeps the artifact with its segment index, which linked
// highlighting reads. When the server reports a file `ready`, every view of a stage that
// compile has is refreshed (stages come one after another: PTX before SASS). A failed request keeps the last good text, so a kernel that stops compiling
// still shows what it was.

import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import * as ext from "./lsp_ext";
import { artifactFilters } from "./config";
import { SegmentIndex } from "./highlight";
import { parsePassesUri, passesText } from "./passes";
import { ArtifactAddress, artifactUri, parseArtifactUri, SCHEME, stageTitle } from "./uri";

/** A view's latest content. */
export interface ViewState {
  address: ArtifactAddress;
  sourceUri: string;
  artifact: ext.Artifact;
  index: SegmentIndex;
}

export class ArtifactViews implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly states = new Map<string, ViewState>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  private readonly updated = new vscode.EventEmitter<ViewState>();
  private readonly disposables: vscode.Disposable[] = [];

  /** Fires when VS Code must re-read a view. */
  readonly onDidChange = this.changed.event;
  /** Fires when a view's content has been replaced by a new artifact. */
  readonly onDidUpdate = this.updated.event;

  constructor(private readonly client: () => LanguageClient | undefined) {
    this.disposables.push(
      vscode.workspace.registerTextDocumentContentProvider(SCHEME, this),
      vscode.workspace.onDidCloseTextDocument((doc) => {
        if (doc.uri.scheme === SCHEME) this.states.delete(doc.uri.toString());
      }),
    );
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
    this.changed.dispose();
    this.updated.dispose();
  }

  /** The virtual URI of a stage of a source document, following its latest compile. */
  static uriFor(source: vscode.Uri, stage: ext.Stage): vscode.Uri {
    return vscode.Uri.parse(artifactUri({ stage, sourcePath: source.fsPath }));
  }

  /** The content of a view, if it has been loaded. */
  state(uri: vscode.Uri): ViewState | undefined {
    return this.states.get(uri.toString());
  }

  /** All loaded views of a source file. */
  viewsOf(sourceUri: vscode.Uri): ViewState[] {
    const path = sourceUri.fsPath;
    return [...this.states.values()].filter((s) => s.address.sourcePath === path);
  }

  /**
   * Re-reads every open view of a source file that follows the latest compile and whose
   * stage it has (`stages`; all when not given): a stage still coming keeps its text until
   * the `ready` that brings it.
   */
  refresh(sourceUri: vscode.Uri, stages?: readonly string[]): void {
    const path = sourceUri.fsPath;
    for (const doc of vscode.workspace.textDocuments) {
      if (doc.uri.scheme !== SCHEME) continue;
      const address = parseArtifactUri(doc.uri.toString());
      if (address && address.sourcePath === path && address.revision === undefined &&
          (!stages || stages.includes(address.stage))) {
        this.changed.fire(doc.uri);
      }
    }
  }

  /** Re-reads every open view (the filters changed). */
  refreshAll(): void {
    for (const doc of vscode.workspace.textDocuments) {
      if (doc.uri.scheme === SCHEME && parseArtifactUri(doc.uri.toString())) this.changed.fire(doc.uri);
    }
  }

  async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
    const key = uri.toString();
    if (parsePassesUri(uri)) return passesText(this.client(), uri, token);  // passes.ts
    const address = parseArtifactUri(key);
    if (!address) return `// kernelscope: not a kernelscope view: ${key}\n`;
    const previous = this.states.get(key);
    const client = this.client();
    if (!client) {
      return previous?.artifact.text ?? `// kernelscope: the language server is not running.\n`;
    }
    const sourceUri = vscode.Uri.file(address.sourcePath).toString();
    try {
      const result = await client.sendRequest(
        ext.artifact,
        { textDocument: { uri: sourceUri }, stage: address.stage, revision: address.revision, filters: artifactFilters() },
        token,
      );
      const state: ViewState = {
        address,
        sourceUri,
        artifact: result,
        index: new SegmentIndex(result, sourceUri),
      };
      this.states.set(key, state);
      // Listeners read the new state once VS Code has applied the text.
      setTimeout(() => this.updated.fire(state), 0);
      return result.text;
    } catch (error) {
      if (previous) return previous.artifact.text;
      const message = error instanceof Error ? error.message : String(error);
      return `// kernelscope: no ${stageTitle(address.stage)} for ${address.sourcePath}\n// ${message}\n`;
    }
  }
}
