// "kernelscope: Show Optimization Passes": the LLVM and MIR passes that changed a kernel,
// each with its diff and instruction counts, as a read-only document
// `kernelscope:/passes/<source path>.passes?kernel=NAME&rev=N` (the revision only makes each
// compile's report a document of its own, since VS Code keeps an open document's text).
//
// The server computes everything (`kernelscope/passes`, docs/lsp-extensions.md); this
// file only picks the kernel, names the document and hands its text to VS Code.

import * as vscode from "vscode";
import * as lc from "vscode-languageclient";
import type { LanguageClient } from "vscode-languageclient/node";
import * as ext from "./lsp_ext";

export interface PassesParams {
  textDocument?: ext.TextDocumentIdentifier;
  uri?: string;
  kernel?: string;
  stage?: "llvm-ir" | "mir";
}

/** One pass that changed the kernel. */
export interface PassInfo {
  stage: "llvm-ir" | "mir";
  name: string;
  unit: string;
  before: number;
  after: number;
  diff: string;
}

export interface PassesResult {
  uri: string;
  kernel: string;
  revision: number;
  text: string;
  passes: PassInfo[];
}

export const passes = new lc.RequestType<PassesParams, PassesResult, void>("kernelscope/passes");

const PREFIX = "kernelscope:/passes/";

/** The pass-by-pass document of a kernel of the source at `sourcePath`. */
export function passesUri(sourcePath: string, kernel: string): string {
  const path = sourcePath.split("/").map(encodeURIComponent).join("/");
  return `kernelscope:/passes${path}.passes?kernel=${encodeURIComponent(kernel)}`;
}

/** The source path and kernel a pass-by-pass URI names; undefined for other URIs. */
export function parsePassesUri(uri: vscode.Uri): { sourcePath: string; kernel: string } | undefined {
  if (!uri.toString().startsWith(PREFIX) || !uri.path.endsWith(".passes")) return undefined;
  const kernel = new URLSearchParams(uri.query).get("kernel");
  if (!kernel) return undefined;
  return { sourcePath: uri.path.slice("/passes".length, -".passes".length), kernel };
}

/** The text of a pass-by-pass document (called by the `kernelscope:` content provider). */
export async function passesText(
  client: LanguageClient | undefined,
  uri: vscode.Uri,
  token: vscode.CancellationToken,
): Promise<string> {
  const address = parsePassesUri(uri);
  if (!address) return `kernelscope: not a pass-by-pass document: ${uri.toString()}\n`;
  if (!client) return "kernelscope: the language server is not running.\n";
  try {
    const textDocument = { uri: vscode.Uri.file(address.sourcePath).toString() };
    const result = await client.sendRequest(passes, { textDocument, kernel: address.kernel }, token);
    return result.text;
  } catch (error) {
    return `kernelscope: no passes for ${address.kernel}: ${error instanceof Error ? error.message : error}\n`;
  }
}

/** The command: the kernel under the cursor (or the one picked) of the active Rust file. */
export function registerPassesCommand(client: () => LanguageClient | undefined): vscode.Disposable {
  return vscode.commands.registerCommand("kernelscope.showPasses", async (kernel?: string) => {
    const editor = vscode.window.activeTextEditor;
    const c = client();
    if (!editor || editor.document.uri.scheme !== "file" || !c) {
      void vscode.window.showInformationMessage("kernelscope: open a Rust kernel file first.");
      return;
    }
    let found: ext.KernelsResult;
    try {
      found = await c.sendRequest(ext.kernels, { textDocument: { uri: editor.document.uri.toString() } });
    } catch (error) {
      void vscode.window.showErrorMessage(`kernelscope: ${error instanceof Error ? error.message : error}`);
      return;
    }
    if (!kernel) {
      const line = editor.selection.active.line;
      // The kernel defined nearest above the cursor, else ask.
      const above = found.kernels.filter((k) => k.range.start.line <= line);
      kernel =
        found.kernels.length === 1
          ? found.kernels[0].demangled
          : above.length > 0
            ? above[above.length - 1].demangled
            : await vscode.window.showQuickPick(
                found.kernels.map((k) => k.demangled),
                { placeHolder: "kernelscope: which kernel's passes?" },
              );
      if (!kernel) return;
    }
    // VS Code keeps an open document's text: a new revision is a new document.
    const uri = `${passesUri(editor.document.uri.fsPath, kernel)}&rev=${found.revision}`;
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(uri));
    await vscode.languages.setTextDocumentLanguage(doc, "diff");
    await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: true });
  });
}
