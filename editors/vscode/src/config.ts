// The extension's settings, read in one place.
//
// Settings under `kernelscope.*` that the server understands are passed to it as
// `initializationOptions` and again on every change (`workspace/didChangeConfiguration`);
// the rest (server path, previews, highlighting) are the client's own.

import * as fs from "fs";
import * as path from "path";
import * as vscode from "vscode";
import { FILTERS, type ArtifactFilters, type Stage } from "./lsp_ext";

export function settings(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration("kernelscope");
}

/**
 * The settings the server reads, in the shape it reads them. An empty setting is sent as
 * `null`, which takes the key back on the server (to `kernelscope.toml`, the crate's
 * metadata or the default); leaving it out would keep the value sent before.
 */
export function serverOptions(): Record<string, unknown> {
  const s = settings();
  const options: Record<string, unknown> = {
    arch: s.get<string>("arch") || null,
    optLevel: s.get<number | null>("optLevel") ?? null,
    toolchainProfile: s.get<string | null>("toolchainProfile") || null,
    stages: s.get<Stage[]>("stages"),
    hoverStages: s.get<Stage[]>("hover.stages"),
    rustc: s.get<string>("rustc.path") || null,
    extraRustcFlags: s.get<string[]>("rustc.extraFlags"),
    debounceMs: s.get<number | null>("debounceMs") ?? null,
    remarks: s.get<boolean>("remarks"),
    compileCacheMB: s.get<number>("compileCacheMB"),
    gpuRunner: s.get<string>("gpu.runner") || null,
    ncu: s.get<string>("gpu.ncu") || null,
    // VS Code's workspace trust decides what the workspace's own files may run.
    workspaceTrusted: vscode.workspace.isTrusted,
  };
  return JSON.parse(JSON.stringify(options));
}

/** The filters every request about a view carries: `kernelscope.filters.*`, each on or off. */
export function artifactFilters(): ArtifactFilters {
  const s = settings();
  return Object.fromEntries(FILTERS.map((name) => [name, s.get<boolean>(`filters.${name}`, true)]));
}

/**
 * Where the server binary is: the one shipped inside the platform .vsix (server/kernelscope,
 * scripts/package-vsix.sh), then the setting, then PATH.
 */
export function resolveServerPath(extensionPath: string): { path?: string; tried: string[] } {
  const tried: string[] = [];
  const bundled = path.join(extensionPath, "server", "kernelscope");
  tried.push(bundled);
  if (isExecutable(bundled)) return { path: bundled, tried };
  const configured = settings().get<string>("server.path");
  if (configured) {
    const expanded = configured.replace(/^~(?=\/|$)/, process.env.HOME ?? "~");
    tried.push(expanded);
    return isExecutable(expanded) ? { path: expanded, tried } : { tried };
  }
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, "kernelscope");
    if (isExecutable(candidate)) return { path: candidate, tried };
  }
  tried.push("kernelscope on PATH");
  return { tried };
}

/**
 * Opens the settings at `key`, one of the machine-scoped ones (the server's path, the GPU
 * runner): in a remote window (code-server, SSH, WSL) they live in the remote settings, where
 * the user settings would answer "No Settings Found".
 */
export function openMachineSetting(key: string): Thenable<unknown> {
  const command = vscode.env.remoteName ? "workbench.action.openRemoteSettings" : "workbench.action.openSettings";
  return vscode.commands.executeCommand(command, { query: key });
}

/** Opens the settings at `kernelscope.server.path`. */
export function openServerPathSetting(): Thenable<unknown> {
  return openMachineSetting("kernelscope.server.path");
}

/**
 * Shows an error; when it names one of kernelscope's settings (`kernelscope.gpu.runner`), it
 * offers to open it.
 */
export async function showErrorNamingSetting(message: string): Promise<void> {
  const key = /\bkernelscope\.[a-zA-Z]+(?:\.[a-zA-Z]+)*/.exec(message)?.[0];
  if (!key) {
    await vscode.window.showErrorMessage(message);
    return;
  }
  if ((await vscode.window.showErrorMessage(message, "Open Settings")) === "Open Settings") {
    await openMachineSetting(key);
  }
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}
