// Entry point of the kernelscope VS Code extension.
//
// Starts the `kernelscope` language server for Rust files and wires its pieces: stage
// views (views.ts), linked highlighting (linking.ts), the status bar (status.ts), the
// commands (commands.ts) and the on-save preview. Hovers, inlay hints, code lenses and
// diagnostics are the server's and reach VS Code through vscode-languageclient unchanged.
// All knowledge of compilers stays in the server: the client only asks and paints.

import * as vscode from "vscode";
import { LanguageClient, LanguageClientOptions } from "vscode-languageclient/node";
import * as ext from "./lsp_ext";
import { openServerPathSetting, resolveServerPath, serverOptions, settings } from "./config";
import { checkToolchain, stopSetup } from "./doctor";
import { Ctx, registerCommands } from "./commands";
import { LinkedHighlighter } from "./linking";
import { StatusBar } from "./status";
import { ArtifactViews } from "./views";
import { StagePanes } from "./tiles";
import { registerPassesCommand } from "./passes";
import { Profiles } from "./profile";
import { artifactUri, parseArtifactUri, SCHEME } from "./uri";
import { clientLog, ServerProcess } from "./server_process";

let client: LanguageClient | undefined;
/** The process of `client`'s server. */
let serverProcess: ServerProcess | undefined;
/** `kernelscope doctor` runs once per window, at the first start of the server. */
let toolchainChecked = false;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel("kernelscope");
  const views = new ArtifactViews(() => client);
  const status = new StatusBar(() => client);
  const highlighter = new LinkedHighlighter(views);
  const panes = new StagePanes(
    () => highlighter.repaint(),
    (line) => output.appendLine(line),
    context.workspaceState,
  );
  void panes.restore().catch((error) => output.appendLine(`kernelscope: the stage panes were not restored: ${error}`));
  const preview = new OnSavePreview(() => client, panes);
  context.subscriptions.push(output, views, status, highlighter, panes);

  const start = async (): Promise<void> => {
    const found = resolveServerPath(context.extensionPath);
    if (!found.path) {
      const message =
        `kernelscope: the language server was not found (looked at ${found.tried.join(", ")}). ` +
        "Install the linux-x64 .vsix that carries it, or build it (`cmake --build build --target kernelscope`) " +
        "and set `kernelscope.server.path`, or put `kernelscope` on PATH.";
      status.setServerProblem(message);
      output.appendLine(message);
      const choice = await vscode.window.showErrorMessage(message, "Open Settings");
      if (choice) void openServerPathSetting();
      return;
    }
    if (!toolchainChecked) {
      toolchainChecked = true;
      void checkToolchain(found.path, output, () => void ctx.restart());
    }
    const server = new ServerProcess(
      found.path,
      ["lsp", ...settings().get<string[]>("server.extraArgs", [])],
      (line) => output.appendLine(line),
    );
    const options: LanguageClientOptions = {
      documentSelector: [
        { scheme: "file", language: "rust" },
        { scheme: SCHEME },
      ],
      initializationOptions: serverOptions(),
      outputChannel: clientLog(output),
      uriConverters: { code2Protocol: toServerUri, protocol2Code: (uri) => vscode.Uri.parse(uri) },
    };
    const next = new LanguageClient("kernelscope", "kernelscope", server.options, options);
    next.onNotification(ext.status, (params) => {
      status.update(params);
      if (params.state === "ready") {
        views.refresh(vscode.Uri.parse(params.uri), params.stages);
        void preview.onReady(params.uri);
      }
    });
    try {
      await next.start();
      client = next;
      serverProcess = server;
      status.setServerProblem(undefined);
      output.appendLine(`kernelscope: started ${found.path}`);
    } catch (error) {
      const message = `kernelscope: the language server at ${found.path} did not start: ${
        error instanceof Error ? error.message : error
      }`;
      status.setServerProblem(message);
      output.appendLine(message);
      void vscode.window.showErrorMessage(message);
      await server.stop(next);
    }
  };

  const ctx: Ctx = {
    client: () => client,
    views,
    output,
    panes,
    revealLinked: () => highlighter.repaint(),
    restart: async () => {
      await stopServer();
      await start();
    },
  };
  context.subscriptions.push(
    ...registerCommands(ctx),
    registerPassesCommand(() => client),
    new Profiles(() => client, views, output),
    vscode.workspace.onDidSaveTextDocument((doc) => preview.onSave(doc)),
    // Trust granted: the server applies what it withheld (kernelscope.toml's rustc, a
    // crate's profile and flags) and recompiles.
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      void client?.sendNotification("workspace/didChangeConfiguration", {
        settings: { kernelscope: serverOptions() },
      });
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration("kernelscope.server")) {
        void ctx.restart();
      } else if (e.affectsConfiguration("kernelscope.filters")) {
        // The client's own: the views ask again with the new filters.
        views.refreshAll();
      } else if (e.affectsConfiguration("kernelscope")) {
        void client?.sendNotification("workspace/didChangeConfiguration", {
          settings: { kernelscope: serverOptions() },
        });
      }
    }),
  );
  await start();
}

/**
 * URIs as the server spells them. VS Code prints a view's query as `?rev%3D7`; the
 * contract's form is `?rev=7`, so views are rebuilt from what they name.
 */
function toServerUri(uri: vscode.Uri): string {
  const printed = uri.toString();
  if (uri.scheme !== SCHEME) return printed;
  const address = parseArtifactUri(printed);
  return address ? artifactUri(address) : printed;
}

/** Stops the running server, if any, and waits until its process has ended. */
async function stopServer(): Promise<void> {
  const old = client;
  const process = serverProcess;
  client = undefined;
  serverProcess = undefined;
  if (old && process) await process.stop(old);
}

/** The window closes: the setup and the server it started end with it. */
export async function deactivate(): Promise<void> {
  await Promise.all([stopSetup(), stopServer()]);
}

/**
 * Opens the preview stage beside a kernel file on its first save in this window; the view
 * then stays current by itself. A file without kernels gets no view.
 */
class OnSavePreview {
  private readonly pending = new Set<string>();
  private readonly shown = new Set<string>();

  constructor(
    private readonly client: () => LanguageClient | undefined,
    private readonly panes: StagePanes,
  ) {}

  onSave(doc: vscode.TextDocument): void {
    if (doc.uri.scheme !== "file" || doc.languageId !== "rust") return;
    if (!settings().get<boolean>("preview.onSave", true)) return;
    const key = doc.uri.toString();
    if (this.shown.has(key)) return;
    this.pending.add(key);
    void this.tryOpen(key);
  }

  async onReady(uri: string): Promise<void> {
    const key = vscode.Uri.parse(uri).toString();
    if (this.pending.has(key)) await this.tryOpen(key);
  }

  private async tryOpen(key: string): Promise<void> {
    const client = this.client();
    if (!client) return;
    try {
      const result = await client.sendRequest(ext.kernels, { textDocument: { uri: key } });
      // A compile that finished after its file was closed opens nothing.
      const open = vscode.workspace.textDocuments.some((d) => d.uri.toString() === key && !d.isClosed);
      if (!open) this.pending.delete(key);
      if (!open || result.kernels.length === 0 || !this.pending.delete(key)) return;
      this.shown.add(key);
      const stage = settings().get<ext.Stage>("preview.stage", "ptx");
      await this.panes.show(vscode.Uri.parse(key), stage);
    } catch {
      // Not compiled yet: the `ready` notification tries again.
    }
  }
}
