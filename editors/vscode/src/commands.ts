// The extension's commands, built by small factories from one table.
//
// Each entry of COMMANDS becomes `kernelscope.<name>`; package.json contributes the same
// names with their titles. The server's code lenses call `kernelscope.openArtifact`; the
// `show*` commands also take an optional source URI.

import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import { ExecuteCommandRequest } from "vscode-languageclient/node";
import * as ext from "./lsp_ext";
import type { ArtifactViews } from "./views";
import type { StagePanes } from "./tiles";
import { isStage, parseArtifactUri, SCHEME, stageTitle } from "./uri";

/** What commands may use. */
export interface Ctx {
  client(): LanguageClient | undefined;
  views: ArtifactViews;
  output: vscode.OutputChannel;
  panes: StagePanes;
  /** Highlights and scrolls into view the lines of the source cursor line in every view. */
  revealLinked(): void;
  restart(): Promise<void>;
}

type Command = (ctx: Ctx) => (...args: unknown[]) => unknown;

/** The source file a command applies to: its argument, the active file, or the view's source. */
function targetSource(arg?: unknown): vscode.Uri | undefined {
  if (typeof arg === "string") return vscode.Uri.parse(arg);
  if (arg instanceof vscode.Uri) return arg;
  const editor = vscode.window.activeTextEditor;
  if (!editor) return undefined;
  const uri = editor.document.uri;
  if (uri.scheme === SCHEME) {
    const address = parseArtifactUri(uri.toString());
    return address ? vscode.Uri.file(address.sourcePath) : undefined;
  }
  return uri.scheme === "file" && editor.document.languageId === "rust" ? uri : undefined;
}

function needSource(arg?: unknown): vscode.Uri | undefined {
  const source = targetSource(arg);
  if (!source) void vscode.window.showWarningMessage("kernelscope: open a Rust kernel file first.");
  return source;
}

function showStage(stage: ext.Stage): Command {
  return (ctx) => async (arg?: unknown) => {
    const source = needSource(arg);
    if (!source) return;
    await ctx.panes.show(source, stage);
    ctx.revealLinked();
  };
}

/**
 * The server's code lenses: `{ uri, stage, kernel? }`, the kernel's body scrolled to the
 * top of the view.
 */
const openArtifact: Command = (ctx) => async (arg?: unknown) => {
  const args = arg as Partial<ext.OpenArtifactArgs> | undefined;
  const source = needSource(args?.uri);
  if (!source) return;
  const stage = args?.stage && isStage(args.stage) ? args.stage : "ptx";
  const editor = await ctx.panes.show(source, stage);
  // The kernel's body; the top of the file for a stage that lists no kernels (MIR).
  const span = ctx.views.state(editor.document.uri)?.artifact.kernels.find((k) => k.name === args?.kernel);
  const line = span?.start ?? 0;
  editor.revealRange(new vscode.Range(line, 0, line, 0), vscode.TextEditorRevealType.AtTop);
};

const showAllStages: Command = (ctx) => async (arg?: unknown) => {
  const source = needSource(arg);
  if (!source) return;
  const stages = vscode.workspace.getConfiguration("kernelscope").get<ext.Stage[]>("stages", [...ext.ALL_STAGES]);
  for (const stage of stages) await ctx.panes.show(source, stage);
};

/** Whether the server offers a workspace command. */
function serverHas(client: LanguageClient, command: string): boolean {
  return client.initializeResult?.capabilities.executeCommandProvider?.commands.includes(command) ?? false;
}

const diffWithPrevious: Command = (ctx) => async (arg?: unknown) => {
  const source = needSource(arg);
  const client = ctx.client();
  if (!source || !client) return;
  const active = vscode.window.activeTextEditor?.document.uri;
  const stage = (active?.scheme === SCHEME && parseArtifactUri(active.toString())?.stage) || "ptx";
  try {
    const result = await client.sendRequest(ext.diff, { textDocument: { uri: source.toString() }, stage });
    const name = source.path.split("/").pop();
    await vscode.commands.executeCommand(
      "vscode.diff",
      vscode.Uri.parse(result.baseUri),
      vscode.Uri.parse(result.uri),
      `${name} ${stageTitle(stage)}: previous save ↔ this save`,
      { preview: false, viewColumn: vscode.ViewColumn.Beside },
    );
  } catch (error) {
    void vscode.window.showWarningMessage(`kernelscope: no diff: ${error instanceof Error ? error.message : error}`);
  }
};

/** Each kernel's register peak and the lines to look at first, in a quick pick that jumps there. */
const showCosts: Command = (ctx) => async (arg?: unknown) => {
  const source = needSource(arg);
  const client = ctx.client();
  if (!source || !client) return;
  try {
    const result = await client.sendRequest(ext.lineCosts, { textDocument: { uri: source.toString() } });
    const items: (vscode.QuickPickItem & { line: number })[] = [
      ...result.kernels.map((k) => ({
        label: k.name,
        detail: k.summary + (k.registerNote ? ` (${k.registerNote})` : ""),
        line: k.peakLines[0] ?? 0,
      })),
      ...result.lookFirst.map((l) => ({ label: `line ${l.line + 1}`, detail: l.why, line: l.line })),
    ];
    const picked = await vscode.window.showQuickPick(items, { title: "kernelscope: what the lines cost" });
    if (!picked) return;
    const editor = await vscode.window.showTextDocument(source);
    const at = new vscode.Position(picked.line, 0);
    editor.selection = new vscode.Selection(at, at);
    editor.revealRange(new vscode.Range(at, at), vscode.TextEditorRevealType.InCenter);
  } catch (error) {
    void vscode.window.showWarningMessage(`kernelscope: no costs: ${error instanceof Error ? error.message : error}`);
  }
};

/** The server's arch catalogue (initialize's `experimental.kernelscope.archs`): the architectures it takes. */
function serverArchs(client: LanguageClient | undefined): { name: string; gpus?: string }[] {
  const caps = client?.initializeResult?.capabilities.experimental as
    | { kernelscope?: { archs?: { name: string; gpus?: string }[] } }
    | undefined;
  return caps?.kernelscope?.archs ?? [];
}
/** The quick pick's first entry: no arch setting, so the crate's arch, else the server's default. */
const DEFAULT_ARCH = "default";

const selectArch: Command = (ctx) => async (arg?: unknown) => {
  const current = vscode.workspace.getConfiguration("kernelscope").get<string>("arch") || DEFAULT_ARCH;
  const items: vscode.QuickPickItem[] = [
    { label: DEFAULT_ARCH, detail: "the crate's arch ([package.metadata.kernelscope]), else sm_90" },
    ...serverArchs(ctx.client()).map((a) => ({ label: a.name, detail: a.gpus })),
  ].map((item) => ({ ...item, description: item.label === current ? "current" : undefined }));
  const pick =
    typeof arg === "string"
      ? arg
      : await vscode.window
          .showQuickPick(items, { title: "kernelscope: target GPU architecture" })
          .then((chosen) => chosen?.label);
  if (!pick) return;
  const arch = pick === DEFAULT_ARCH ? undefined : pick;
  const config = vscode.workspace.getConfiguration("kernelscope");
  if (arch) {
    const target = vscode.workspace.workspaceFolders?.length
      ? vscode.ConfigurationTarget.Workspace
      : vscode.ConfigurationTarget.Global;
    await config.update("arch", arch, target);
  } else {
    // "default" is no arch setting anywhere: one left in the user settings would win again.
    const set = config.inspect<string>("arch");
    if (set?.workspaceValue !== undefined) await config.update("arch", undefined, vscode.ConfigurationTarget.Workspace);
    if (set?.globalValue !== undefined) await config.update("arch", undefined, vscode.ConfigurationTarget.Global);
  }
  const client = ctx.client();
  if (client && serverHas(client, ext.SERVER_COMMAND_SET_ARCH)) {
    await client.sendRequest(ExecuteCommandRequest.type, {
      command: ext.SERVER_COMMAND_SET_ARCH,
      arguments: [arch ?? null],
    });
  }
};

const rebuild: Command = (ctx) => async (arg?: unknown) => {
  const client = ctx.client();
  if (!client) return;
  if (!serverHas(client, ext.SERVER_COMMAND_REBUILD)) {
    void vscode.window.showWarningMessage("kernelscope: this server does not offer a rebuild.");
    return;
  }
  const source = targetSource(arg);
  await client.sendRequest(ExecuteCommandRequest.type, {
    command: ext.SERVER_COMMAND_REBUILD,
    arguments: source ? [source.toString()] : [],
  });
};

/** What each filter hides, as the quick pick says it (docs/lsp-extensions.md, Filters). */
/** Each filter's title and what it hides, as the quick pick shows them (plain text: no Markdown there). */
const FILTER_TITLES: Record<keyof ext.ArtifactFilters, [string, string]> = {
  directives: ["Directives", ".version, .reg, .section, attributes #N, metadata…"],
  debugLocations: ["Debug locations", "PTX .loc/.file, SASS //## File, LLVM #dbg_…"],
  unusedLabels: ["Unused labels", "labels no instruction names ($L__tmp…, .L_x_…)"],
  comments: ["Comments", "comment-only and blank lines (rustc's MIR banner too)"],
  libraryFunctions: ["Library functions", "functions no kernel calls (panic handler, derived impls)"],
  padding: ["SASS padding", "the NOPs and the BRA to itself after a function"],
  compactSass: ["Compact SASS", "SASS without nvdisasm's column padding"],
};

/**
 * One quick pick for the filters of the stage views, each checked when on; the choice is
 * kept in the user's `kernelscope.filters.*` settings (only the filters changed), and the
 * views ask again.
 */
const toggleFilters: Command = () => async () => {
  const config = vscode.workspace.getConfiguration("kernelscope");
  const items = ext.FILTERS.map((name) => ({
    name,
    label: FILTER_TITLES[name][0],
    description: FILTER_TITLES[name][1],
    picked: config.get<boolean>(`filters.${name}`, true),
  }));
  const picked = await vscode.window.showQuickPick(items, {
    canPickMany: true,
    title: "kernelscope: what the stage views leave out",
  });
  if (!picked) return;
  const on = new Set(picked.map((p) => p.name));
  for (const name of ext.FILTERS) {
    if (config.get<boolean>(`filters.${name}`, true) !== on.has(name)) {
      await config.update(`filters.${name}`, on.has(name), vscode.ConfigurationTarget.Global);
    }
  }
};

/** The command table: `kernelscope.<name>` for each entry. */
export const COMMANDS: Record<string, Command> = {
  showMir: showStage("mir"),
  showLlvmIr: showStage("llvm-ir"),
  showPtx: showStage("ptx"),
  showSass: showStage("sass"),
  showAllStages,
  openStagesSideBySide: (ctx) => async (arg?: unknown) => {
    const source = needSource(arg);
    if (source) await ctx.panes.open(source);
  },
  openArtifact,
  diffWithPrevious,
  showCosts,
  toggleFilters,
  selectArch,
  rebuildFile: rebuild,
  restartServer: (ctx) => () => ctx.restart(),
  showOutput: (ctx) => () => ctx.output.show(true),
};

export function registerCommands(ctx: Ctx): vscode.Disposable[] {
  return Object.entries(COMMANDS).map(([name, factory]) =>
    vscode.commands.registerCommand(`kernelscope.${name}`, factory(ctx)),
  );
}
